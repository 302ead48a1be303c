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

    /// What a signal at the prompt leaves behind: whether the program prompted, whether the
    /// terminal was raw while it waited, whether the terminal's settings are as before it started,
    /// and its exit status (negative: the signal that ended it). The signal is unblocked in the
    /// child, as in a shell, since the test runner's children start with some blocked.
    private static let signalScript = """
        import json, os, pty, select, signal, subprocess, sys, termios, time
        number = getattr(signal, sys.argv[1])
        leader, follower = pty.openpty()
        before = termios.tcgetattr(follower)
        child = subprocess.Popen(sys.argv[2:], stdin=follower, stdout=follower, stderr=subprocess.DEVNULL,
                                 preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, [number]))
        output = b""
        deadline = time.time() + 60
        while time.time() < deadline and b"> " not in output:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                output += os.read(leader, 65536)
        time.sleep(0.3)
        during = termios.tcgetattr(follower)
        child.send_signal(number)
        try:
            status = child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            status = child.wait()
        after = termios.tcgetattr(follower)
        print(json.dumps({"prompted": b"> " in output, "rawWhileWaiting": not (during[3] & termios.ICANON),
                          "restored": after == before, "status": status}))
        """

    struct SignalOutcome: Decodable {
        var prompted: Bool
        var rawWhileWaiting: Bool
        var restored: Bool
        var status: Int
    }

    /// Runs the program on a pseudo-terminal and sends it `signal` (`"SIGTERM"`) once it waits at its `> ` prompt.
    static func signalAtPrompt(_ executable: URL, _ arguments: [String], signal: String) throws -> SignalOutcome {
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["python3", "-c", signalScript, signal, executable.path] + arguments)
        return try JSONDecoder().decode(SignalOutcome.self, from: Data(result.stdout.utf8))
    }
}
