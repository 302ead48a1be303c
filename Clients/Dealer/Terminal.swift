import Foundation

/// Standard output and error, flushed as a terminal user expects.
enum Terminal {
    static func print(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A prompt: no newline, shown at once.
    static func prompt(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A line of input without its newline, or nil at the end of input.
    static func readLine() -> String? {
        Swift.readLine(strippingNewline: true)
    }
}
