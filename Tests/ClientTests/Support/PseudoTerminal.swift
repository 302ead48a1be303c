import Foundation

/// Runs a program with its standard output on a pseudo-terminal of a given size, as in a
/// terminal window, by Python's `pty` module (the standard library). Returns what the terminal
/// showed, with the terminal's `\r\n` turned back into `\n`.
enum PseudoTerminal {
    private static let script = """
        import fcntl, os, pty, struct, subprocess, sys, termios
        columns = int(sys.argv[1])
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE)
        os.close(follower)
        output = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        status = child.wait(timeout=60)
        sys.stdout.buffer.write(output)
        sys.stderr.buffer.write(child.stderr.read())
        sys.exit(status)
        """

    static func run(_ executable: URL, _ arguments: [String], columns: Int, environment: [String: String] = [:]) throws -> ProcessResult {
        var result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["python3", "-c", script, String(columns), executable.path] + arguments,
                                           environment: environment.merging(["COLUMNS": ""]) { $1 })
        result.stdout = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        return result
    }
}
