import Foundation

/// Runs a program with its standard output on a pseudo-terminal of a given size, as in a
/// terminal window, by Python's `pty` module (the standard library). Returns what the terminal
/// showed, with the terminal's `\r\n` turned back into `\n`.
///
/// With `typing`, standard input is the terminal too, and each string is typed as keys once
/// the program has shown one more `> ` prompt: a user at the keyboard, answering prompts.
enum PseudoTerminal {
    private static let script = """
        import fcntl, json, os, pty, select, struct, subprocess, sys, termios, time
        columns = int(sys.argv[1])
        typing = json.loads(sys.argv[2])
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        child = subprocess.Popen(sys.argv[3:], stdin=follower if typing else subprocess.DEVNULL,
                                 stdout=follower, stderr=subprocess.PIPE)
        os.close(follower)
        output = b""
        typed = 0
        deadline = time.time() + 60
        while time.time() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
            if typed < len(typing) and output.count(b"> ") > typed:
                os.write(leader, typing[typed].encode())
                typed += 1
        status = child.wait(timeout=60)
        sys.stdout.buffer.write(output)
        sys.stderr.buffer.write(child.stderr.read())
        sys.exit(status)
        """

    static func run(_ executable: URL, _ arguments: [String], columns: Int, typing: [String] = [],
                    environment: [String: String] = [:]) throws -> ProcessResult {
        let keys = String(decoding: try JSONEncoder().encode(typing), as: UTF8.self)
        var result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["python3", "-c", script, String(columns), keys, executable.path] + arguments,
                                           environment: environment.merging(["COLUMNS": ""]) { $1 })
        result.stdout = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        return result
    }
}
