/// A Content-Type value split into its media type and parameters (RFC 9110 section 8.3.1),
/// enough to find a multipart boundary and tell application/http from multipart/mixed.
struct MediaType: Equatable {
    /// Lower-cased `type/subtype`.
    let essence: String
    /// Parameter names lower-cased; values with quotes and escapes removed.
    let parameters: [String: String]

    init?(_ text: String) {
        var pieces: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
            } else if inQuotes && c == "\\" {
                escaped = true
            } else if c == "\"" {
                inQuotes.toggle()
            } else if c == ";" && !inQuotes {
                pieces.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        guard !inQuotes else { return nil }
        pieces.append(current)
        let essence = MultipartBody.trimmed(pieces[0]).lowercased()
        let halves = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ !$0.isEmpty && $0.allSatisfy(MultipartBody.isTokenCharacter) }) else { return nil }
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            let parameter = MultipartBody.trimmed(piece)
            if parameter.isEmpty { continue }
            guard let equals = parameter.firstIndex(of: "=") else { return nil }
            let name = MultipartBody.trimmed(parameter[..<equals]).lowercased()
            guard !name.isEmpty else { return nil }
            parameters[name] = MultipartBody.trimmed(parameter[parameter.index(after: equals)...])
        }
        self.essence = essence
        self.parameters = parameters
    }
}
