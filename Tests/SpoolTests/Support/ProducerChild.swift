import Foundation

/// A child `spool produce DIR COUNT --prefix PREFIX` process: a thread reads its standard output,
/// keeping each complete line (an acknowledged id) and signalling each one, and its end.
final class ProducerChild: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let lock = NSLock()
    private var lines: [String] = []
    private var ended = false
    /// Signalled once per line read, and once more at the end of the output.
    private let event = DispatchSemaphore(value: 0)

    /// Starts the child.
    init(_ binary: String, directory: String, count: Int, prefix: String) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["produce", directory, "\(count)", "--prefix", prefix]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            ChildProcess.readLines(reader) { line in
                lock.withLock { lines.append(line) }
                event.signal()
            }
            // A line without its newline was cut by a kill: not an acknowledgement.
            lock.withLock { ended = true }
            event.signal()
        }
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

    /// The ids acknowledged so far.
    var acknowledged: [String] { lock.withLock { lines } }

    /// Whether its output has ended (the child exited or was killed).
    var hasEnded: Bool { lock.withLock { ended } }

    /// Waits until at least `count` ids are acknowledged or the output ends; `false` past `deadline`.
    func wait(forLines count: Int, until deadline: Date) -> Bool {
        while lock.withLock({ lines.count < count && !ended }) {
            if event.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut { return false }
        }
        return true
    }

    /// Waits until the output ends; `false` past `deadline`.
    func waitForEnd(until deadline: Date) -> Bool {
        while !hasEnded {
            if event.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .timedOut { return false }
        }
        process.waitUntilExit()
        return true
    }

    /// Kills the child with SIGKILL and reaps it (after its output ended).
    func kill9() {
        kill(pid, SIGKILL)
        _ = waitForEnd(until: Date().addingTimeInterval(30))
    }
}
