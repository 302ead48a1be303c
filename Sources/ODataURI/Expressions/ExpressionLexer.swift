import EDM

/// Splits an expression into tokens (MS-ODATA 2.2.3.6.1.1, V2 URI conventions 4.5). Works on
/// Unicode scalars so that positions are stable and no combining mark can fuse with a quote.
struct ExpressionLexer {
    private let scalars: [Unicode.Scalar]
    private let diagnostics: ExpressionDiagnostics
    private var index = 0

    private init(_ text: String, diagnostics: ExpressionDiagnostics) {
        self.scalars = Array(text.unicodeScalars)
        self.diagnostics = diagnostics
    }

    /// All tokens of `text`, ending with `.end`.
    static func tokens(of text: String, diagnostics: ExpressionDiagnostics) throws(URIError) -> [ExpressionToken] {
        var lexer = ExpressionLexer(text, diagnostics: diagnostics)
        var tokens: [ExpressionToken] = []
        while true {
            let token = try lexer.nextToken()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// The one literal that `text` is, whole, as a key predicate or a skip token holds it;
    /// nil for `null`. The same scanner as in an expression, so a literal reads the same
    /// everywhere; but no space may surround it, and nothing else may follow.
    static func literal(_ text: String) throws(URIError) -> ExpressionLiteral? {
        let diagnostics = ExpressionDiagnostics(option: "")
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
              !isWhitespace(first), !isWhitespace(last) else {
            throw diagnostics.syntaxError("a literal cannot be empty or surrounded by spaces", at: 0)
        }
        let tokens = try tokens(of: text, diagnostics: diagnostics)
        guard tokens.count == 2 else { throw diagnostics.syntaxError("'\(text)' is more than one literal", at: 0) }
        switch tokens[0].kind {
        case .literal(let literal): return literal
        case .identifier("null"): return nil
        case .identifier("true"): return ExpressionLiteral(.boolean(true), .boolean)
        case .identifier("false"): return ExpressionLiteral(.boolean(false), .boolean)
        default: throw diagnostics.syntaxError("'\(text)' is not a literal", at: 0)
        }
    }

    private mutating func nextToken() throws(URIError) -> ExpressionToken {
        while index < scalars.count, Self.isWhitespace(scalars[index]) { index += 1 }
        let start = index
        guard index < scalars.count else { return ExpressionToken(kind: .end, position: start) }
        let scalar = scalars[index]
        switch scalar {
        case "(": return single(.openParenthesis)
        case ")": return single(.closeParenthesis)
        case ",": return single(.comma)
        case "/": return single(.slash)
        case "@" where peek(1).map(Self.isIdentifierStart) ?? false:
            // `@name`: a service operation's parameter in the filter its schema declares; in a
            // request's own options it names nothing and is refused as an unknown name.
            index += 1
            return ExpressionToken(kind: .identifier("@" + identifier()), position: start)
        case "'":
            let text = try quotedText()
            return ExpressionToken(kind: .literal(ExpressionLiteral(.string(text), .string)), position: start)
        case "-":
            if let next = peek(1), Self.isDigit(next) {
                return ExpressionToken(kind: .literal(try number()), position: start)
            }
            if let infinity = try infinityLiteral(at: index + 1, negative: true) {
                return ExpressionToken(kind: .literal(infinity), position: start)
            }
            return single(.minus)
        default:
            if Self.isDigit(scalar) {
                return ExpressionToken(kind: .literal(try number()), position: start)
            }
            if Self.isIdentifierStart(scalar) {
                if let infinity = try infinityLiteral(at: index, negative: false) {
                    return ExpressionToken(kind: .literal(infinity), position: start)
                }
                let name = identifier()
                // A name directly followed by a quote is a literal prefix, except an operator
                // keyword: `eq'Bob'` is `eq` and a string.
                if index < scalars.count, scalars[index] == "'", !Self.operatorKeywords.contains(name) {
                    let text = try quotedText()
                    do {
                        return ExpressionToken(kind: .literal(try LiteralGrammar.prefixed(name, text)), position: start)
                    } catch {
                        throw diagnostics.invalidLiteral(error.detail, at: start)
                    }
                }
                return ExpressionToken(kind: .identifier(name), position: start)
            }
            throw diagnostics.syntaxError("unexpected character \(Self.display(scalar))", at: start)
        }
    }

    private mutating func single(_ kind: ExpressionToken.Kind) -> ExpressionToken {
        defer { index += 1 }
        return ExpressionToken(kind: kind, position: index)
    }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func identifier() -> String {
        let start = index
        while index < scalars.count, Self.isIdentifierPart(scalars[index]) { index += 1 }
        let slice = scalars[start..<index]
        if slice.allSatisfy(\.isASCII) {
            // The usual name, as bytes: appending scalar by scalar cost thousands of instructions.
            return String(decoding: slice.map { UInt8(truncatingIfNeeded: $0.value) }, as: UTF8.self)
        }
        var name = String.UnicodeScalarView()
        name.append(contentsOf: slice)
        return String(name)
    }

    /// The text between single quotes, where `''` stands for one quote. `index` is at the
    /// opening quote and ends after the closing one.
    private mutating func quotedText() throws(URIError) -> String {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "'" {
                guard index < scalars.count, scalars[index] == "'" else { return String(text) }
                index += 1
            }
            text.append(scalar)
        }
        throw diagnostics.syntaxError("the quoted text that starts here is not closed by a quote", at: start)
    }

    /// `INF` and `-INF` with an optional `d`/`f` suffix; `NaN` is refused (SQLite has no NaN).
    private mutating func infinityLiteral(at start: Int, negative: Bool) throws(URIError) -> ExpressionLiteral? {
        // Most names are not INF or NaN; say so without building the word.
        guard start < scalars.count, scalars[start] == "I" || scalars[start] == "N" else { return nil }
        var end = start
        var word = ""
        while end < scalars.count, Self.isIdentifierPart(scalars[end]) {
            word.unicodeScalars.append(scalars[end])
            end += 1
        }
        let type: PrimitiveType
        switch word {
        case "INF", "INFd", "INFD": type = .double
        case "INFf", "INFF": type = .single
        case "NaN", "NaNd", "NaND", "NaNf", "NaNF":
            throw diagnostics.invalidLiteral("NaN is not supported", at: index)
        default: return nil
        }
        index = end
        let text = negative ? "-INF" : "INF"
        return ExpressionLiteral(.double(negative ? -Double.infinity : .infinity), type, numericText: text)
    }

    /// A number: `[-]digits[.digits][(e|E)[+|-]digits][L|M|D|F]`, in any letter case for the suffix.
    private mutating func number() throws(URIError) -> ExpressionLiteral {
        let start = index
        var text = ""
        if scalars[index] == "-" {
            text = "-"
            index += 1
        }
        readDigits(into: &text)
        var isIntegral = true
        if index < scalars.count, scalars[index] == ".", let next = peek(1), Self.isDigit(next) {
            isIntegral = false
            text += "."
            index += 1
            readDigits(into: &text)
        }
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            var exponentStart = index + 1
            var sign = ""
            if exponentStart < scalars.count, scalars[exponentStart] == "+" || scalars[exponentStart] == "-" {
                sign = String(Character(scalars[exponentStart]))
                exponentStart += 1
            }
            if exponentStart < scalars.count, Self.isDigit(scalars[exponentStart]) {
                isIntegral = false
                text += "E" + sign
                index = exponentStart
                readDigits(into: &text)
            }
        }
        var suffix: Unicode.Scalar?
        if index < scalars.count, "LlMmDdFf".unicodeScalars.contains(scalars[index]) {
            suffix = scalars[index]
            index += 1
        }
        if index < scalars.count, Self.isIdentifierPart(scalars[index]) || scalars[index] == "." {
            throw diagnostics.invalidLiteral("a number cannot be followed by \(Self.display(scalars[index]))", at: start)
        }
        do {
            return try LiteralGrammar.number(text, isIntegral: isIntegral, suffix: suffix)
        } catch {
            throw diagnostics.invalidLiteral(error.detail, at: start)
        }
    }

    private mutating func readDigits(into text: inout String) {
        while index < scalars.count, Self.isDigit(scalars[index]) {
            text.unicodeScalars.append(scalars[index])
            index += 1
        }
    }

    /// The binary and unary operator keywords.
    static let operatorKeywords: Set<String> = ["and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "add", "sub", "mul", "div", "mod"]

    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 48 && scalar.value <= 57
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII without the Unicode property tables, which cost hundreds of instructions a scalar.
        if scalar.isASCII {
            let value = scalar.value | 0x20
            return scalar == "_" || (value >= 97 && value <= 122)
        }
        return scalar.properties.isAlphabetic
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || isDigit(scalar)
    }

    /// A character as an error message shows it: quoted when printable, else its code point.
    static func display(_ scalar: Unicode.Scalar) -> String {
        if scalar.properties.isWhitespace || scalar.value < 32 || scalar.properties.generalCategory == .control
            || scalar.properties.generalCategory == .format {
            return "U+" + String(scalar.value, radix: 16, uppercase: true)
        }
        return "'\(Character(scalar))'"
    }
}
