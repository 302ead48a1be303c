import CSQLite

/// SQL functions the expression translation uses, registered on every connection.
public enum SQLFunctions {
    /// `edm_int32(x)`: x when it is an INTEGER within Edm.Int32's range, else NULL.
    public static let int32 = "edm_int32"
    /// `edm_int64(x)`: x when it is an INTEGER, else NULL: SQLite turns a 64-bit overflow into a
    /// REAL, which must not pass for the Int64 it is not.
    public static let int64 = "edm_int64"

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
        return rc
    }
}
