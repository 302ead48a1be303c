import ODataURI

/// Text forms shared with URI literals, so that a value reads the same in a URI and a payload.
enum ODataTextFormats {
    static func offsetText(_ minutes: Int) -> String { LiteralFormatter.offsetText(minutes) }
    static func durationText(milliseconds: Int64) -> String { LiteralFormatter.durationText(milliseconds: milliseconds) }
}
