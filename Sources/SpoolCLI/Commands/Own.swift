import Foundation
import Spool

/// `spool own`: holds a queue as its `.shared` owner and writes what standard input asks, one line
/// at a time, for the multi-process ownership tests (a stale owner, a takeover after kill -9, racing
/// owners). It prints `owner` once it has the role (or `refused CODE` and exits), then for each line:
/// `enqueue ID` → `enqueued ID` or `refused CODE`; `renew` → `renewed` or `refused CODE`;
/// `ingest` → `ingested N` (``JobQueue/ingestInbox()``) or `refused CODE`;
/// `close` (or the end of input) → closes the queue, prints `closed` and exits. Each line is printed
/// only after the call it reports returned.
enum OwnCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "own",
        synopsis: "DIR [--lease SECONDS] [--clock-offset SECONDS] [--wait-for-go]",
        summary: "Hold a queue as its .shared owner, writing what standard input asks (for process tests).",
        help: """
              --lease SECONDS          the ownership lease (default 30)
              --clock-offset SECONDS   run the queue's clock this far ahead of the system's (default 0)
              --wait-for-go            read a line `go` before opening (so that tests can start several at once)

            Prints `owner` or `refused CODE`, then reads commands: `enqueue ID`, `renew`, `ingest`, `close`.
            """,
        spec: ArgumentSpec(
            positionals: ["DIR"], valueOptions: ["lease", "clock-offset"], flags: ["wait-for-go"]),
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
        say("owner")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            do {
                switch words.first {
                case "enqueue" where words.count == 2:
                    let id = try queue.enqueue(NewJob(kind: "owned", id: JobID(words[1])))
                    say("enqueued \(id)")
                case "ingest":
                    say("ingested \(try queue.ingestInbox())")
                case "renew":
                    try queue.renewOwnership()
                    say("renewed")
                case "close":
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

extension Optional {
    fileprivate func orUsage(_ message: String) throws -> Wrapped {
        guard let value = self else { throw CommandFailure.usage(message) }
        return value
    }
}
