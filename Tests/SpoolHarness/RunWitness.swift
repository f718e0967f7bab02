import Foundation
import SpoolCommands

/// The handler `spool own --run WITNESS` runs for each job: evidence, in the directory WITNESS, that
/// tells a job run twice at once (a bug of the ownership fence or of the runner) from one run again
/// after its owner was killed or stopped (allowed: the attempt was reclaimed).
///
/// A run of job ID:
/// 1. creates `markers/ID` (`O_CREAT|O_EXCL`) holding this process's pid and start time (from
///    `/proc/PID/stat`, so that a reused pid is not taken for its former process), and syncs it: the
///    job is held across that I/O. When the marker exists already, the run reads it: a process that
///    is alive, is not stopped (SIGSTOP) and is not this one is running the job at this moment, and the
///    run appends `concurrent ID HOLDER PID` to `violations`; a marker of a process that no longer
///    exists (a killed owner), of a stopped one (an owner whose lease expired), or a torn one is taken
///    over, and the run appends `takeover ID HOLDER dead|stopped|torn|self PID` to `takeovers`. A job
///    run twice at once in this process is a violation too.
/// 2. appends `done ID PID` to `completions`;
/// 3. removes the marker if it still holds this process (a stopped owner's run, resumed after another
///    owner took the job over, leaves the other's marker alone), and returns: the job succeeds.
///
/// Every line is appended with `O_APPEND` in one write and synced before the run goes on.
final class RunWitness: @unchecked Sendable {
    // @unchecked: `running` is guarded by `lock`; the rest is immutable.
    private let directory: String
    private let identity: ProcessIdentity
    private let lock = NSLock()
    private var running: Set<String> = []

    /// A witness writing into `directory` (created, with `markers/`, when missing).
    init(directory: String) throws {
        for path in [directory, directory + "/markers"] where mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw CommandFailure.usage("--run: cannot create \(path) (errno \(errno))")
        }
        self.directory = directory
        identity = ProcessIdentity(pid: getpid(), start: ProcessIdentity.startTime(of: getpid()) ?? 0)
    }

    /// One run of job `id` (steps 1 to 3 above).
    func run(_ id: String) {
        let twice = lock.withLock { !running.insert(id).inserted }
        if twice { append("violations", "concurrent \(id) \(identity.pid) \(identity.pid) (twice in this process)") }
        defer { if !twice { _ = lock.withLock { running.remove(id) } } }
        let marker = directory + "/markers/" + id
        take(marker, id: id)
        append("completions", "done \(id) \(identity.pid)")
        if ProcessIdentity(marker: marker) == identity { unlink(marker) }
    }

    /// Step 1: the marker created, or taken over (with a line in `violations` or `takeovers`).
    private func take(_ marker: String, id: String) {
        var descriptor = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        if descriptor < 0 {
            let holder = ProcessIdentity(marker: marker)
            if let holder, holder != identity, holder.isAlive, !holder.isStopped {
                append("violations", "concurrent \(id) \(holder.pid) \(identity.pid)")
            } else {
                let why =
                    holder == nil ? "torn" : holder == identity ? "self" : holder!.isAlive ? "stopped" : "dead"
                append("takeovers", "takeover \(id) \(holder.map { "\($0.pid)" } ?? "-") \(why) \(identity.pid)")
            }
            descriptor = open(marker, O_WRONLY | O_TRUNC)
        }
        guard descriptor >= 0 else { return }
        Self.write(descriptor, "\(identity.pid) \(identity.start)\n")
        close(descriptor)
    }

    /// Appends `line` and a newline to the file `name` in one write, and syncs it.
    private func append(_ name: String, _ line: String) {
        let descriptor = open(directory + "/" + name, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return }
        Self.write(descriptor, line + "\n")
        close(descriptor)
    }

    /// Writes `text` at the descriptor's position and syncs the file.
    private static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
    }
}

/// A process named by its pid and its start time (clock ticks after boot, `/proc/PID/stat`), so that
/// a pid reused by a later process is not taken for the one a marker names.
struct ProcessIdentity: Equatable {
    let pid: Int32
    let start: UInt64

    init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }

    /// The identity a marker file holds (`PID START`); `nil` when it holds none (a torn marker).
    init?(marker path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let pid = Int32(fields[0]), let start = UInt64(fields[1]) else { return nil }
        self.init(pid: pid, start: start)
    }

    /// Whether the process exists (and is the one that started then, not a zombie).
    var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM, let fields = Self.statFields(of: pid) else { return false }
        return fields[0] != "Z" && fields[0] != "X" && UInt64(fields[19]) == start
    }

    /// Whether the process is stopped (SIGSTOP, or a tracer's stop).
    var isStopped: Bool { Self.statFields(of: pid).map { $0[0] == "T" || $0[0] == "t" } ?? false }

    /// The start time of process `pid`, if it exists.
    static func startTime(of pid: Int32) -> UInt64? { statFields(of: pid).flatMap { UInt64($0[19]) } }

    /// The fields of `/proc/PID/stat` after the command name: the state first, the start time 20th.
    private static func statFields(of pid: Int32) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ").map(String.init)
        return fields.count > 19 ? fields : nil
    }
}
