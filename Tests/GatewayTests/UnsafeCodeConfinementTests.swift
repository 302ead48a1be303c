import Foundation
import Testing

/// Unsafe Swift (pointers, unmanaged and `unowned(unsafe)` references, skipped exclusivity
/// checks, text lent as raw memory) is confined to the few files that say at their top why they
/// need it and what keeps it sound: the serializers' output memory (`ByteBuffer.swift`) and the
/// boundary with libmicrohttpd (`HTTPServer.swift`), besides the storage layer's C bindings.
/// Everywhere else the compiler and the runtime check memory safety: a construct in another
/// file is named here by file and line.
@Suite struct UnsafeCodeConfinementTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// The files, relative to Sources/, that may use the constructs, each saying why at its top.
    static let allowedFiles: Set<String> = [
        "ODataSerialization/Writers/ByteBuffer.swift",
        "HTTPCore/HTTPServer.swift",
    ]
    /// The library boundaries: the files that call a C library (SQLite's `sqlite3_*`, libpq,
    /// POSIX threads) or read swift-crypto's key bytes, passing the pointers those APIs need,
    /// and the storage layer's lent columns, which rows are read through in place. Each says
    /// in a comment why it holds unsafe code.
    static let bindingFiles: Set<String> = [
        "ODataStore/Engine/LentColumns.swift",
        "ODataStore/Write/EntityTag.swift",
        "SQLiteStore/Database.swift",
        "SQLiteStore/Statement.swift",
        "SQLiteStore/SQLFunctions.swift",
        "SQLiteStore/DecimalFunctions.swift",
        "SQLiteStore/POSIXThread.swift",
        "PostgresStore/PostgresConnection.swift",
        "ODataHTTP/Access/APIKey.swift",
    ]

    /// What marks unsafe code: the standard library's `Unsafe…` types and `unsafe…` functions
    /// (`withUnsafeBytes`, `unowned(unsafe)`, `_withUnsafeGuaranteedRef`), unmanaged references,
    /// skipped exclusivity checks, and the calls that lend a string's storage as a pointer.
    static let constructs = ["Unsafe", "unsafe", "Unmanaged", "@exclusivity(unchecked)", "withUTF8", "withContiguousStorageIfAvailable"]

    static func isAllowed(_ path: String) -> Bool {
        allowedFiles.contains(path) || bindingFiles.contains(path)
    }

    /// A line's code: without its comment and the text of its string literals (a page's
    /// `'unsafe-inline'` policy is text, not code).
    static func code(of line: Substring) -> String {
        var code = "", quoted = false, escaped = false
        var rest = line[...]
        while let character = rest.first {
            rest = rest.dropFirst()
            if quoted {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                    code.append(character)
                }
                continue
            }
            if character == "/" && rest.first == "/" { break }
            if character == "\"" { quoted = true }
            code.append(character)
        }
        return code
    }

    /// `path:line: construct` for each line of a Swift file below `root` whose code (comments
    /// and string literals left out) uses one of `constructs`, unless its file is allowed.
    static func offenders(below root: URL, allowed: (String) -> Bool = isAllowed) throws -> [String] {
        let rootPath = root.standardizedFileURL.path + "/"
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var found: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.standardizedFileURL.path.dropFirst(rootPath.count))
            if allowed(path) { continue }
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let code = Self.code(of: line)
                for construct in constructs where code.contains(construct) {
                    found.append("Sources/\(path):\(number + 1): \(construct): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return found.sorted()
    }

    @Test func unsafeCodeIsOnlyInTheFilesThatSayWhy() throws {
        let found = try Self.offenders(below: Self.sources)
        #expect(found.isEmpty, """
            Unsafe code outside the files allowed to hold it (\(Self.allowedFiles.sorted().joined(separator: ", ")), \
            and the library boundaries): write it safely, or move it behind a safe API in one of them.
            \(found.joined(separator: "\n"))
            """)
    }

    /// Each allowed file exists, uses what it is allowed, and says at its top why.
    @Test func eachAllowedFileSaysWhyAtItsTop() throws {
        for path in Self.allowedFiles {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            #expect(text.hasPrefix("// Unsafe code, on purpose"), "\(path) does not say at its top why it is unsafe")
            #expect(Self.constructs.contains { text.contains($0) }, "\(path) is allowed unsafe code and has none: take it off the list")
        }
    }

    /// Each library boundary exists, uses what it is allowed, and says why in a comment.
    @Test func eachBindingFileSaysWhy() throws {
        for path in Self.bindingFiles {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            let says = text.split(separator: "\n").contains { line in
                line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.lowercased().contains("unsafe")
            }
            #expect(says, "\(path) does not say in a comment why it holds unsafe code")
            #expect(Self.constructs.contains { Self.code(ofText: text).contains($0) }, "\(path) is allowed unsafe code and has none: take it off the list")
        }
    }

    static func code(ofText text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { code(of: $0) }.joined(separator: "\n")
    }

    /// The scan finds a construct in a file off the list, by file and line, and not in comments
    /// or in an allowed file.
    @Test func theScanNamesAnOffenderByFileAndLine() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("unsafe-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Module"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let offending = """
            // Unmanaged in a comment is not code.
            let policy = "style-src 'unsafe-inline'" // nor in a string
            final class Box {
                unowned(unsafe) let owner: AnyObject
                init(owner: AnyObject) { self.owner = owner } // withUTF8, in a comment
            }
            """
        try offending.write(to: root.appendingPathComponent("Module/Box.swift"), atomically: true, encoding: .utf8)
        try offending.write(to: root.appendingPathComponent("Module/Allowed.swift"), atomically: true, encoding: .utf8)
        let found = try Self.offenders(below: root, allowed: { $0 == "Module/Allowed.swift" })
        #expect(found == ["Sources/Module/Box.swift:4: unsafe: unowned(unsafe) let owner: AnyObject"])
    }
}
