import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads `browse`'s command lines. From a terminal each line is read with the terminal in raw
/// mode and edited here, because the terminal's own line editing echoes keys it does not know
/// (the arrows) as `^[[A` in the middle of the line: Up and Down recall earlier lines, other
/// escape sequences do nothing, Backspace erases a character by its display width, Ctrl-U the
/// line, Enter ends it, Ctrl-D on an empty line ends the input and Ctrl-C quits. The terminal's
/// settings are restored after every line, however it ends, and when the process is told to
/// end (SIGTERM, SIGHUP, SIGINT, SIGQUIT) while waiting at the prompt. From a pipe or a file,
/// lines are read as they come, so browse can be scripted.
final class LineEditor {
    private var history: [String] = []
    private let isTerminal = isatty(STDIN_FILENO) == 1
    /// A byte read while looking for an escape sequence that turned out not to be part of one.
    private var pushedBack: UInt8?
    private var restorer: TerminalRestorer?

    /// Shows the prompt and reads a line, without its newline; nil at the end of input.
    func readLine(prompt: String) -> String? {
        guard isTerminal, let mode = RawTerminalMode() else {
            Terminal.prompt(prompt)
            return Terminal.readLine()
        }
        defer { mode.restore() }
        if restorer == nil { restorer = TerminalRestorer(mode) }
        // The prompt comes after raw mode is on, so nothing typed after it is echoed by the terminal.
        Terminal.prompt(prompt)
        return edit(mode)
    }

    private func edit(_ mode: RawTerminalMode) -> String? {
        var line = ""
        var pending: [UInt8] = []
        var recalled = history.count
        var draft = ""

        func show(_ text: String) {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        func erase(columns: Int) {
            guard columns > 0 else { return }
            let back = String(repeating: "\u{8}", count: columns)
            show(back + String(repeating: " ", count: columns) + back)
        }
        func replace(with text: String) {
            erase(columns: TerminalText.width(line))
            line = text
            show(TerminalText.clean(text))
        }

        while let byte = nextByte() {
            switch byte {
            case 0x0D, 0x0A:
                show("\n")
                if !line.trimmingCharacters(in: .whitespaces).isEmpty, history.last != line { history.append(line) }
                return line
            case 0x03:
                // Ctrl-C: the process ends here, so the terminal is put back first.
                mode.restore()
                show("^C\n")
                exit(130)
            case 0x04:
                if line.isEmpty {
                    show("\n")
                    return nil
                }
            case 0x7F, 0x08:
                if let last = line.popLast() { erase(columns: TerminalText.width(of: last)) }
            case 0x15:
                replace(with: "")
            case 0x1B:
                switch escapeSequenceKey() {
                case UInt8(ascii: "A") where recalled > 0:
                    if recalled == history.count { draft = line }
                    recalled -= 1
                    replace(with: history[recalled])
                case UInt8(ascii: "B") where recalled < history.count:
                    recalled += 1
                    replace(with: recalled == history.count ? draft : history[recalled])
                default:
                    break
                }
            case 0x20..<0x7F:
                line.unicodeScalars.append(Unicode.Scalar(byte))
                show(String(Unicode.Scalar(byte)))
            case 0x80...:
                // UTF-8: shown once the character's bytes are all there.
                pending.append(byte)
                let expected = pending[0] >= 0xF0 ? 4 : pending[0] >= 0xE0 ? 3 : pending[0] >= 0xC0 ? 2 : 1
                if pending.count >= expected {
                    let text = String(decoding: pending, as: UTF8.self)
                    pending.removeAll()
                    line += text
                    show(TerminalText.clean(text))
                }
            default:
                break // other control keys do nothing
            }
        }
        show("\n")
        return line.isEmpty ? nil : line
    }

    /// After an ESC: the final byte of a `CSI` (`ESC [ … A`) or `SS3` (`ESC O A`) sequence, the
    /// keys' name for the arrows and the like; nil for a lone ESC.
    private func escapeSequenceKey() -> UInt8? {
        guard let introducer = nextByte() else { return nil }
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            pushedBack = introducer
            return nil
        }
        while let byte = nextByte() {
            if (0x40...0x7E).contains(byte) { return byte }
        }
        return nil
    }

    private func nextByte() -> UInt8? {
        if let byte = pushedBack {
            pushedBack = nil
            return byte
        }
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
}

/// Puts the terminal back when a signal ends the process while it is in raw mode, then lets the
/// signal end it as it would have: a shell left in raw mode shows nothing typed and ignores Enter.
/// The signals are taken by dispatch sources rather than a C handler, so the restoring runs as
/// ordinary code; the settings restored are the ones found before the first line, which every
/// line puts back.
final class TerminalRestorer {
    static let signals = [SIGTERM, SIGHUP, SIGINT, SIGQUIT]
    private var sources: [any DispatchSourceSignal] = []

    init(_ mode: RawTerminalMode) {
        for number in Self.signals {
            // Ignored by default so that the source, not the default action, sees it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                mode.restore()
                signal(number, SIG_DFL)
                var unblocked = sigset_t()
                sigemptyset(&unblocked)
                sigaddset(&unblocked, number)
                pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
                raise(number)
            }
            source.resume()
            sources.append(source)
        }
    }
}

/// Standard input's terminal switched to raw input (no line editing, no echo, Ctrl-C as a
/// key), output processing left on; `restore()` puts back the settings it found.
struct RawTerminalMode {
    private let saved: termios

    init?() {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        // One byte at a time, waiting as long as it takes (VMIN 1, VTIME 0).
        #if os(Linux)
        raw.c_cc.6 = 1
        raw.c_cc.5 = 0
        #else
        raw.c_cc.16 = 1
        raw.c_cc.17 = 0
        #endif
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        saved = original
    }

    func restore() {
        var settings = saved
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
