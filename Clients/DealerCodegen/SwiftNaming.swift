/// Turning names from a schema into Swift identifiers that read as if a person chose them.
enum SwiftNaming {
    /// Words that need backticks to be used as identifiers.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "Type", "Protocol", "some", "any",
    ]

    /// Letters, digits and underscores only, not starting with a digit. Other characters separate
    /// words, which are joined in camel case: `first-day` -> `firstDay`.
    static func sanitized(_ name: String) -> String {
        var words: [String] = [""]
        for scalar in name.unicodeScalars {
            let isASCIILetterOrDigit = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            if isASCIILetterOrDigit || scalar == "_" {
                words[words.count - 1].unicodeScalars.append(scalar)
            } else if !words[words.count - 1].isEmpty {
                words.append("")
            }
        }
        var result = words[0]
        for word in words.dropFirst() where !word.isEmpty {
            result += result.isEmpty ? word : word.prefix(1).uppercased() + word.dropFirst()
        }
        if result.isEmpty { return "_" }
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        return result
    }

    /// `PersonCar` -> `personCar`, `URLString` -> `urlString`, `SSN` -> `ssn`, `personID` stays.
    static func lowerCamel(_ name: String) -> String {
        let characters = Array(sanitized(name))
        let leadingUppercase = characters.prefix(while: { $0.isUppercase }).count
        guard leadingUppercase > 0 else { return String(characters) }
        var lowered = leadingUppercase
        // In "URLString" the S starts the next word; keep it upper case.
        if leadingUppercase > 1, leadingUppercase < characters.count, characters[leadingUppercase].isLowercase {
            lowered -= 1
        }
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// `person` -> `Person`; the rest is kept.
    static func upperCamel(_ name: String) -> String {
        let text = sanitized(name)
        guard let first = text.first, first.isLowercase else { return text }
        return first.uppercased() + text.dropFirst()
    }

    /// The identifier as it must be written: in backticks if it is a keyword.
    static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// Swift text for a string literal.
    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Text safe inside a `///` comment on one line.
    static func commentText(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }
}

/// Hands out names unique within one scope, in the order asked, so that output is deterministic.
struct NameAllocator {
    private var used: Set<String>

    init(reserved: Set<String> = []) {
        used = reserved
    }

    /// The first free name among the candidates, else the last with a number appended.
    mutating func allocate(_ candidates: [String]) -> String {
        for candidate in candidates where !used.contains(candidate) {
            used.insert(candidate)
            return candidate
        }
        let base = candidates.last ?? "_"
        var number = 2
        while used.contains("\(base)\(number)") { number += 1 }
        used.insert("\(base)\(number)")
        return "\(base)\(number)"
    }
}
