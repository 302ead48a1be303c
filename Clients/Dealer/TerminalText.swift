import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text from the server made safe and measurable for a terminal: control characters shown as
/// visible symbols rather than obeyed, widths in display columns rather than characters.
enum TerminalText {
    /// Escape sequences, newlines and other control characters (C0, DEL, C1) become their Unicode
    /// control pictures (`␛`, `␤`...), and bidirectional overrides a `�`, so a field cannot recolour
    /// the terminal, move the cursor, break a row or reorder the text around it.
    static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsReplacing) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: scalars.append("\u{2424}")
            case 0x00..<0x20: scalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: scalars.append("\u{2421}")
            case 0x80..<0xA0, 0x202A...0x202E, 0x2066...0x2069: scalars.append("\u{FFFD}")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    private static func needsReplacing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The columns the text takes on a terminal: two for wide (CJK, emoji) characters, none for
    /// combining marks. Measured by the C library's `wcwidth` in a UTF-8 locale.
    static func width(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of character: Character) -> Int {
        _ = utf8Locale
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        guard let wcwidth = columnsOfCharacter else { return 1 }
        let columns = Int(wcwidth(wchar_t(bitPattern: first.value)))
        return columns < 0 ? 1 : columns
    }

    /// The text cut to at most `columns` display columns, ending in `…` when anything was cut.
    static func truncate(_ text: String, toWidth columns: Int) -> String {
        guard width(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > columns - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// The C library's `wcwidth`, looked up at run time: Swift's C module for the library leaves
    /// it out (it sits behind `_XOPEN_SOURCE`), though every C library on our platforms has it.
    private static let columnsOfCharacter: (@convention(c) (wchar_t) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "wcwidth") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (wchar_t) -> Int32).self)
    }()

    /// `wcwidth` answers by the locale's character type; the process starts in "C", where every
    /// non-ASCII character is unprintable.
    private static let utf8Locale: Bool = {
        setlocale(LC_CTYPE, "C.UTF-8") != nil || setlocale(LC_CTYPE, "en_US.UTF-8") != nil
    }()
}
