/// Splitting and trimming at ASCII bytes. `split(separator: ",")` on text iterates Characters,
/// segmenting graphemes as it goes: on every request that cost tens of thousands of
/// instructions for `$expand=PersonCar,PersonCar/Car` alone. An ASCII byte never occurs inside
/// a multi-byte UTF-8 sequence, so splitting at it keeps every Character whole.
extension StringProtocol where SubSequence == Substring {
    /// The pieces between occurrences of `separator`, empty pieces included.
    public func splitASCII(_ separator: Unicode.Scalar) -> [Substring] {
        precondition(separator.isASCII, "split at an ASCII byte only")
        let byte = UInt8(separator.value)
        let start = utf8.startIndex
        var pieces: [Substring] = []
        var pieceStart = start
        var index = start
        while index < utf8.endIndex {
            if utf8[index] == byte {
                pieces.append(self[pieceStart..<index])
                pieceStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        pieces.append(self[pieceStart..<utf8.endIndex])
        return pieces
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    public var trimmingSpaces: Substring {
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == UInt8(ascii: " ") { start = utf8.index(after: start) }
        while end > start, utf8[utf8.index(before: end)] == UInt8(ascii: " ") { end = utf8.index(before: end) }
        return self[start..<end]
    }
}
