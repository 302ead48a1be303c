/// Builds the 400 errors of expression parsing and binding. Every message says which option,
/// what the problem is and where: the position is the zero-based offset, in Unicode scalars,
/// into the option's (percent-decoded) text.
struct ExpressionDiagnostics: Sendable {
    /// The query option the text came from, e.g. `$filter`; empty for a literal read alone
    /// (a key, a skip token), whose caller says where it stood.
    let option: String

    func syntaxError(_ detail: String, at position: Int) -> URIError {
        error("Syntax error", detail, at: position)
    }

    func typeError(_ detail: String, at position: Int) -> URIError {
        error("Type error", detail, at: position)
    }

    func invalidLiteral(_ detail: String, at position: Int) -> URIError {
        error("Invalid literal", detail, at: position)
    }

    func unknownName(_ detail: String, at position: Int) -> URIError {
        error("Unknown name", detail, at: position)
    }

    func arithmeticError(_ detail: String, at position: Int) -> URIError {
        error("Arithmetic error", detail, at: position)
    }

    func unsupported(_ detail: String, at position: Int) -> URIError {
        URIError(.notImplemented, "Not supported in \(option) at position \(position): \(detail)")
    }

    func limitExceeded(_ detail: String, at position: Int) -> URIError {
        error("Limit exceeded", detail, at: position)
    }

    private func error(_ problem: String, _ detail: String, at position: Int) -> URIError {
        if option.isEmpty { return .badRequest(detail) }
        return .badRequest("\(problem) in \(option) at position \(position): \(detail)")
    }
}
