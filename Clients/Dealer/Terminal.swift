import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and error, flushed as a terminal user expects. Every line is cleaned of
/// control characters and, on a terminal of known width, cut to fit it.
enum Terminal {
    static func print(_ text: String = "") {
        FileHandle.standardOutput.write(Data((fit(text) + "\n").utf8))
    }

    /// A prompt: no newline, shown at once.
    static func prompt(_ text: String) {
        FileHandle.standardOutput.write(Data(TerminalText.clean(text).utf8))
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.clean(text) + "\n").utf8))
    }

    /// A line of input without its newline, or nil at the end of input. Escape sequences a
    /// terminal sends for keys such as the arrows are dropped, so they never reach a command.
    static func readLine() -> String? {
        guard let line = Swift.readLine(strippingNewline: true) else { return nil }
        return withoutEscapeSequences(line)
    }

    /// The terminal's width in columns: `COLUMNS` when set, else the size of the terminal on
    /// standard output; nil when output goes to a file or a pipe (nothing is cut then).
    static let columns: Int? = {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }()

    private static func fit(_ text: String) -> String {
        let clean = TerminalText.clean(text)
        guard let columns else { return clean }
        return TerminalText.truncate(clean, toWidth: columns)
    }

    /// `ESC [ ... letter` and `ESC O letter` (cursor keys), and a lone ESC, removed.
    static func withoutEscapeSequences(_ line: String) -> String {
        guard line.contains("\u{1B}") else { return line }
        var result = ""
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            guard let introducer = scalars.next() else { break }
            if introducer == "[" || introducer == "O" {
                while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
            }
        }
        return result
    }
}
