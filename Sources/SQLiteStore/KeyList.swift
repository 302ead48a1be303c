import ODataStore

/// A list of key tuples passed to SQLite as one JSON parameter and unpacked with json_each
/// (`SQLiteDialect.keyMembership`), so that `$expand` runs one cached statement per level
/// whatever the number of parents.
enum KeyList {
    /// The JSON text of the keys: `[1,2,3]`, or `[[1,"a"],[2,"b"]]` for composite keys.
    static func json(_ keys: [LinkKey]) -> String {
        var text = "["
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            if key.rest.isEmpty {
                append(key.first, to: &text)
            } else {
                text += "["
                append(key.first, to: &text)
                for value in key.rest {
                    text += ","
                    append(value, to: &text)
                }
                text += "]"
            }
        }
        return text + "]"
    }

    private static func append(_ value: SQLValue, to text: inout String) {
        switch value {
        case .null: text += "null"
        case .integer(let i): text += String(i)
        case .real(let d): text += d.isFinite ? String(d) : "null"
        case .text(let s):
            text += "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
            text += "\""
        case .blob:
            // Binary keys cannot be matched through JSON; they match nothing rather than something wrong.
            text += "null"
        }
    }
}
