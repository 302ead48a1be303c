import ArgumentParser
import Foundation
import ODataHTTP

/// `dealer-gateway keys add|list|revoke`: the API keys of an access file.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the API keys of an access file (a running server picks up the change).",
        subcommands: [Add.self, List.self, Revoke.self])

    struct FileOption: ParsableArguments {
        @Option(name: .customLong("access-file"), help: "The access file (JSON: roles and salted key hashes).")
        var accessFile: String
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and print it once, as the last line; the file keeps only its salted hash.")
        @OptionGroup var file: FileOption
        @Option(help: "The key's name, shown in logs and used as the Basic user name.")
        var name: String
        @Option(help: "Its role: reader, editor, admin, or one the file declares.")
        var role: String
        @Option(name: .customLong("rate-limit"), help: "Requests per second this key may make (N or N/s); default: its role's, or serve's --rate-limit.")
        var rateLimit: String?

        func run() throws {
            var access = try AccessFile.read(path: file.accessFile, missingIsEmpty: true)
            guard !name.isEmpty, !name.contains(":") else { throw ValidationError("--name must be non-empty and without ':'") }
            guard !access.keys.contains(where: { $0.name == name }) else {
                throw ValidationError("a key named \(name) exists; revoke it first")
            }
            guard AccessFile.builtInRoles.contains(role) || (access.roles[role] != nil && role != AccessFile.anonymousRole) else {
                throw ValidationError("unknown role \(role): use reader, editor, admin or a role the file declares")
            }
            let rate = try rateLimit.map { try Serve.parseRate($0, option: "--rate-limit") }
            let (key, entry) = APIKey.entry(name: name, role: role, rateLimit: rate)
            access.keys.append(entry)
            try access.write(path: file.accessFile)
            print("Added key \(name) (role \(role)) to \(file.accessFile). It is shown only now:")
            print(key)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the keys' names, roles and creation times (never a secret).")
        @OptionGroup var file: FileOption

        func run() throws {
            let access = try AccessFile.read(path: file.accessFile)
            for key in access.keys {
                print([key.name, key.role, key.created, key.rateLimit.map { "\($0)/s" } ?? ""].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a key.")
        @OptionGroup var file: FileOption
        @Option(help: "The key's name.")
        var name: String

        func run() throws {
            var access = try AccessFile.read(path: file.accessFile)
            guard access.keys.contains(where: { $0.name == name }) else { throw ValidationError("no key is named \(name)") }
            access.keys.removeAll { $0.name == name }
            try access.write(path: file.accessFile)
            print("Revoked key \(name).")
        }
    }
}

