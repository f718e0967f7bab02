import Foundation
import Spool

/// Opens queues the way every `spool` command must.
///
/// Three rules (`spool --help` states them as ``Usage/notes``):
/// - Read-only commands (`show`, `list`, `stats`, `report`, `verify`, `dump`) take no lock and never
///   wait: ``LogInspector`` reads the log while its owner, in any process, writes it.
/// - `enqueue` and `cancel` of a queue whose `OWNER` file records a `.shared` owner's lease, live or
///   expired, go through the queue's inbox (a ``QueueProducer``): a command must not take an app's role.
/// - Other commands that change the queue open it as its owner (`.exclusive`). Against a `.shared`
///   owner's lease they fail at once naming the process, unless `--take-over` is given, which takes
///   the role of an owner whose lease has expired (never of a live one). While another process has an
///   `.exclusive` queue open, they wait for it up to ``lockWait`` seconds.
package enum QueueAccess {
    /// How long a command that opens the queue waits for another process's `.exclusive` open of it to end
    /// (`LOCK` held); `.shared` owners and read-only commands are never waited for.
    static let lockWait: TimeInterval = 5

    /// The help line of `--take-over`, for the commands that take it.
    static let takeOverHelp = """
          --take-over          take the role of a .shared owner whose lease has expired (without it the
                               command fails when the OWNER file records a .shared owner's lease)
        """

    /// The configuration of every command: leases that have not expired survive
    /// the open, because `claim` and `complete` run in separate processes.
    package static func configuration(createIfMissing: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.createIfMissing = createIfMissing
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        return configuration
    }

    /// The `.shared` owner `directory`'s `OWNER` file records with a lease (live or expired), if any:
    /// one that has not closed the queue cleanly. `nil` for a queue without `OWNER`, or whose owner
    /// closed it or was an `.exclusive` one.
    /// An `OWNER` that cannot be read (no directory, not one, a newer version) is left for the open to report.
    static func sharedOwner(of directory: String) -> QueueOwner? {
        guard let owner = try? QueueOwner.read(directory: directory), owner.leaseUntil != nil else { return nil }
        return owner
    }

    /// Opens the queue in `directory`, runs `body` with it, and closes it.
    ///
    /// Refuses at once, naming the owner, when `OWNER` records a `.shared` owner's lease and `takeOver`
    /// is not set; with `takeOver` the open takes an expired lease's role (a live one is still refused,
    /// with ``SpoolError/Code/ownedElsewhere``). While another process has the queue open `.exclusive`,
    /// waits up to ``lockWait`` seconds. An error from `body` wins over an error from closing.
    /// What the open's ``RecoveryReport`` names is said on `console`'s standard error first
    /// (``reportRecovery(_:_:)``).
    static func withQueue<T>(
        _ directory: String, createIfMissing: Bool = false, takeOver: Bool = false, console: Console,
        _ body: (JobQueue) throws -> T
    ) throws -> T {
        if !takeOver, let owner = sharedOwner(of: directory) {
            throw SpoolError(.ownedElsewhere, ownedMessage(owner), path: directory + "/OWNER")
        }
        let configuration = configuration(createIfMissing: createIfMissing)
        let queue = try waitingForLock { try JobQueue(directory: directory, configuration: configuration) }
        reportRecovery(queue.recoveryReport, console)
        let result: T
        do {
            result = try body(queue)
        } catch {
            try? queue.close()
            throw error
        }
        try queue.close()
        return result
    }

    /// Says on standard error, one line each, what an open left aside: an inbox file it did not ingest (its
    /// path, the offset and why) and a range salvage skipped. Nothing for a sound queue.
    static func reportRecovery(_ report: RecoveryReport, _ console: Console) {
        for file in report.inboxFilesNotIngested {
            console.err("spool: inbox file not ingested: \(file.path) at offset \(file.offset): \(file.reason)")
        }
        for skipped in report.skipped {
            console.err(
                "spool: skipped \(skipped.length) bytes of \(skipped.path) at offset \(skipped.offset): \(skipped.reason)"
            )
        }
    }

    /// The jobs awaiting ingestion in the inbox files `queue` can read, and the error of each damaged one;
    /// an inbox folder that cannot be listed is one error, with no jobs. The caller shows what it could read,
    /// then ``reportDamage(_:_:)`` names the damaged files and it exits with status 1.
    static func awaitingIngestion(of queue: InspectedQueue) -> AwaitingIngestion {
        do {
            return try queue.readableAwaitingIngestion()
        } catch let error as SpoolError {
            return AwaitingIngestion(jobs: [], damagedFiles: [error])
        } catch {
            return AwaitingIngestion(jobs: [], damagedFiles: [SpoolError(.ioFailure, "\(error)")])
        }
    }

    /// Names each damaged inbox file on standard error, one line each; returns the exit status of a
    /// read-only command that showed what it could: 1 when a file was named, else 0.
    static func reportDamage(_ damaged: [SpoolError], _ console: Console) -> Int32 {
        for error in damaged { console.err("spool: inbox file not read, its jobs not shown: \(error)") }
        return damaged.isEmpty ? ExitStatus.success : ExitStatus.failure
    }

    /// Why a command that would open the queue does not: another process owns it as `.shared`.
    static func ownedMessage(_ owner: QueueOwner) -> String {
        let lease = owner.leaseUntil.map(ISO8601.string(from:)) ?? "?"
        let state =
            (owner.leaseUntil ?? .distantPast) > Date()
            ? "its lease holds until \(lease)"
            : "its lease expired at \(lease): it is suspended or ended without closing the queue"
        return "another process owns the queue as .shared: process \(owner.processID) "
            + "(epoch \(owner.epoch)), \(state); this command would take its role. Run it after the owner "
            + "closes the queue, or give --take-over to take the role of an owner whose lease has expired"
    }

    /// Replays the queue in `directory` read-only (``LogInspector/withJobs(directory:_:)``), without a
    /// lock and without waiting, and runs `body` with its jobs: nothing in the directory changes.
    /// `body` may run again when the owner compacted meanwhile: it only computes what to print.
    static func inspecting<T>(_ directory: String, _ body: (InspectedQueue) throws -> T) throws -> T {
        try LogInspector.withJobs(directory: directory, body)
    }

    /// Runs `open`, retrying while it throws ``SpoolError/Code/locked``, for up to ``lockWait`` seconds.
    package static func waitingForLock<T>(_ open: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(lockWait)
        var pause: TimeInterval = 0.01
        while true {
            do {
                return try open()
            } catch SpoolError.Code.locked where Date() < deadline {
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.2)
            }
        }
    }
}
