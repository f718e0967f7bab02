import Foundation
import Spool
import SpoolCommands

/// `spool own`: holds a queue as its `.shared` owner and writes what standard input asks, one line
/// at a time, for the multi-process ownership tests (a stale owner, a takeover after kill -9, racing
/// owners). It prints `owner` once it has the role (or `refused CODE` and exits), then for each line:
/// `enqueue ID` → `enqueued ID` or `refused CODE`; `renew` → `renewed` or `refused CODE`;
/// `ingest` → `ingested N` (``JobQueue/ingestInbox()``) or `refused CODE`;
/// `close` (or the end of input) → closes the queue, prints `closed` and exits. Each line is printed
/// only after the call it reports returned.
///
/// With `--run WITNESS` the owner also runs the queue's jobs (kinds `produced`, from `spool produce`,
/// and `owned`, from `enqueue ID`) with a ``JobRunner`` (4 at once) from the moment it has the role,
/// each through a ``RunWitness`` that leaves in the directory WITNESS the evidence of a job run twice
/// at once (see there); failed attempts are retried at once (up to 1,000 attempts) and finished
/// jobs are kept. Three more lines then: `drain` → ingests, waits until every job unfinished then
/// has finished (on the runner's events) and prints `drained N` (N such jobs), or `refused CODE`
/// when the runner stopped by itself; `wait-stopped` → waits (30 s at most) until the runner
/// stopped by itself, as it does once another owner took over, and prints `stopped CODE`, or
/// `running` after 30 s; `stop` → stops the runner (letting running handlers finish) and prints
/// `stopped` or `stopped CODE` (why it had stopped by itself). `close` stops the runner first.
enum OwnCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "own",
        synopsis:
            "DIR [--lease SECONDS] [--clock-offset SECONDS] [--wait-for-go] [--run WITNESS] [--ingest-every MS] [--file-by-file]",
        summary: "Hold a queue as its .shared owner, writing what standard input asks (for process tests).",
        help: """
              --lease SECONDS          the ownership lease (default 30)
              --clock-offset SECONDS   run the queue's clock this far ahead of the system's (default 0)
              --wait-for-go            read a line `go` before opening (so that tests can start several at once)
              --run WITNESS            run the jobs (kinds produced and owned) with a JobRunner whose handler
                                       leaves evidence in the directory WITNESS: a marker per running job in
                                       markers/, and the lines of completions, takeovers and violations
              --ingest-every MS        ingest the inbox in a loop of its own, pausing MS milliseconds between
                                       ingestions (a failed one is tried again at the next)
              --file-by-file           ingest the inbox file by file in name order, as builds before producer
                                       order did (to measure what the merge prevents)

            Prints `owner` or `refused CODE`, then reads commands: `enqueue ID`, `renew`, `ingest`, `close`;
            with --run also `drain` (`drained N`), `wait-stopped` and `stop` (`stopped [CODE]`).
            """,
        spec: ArgumentSpec(
            positionals: ["DIR"], valueOptions: ["lease", "clock-offset", "run", "ingest-every"],
            flags: ["wait-for-go", "file-by-file"]),
        run: run)

    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        var configuration = Configuration()
        configuration.sharing = .shared
        if let lease = arguments.values["lease"] {
            configuration.ownershipLease = try TimeInterval(lease).orUsage("--lease takes a number of seconds")
        }
        if let offset = arguments.values["clock-offset"] {
            let seconds = try TimeInterval(offset).orUsage("--clock-offset takes a number of seconds")
            configuration.clock = OffsetClock(offset: seconds)
        }
        if arguments.flags.contains("file-by-file") { configuration.inboxOrder = .fileByFile }
        let witness = try arguments.values["run"].map { try RunWitness(directory: $0) }
        if witness != nil {
            // An attempt a killed or stopped owner left is retried at once, and no finished job is dropped.
            configuration.retryPolicy = .table([0], maxAttempts: 1_000)
            configuration.retention = .infinity
        }
        if arguments.flags.contains("wait-for-go") {
            guard readLine() == "go" else { return ExitStatus.usage }
        }
        let queue: JobQueue
        do {
            queue = try JobQueue(directory: arguments.positionals[0], configuration: configuration)
        } catch let error as SpoolError {
            say("refused \(error.code)")
            return ExitStatus.success
        }
        let running = try witness.map { try OwnedRunner(queue: queue, witness: $0) }
        if let every = arguments.values["ingest-every"] {
            let pause = try UInt32(every).orUsage("--ingest-every takes a number of milliseconds")
            Thread.detachNewThread {
                // Until the queue closes (or another owner takes it over): each ingestion's error ends nothing.
                while true {
                    do {
                        _ = try queue.ingestInbox()
                    } catch let error as SpoolError where error.code == .closed || error.code == .ownershipLost {
                        return
                    } catch {}
                    usleep(pause * 1000)
                }
            }
        }
        say("owner")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            do {
                switch (words.first, running) {
                case ("enqueue", _) where words.count == 2:
                    let id = try queue.enqueue(NewJob(kind: "owned", id: JobID(words[1])))
                    say("enqueued \(id)")
                case ("ingest", _):
                    say("ingested \(try queue.ingestInbox())")
                case ("renew", _):
                    try queue.renewOwnership()
                    say("renewed")
                case ("drain", let running?):
                    say("drained \(try running.drain())")
                case ("wait-stopped", let running?):
                    say(running.waitUntilStoppedByItself(seconds: 30).map { "stopped \($0.code)" } ?? "running")
                case ("stop", let running?):
                    say(running.stop().map { "stopped \($0.code)" } ?? "stopped")
                case ("close", _):
                    _ = running?.stop()
                    try? queue.close()
                    say("closed")
                    return ExitStatus.success
                default:
                    say("unknown \(line)")
                }
            } catch let error as SpoolError {
                say("refused \(error.code)")
            }
        }
        _ = running?.stop()
        try? queue.close()
        say("closed")
        return ExitStatus.success
    }

    /// Prints one line with a single write, unbuffered.
    private static func say(_ text: String) {
        let line = Array("\(text)\n".utf8)
        line.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }
}

/// The system's clock moved `offset` seconds ahead (a process whose leases look expired sooner).
private struct OffsetClock: SpoolClock {
    let offset: TimeInterval
    private let system = SystemClock()
    func now() -> Date { system.now().addingTimeInterval(offset) }
    func monotonicNanoseconds() -> UInt64 { system.monotonicNanoseconds() }
    func bootIdentifier() -> String { system.bootIdentifier() }
}

/// `spool own --run`: a started ``JobRunner`` on the owner's queue whose handler, for every kind the
/// process tests enqueue, is a ``RunWitness``, and the waits of the `drain`, `wait-stopped` and `stop` lines.
private final class OwnedRunner: Sendable {
    let queue: JobQueue
    let runner: JobRunner
    /// The kinds it runs: those of `spool produce` and of the line `enqueue ID`.
    static let kinds = ["produced", "owned"]
    /// What the runner did: the events the waits wait on.
    let events = RunnerEvents()

    /// Registers the witness for kinds `produced` and `owned` and starts the runner.
    init(queue: JobQueue, witness: RunWitness) throws {
        self.queue = queue
        runner = try JobRunner(queue: queue, options: JobRunner.Options(maxConcurrentJobs: 4), events: events)
        for kind in Self.kinds {
            try runner.register(kind: kind) { _, context in witness.run(context.id.rawValue) }
        }
        runner.start()
    }

    /// Ingests the inbox, then waits until every job of its kinds unfinished at that moment (enqueued, or running
    /// here or under a killed or stopped owner's lease, reclaimed when this owner opened) has finished,
    /// and returns how many that was. It looks again after events of the runner, never on a timer:
    /// each unfinished job makes at least one more event (its outcome), and an idle runner one more
    /// (`waiting`), so waiting for half as many more events as jobs are left always ends.
    ///
    /// - Throws: The runner's ``JobRunner/failure`` when it stopped by itself (another owner took over).
    func drain() throws -> Int {
        _ = try queue.ingestInbox()
        let unfinished = try queue.jobs(state: .enqueued) + queue.jobs(state: .running)
        var pending = Set(unfinished.filter { Self.kinds.contains($0.kind) }.map(\.id))
        let count = pending.count
        while true {
            let seen = events.all.count
            pending = try pending.filter { try queue.job($0)?.state.isFinished == false }
            if pending.isEmpty { return count }
            if let failure = runner.failure { throw failure }
            let more = max(1, pending.count / 2)
            try runBlocking { [events] in
                await events.wait { $0.count >= seen + more || $0.last == .stopped }
            }
        }
    }

    /// Waits until the runner stopped by itself, `seconds` at most; returns why, or `nil` when it still runs.
    func waitUntilStoppedByItself(seconds: Double) -> SpoolError? {
        let stopped = DispatchSemaphore(value: 0)
        Task { [events] in
            await events.wait(for: 1) { $0 == .stopped }
            stopped.signal()
        }
        _ = stopped.wait(timeout: .now() + seconds)
        return runner.failure
    }

    /// Stops the runner, letting the running handlers finish; returns why it had stopped by itself, if it had.
    func stop() -> SpoolError? {
        try? runBlocking { [runner] in await runner.stop(.finishRunning) }
        return runner.failure
    }
}
