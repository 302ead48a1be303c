import CSQLite
import Glibc
import ODataStore

// A binding file: it registers Swift functions with SQLite's C API (sqlite3_create_function_v2),
// which hands them C pointers to their arguments, and keeps a C locale object for case mapping;
// that is the unsafe code here.

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

    /// `edm_lower(s)`, `edm_upper(s)`: Unicode's simple case mapping, one character to one (ß
    /// and ﬁ stay as they are, İ lowers to i), as .NET's ToLowerInvariant and ToUpperInvariant
    /// map, and as PostgreSQL's `lower`/`upper` do under the "C.utf8" collation: both read the
    /// C library's tables, so the two engines agree. SQLite's own functions map ASCII only.
    public static let lower = "edm_lower"
    public static let upper = "edm_upper"

    static func register(on handle: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let decimalsRegistered = DecimalFunctions.register(on: handle)
        guard decimalsRegistered == SQLITE_OK else { return decimalsRegistered }
        for (name, isLower) in [(lower, true), (upper, false)] {
            let rc = sqlite3_create_function_v2(handle, name, 1, flags, isLower ? UnsafeMutableRawPointer(bitPattern: 1) : nil, { context, _, arguments in
                guard let argument = arguments?[0], sqlite3_value_type(argument) != SQLITE_NULL, let text = sqlite3_value_text(argument) else {
                    sqlite3_result_null(context)
                    return
                }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument)))
                let string = String(decoding: bytes, as: UTF8.self)
                let mapped = SimpleCaseMapping.map(string, lower: sqlite3_user_data(context) != nil)
                var utf8 = mapped.utf8CString
                utf8.withUnsafeMutableBufferPointer { buffer in
                    sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), csqlite_transient())
                }
            }, nil, nil, nil)
            guard rc == SQLITE_OK else { return rc }
        }
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
            case SQLITE_TEXT:
                // A Decimal, kept as its text.
                guard let text = sqlite3_value_text(argument),
                      let number = DecimalFunctions.parse(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument))), as: UTF8.self)),
                      let whole = DecimalFunctions.integer(truncating: number, within: lowest...highest) else {
                    sqlite3_result_null(context)
                    return
                }
                sqlite3_result_int64(context, whole)
            default:
                sqlite3_result_null(context)
            }
        }, nil, nil, nil)
        return rc
    }
}

/// Unicode's simple (one character to one) case mapping, from the C library's tables in the
/// C.UTF-8 locale: the tables PostgreSQL's `lower`/`upper` read under the "C.utf8" collation.
/// The process's own locale is left alone; the locale object is created once and only read.
enum SimpleCaseMapping {
    nonisolated(unsafe) private static let locale: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    static func map(_ string: String, lower: Bool) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            mapped.append(map(scalar, lower: lower))
        }
        return String(mapped)
    }

    private static func map(_ scalar: Unicode.Scalar, lower: Bool) -> Unicode.Scalar {
        guard let locale else {
            // Without the C.UTF-8 tables: Unicode's full mapping where it is one character.
            let full = lower ? scalar.properties.lowercaseMapping : scalar.properties.uppercaseMapping
            return full.unicodeScalars.count == 1 ? full.unicodeScalars.first! : scalar
        }
        return Unicode.Scalar(csqlite_simple_case(scalar.value, lower ? 1 : 0, locale)) ?? scalar
    }
}
