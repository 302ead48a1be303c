import CSQLite
import ODataStore

// A binding file: it registers Swift functions with SQLite's C API (sqlite3_create_function_v2),
// which hands them C pointers to their arguments.

/// SQL functions the expression translation uses, registered on every connection.
public enum SQLFunctions {
    /// `edm_int32(x)`: x when it is an INTEGER within Edm.Int32's range, else NULL.
    public static let int32 = "edm_int32"
    /// `edm_int64(x)`: x when it is an INTEGER, else NULL: SQLite turns a 64-bit overflow into a
    /// REAL, which must not pass for the Int64 it is not.
    public static let int64 = "edm_int64"

    /// `edm_cast(x, low, high)`: x truncated toward zero to an INTEGER when that lies within
    /// low...high, else NULL. Unlike `CAST(x AS INTEGER)`, which saturates at 64 bits, a value
    /// out of the target type's range does not pass for one in it.
    public static let cast = "edm_cast"

    static func register(on handle: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var rc = sqlite3_create_function_v2(handle, int32, 1, flags, nil, { context, _, arguments in
            guard let argument = arguments?[0], sqlite3_value_type(argument) == SQLITE_INTEGER,
                  Int64(Int32.min)...Int64(Int32.max) ~= sqlite3_value_int64(argument) else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_value(context, argument)
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { return rc }
        rc = sqlite3_create_function_v2(handle, int64, 1, flags, nil, { context, _, arguments in
            guard let argument = arguments?[0], sqlite3_value_type(argument) == SQLITE_INTEGER else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_value(context, argument)
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { return rc }
        rc = sqlite3_create_function_v2(handle, cast, 3, flags, nil, { context, _, arguments in
            guard let arguments, let argument = arguments[0], let low = arguments[1], let high = arguments[2] else { return }
            let (lowest, highest) = (sqlite3_value_int64(low), sqlite3_value_int64(high))
            switch sqlite3_value_type(argument) {
            case SQLITE_INTEGER:
                let number = sqlite3_value_int64(argument)
                if lowest...highest ~= number { sqlite3_result_int64(context, number) } else { sqlite3_result_null(context) }
            case SQLITE_FLOAT:
                let whole = sqlite3_value_double(argument).rounded(.towardZero)
                // Double(highest) may round up (Int64.max to 2^63): compare below its successor.
                if whole >= Double(lowest) && whole < Double(highest) + 1 {
                    sqlite3_result_int64(context, Int64(whole))
                } else {
                    sqlite3_result_null(context)
                }
            default:
                sqlite3_result_null(context)
            }
        }, nil, nil, nil)
        return rc
    }
}
