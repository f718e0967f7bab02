import Foundation
import Spool

/// `spool stats`: jobs per state, log files and their size, the queue's history.
enum StatsCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "stats",
        synopsis: "DIR",
        summary: "Print the jobs per state, the log files and their total size, and what compaction dropped.",
        help: """
            Reads the queue without changing it (without a lock, as `verify` does) and
            prints one line per fact: jobs in each state, the jobs producers enqueued that the
            owner has not ingested yet (awaiting ingestion), the number of log files and their
            bytes, and, once the queue has been compacted, when it was created and how many
            finished jobs retention dropped; the file format and record body versions in the
            log, and the number of the last job migration applied.
            """,
        spec: ArgumentSpec(positionals: ["DIR"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        // Read-only: not an open, which would cut a torn tail or reclaim an expired lease.
        // A damaged inbox file is named on standard error; the log's figures are shown all the same.
        let (counts, history, versions, inbox) = try QueueAccess.inspecting(directory) { queue in
            (queue.counts, queue.history, queue.summary, QueueAccess.awaitingIngestion(of: queue))
        }
        let migration = versions.appliedMigration
        let logs = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("wal-") && $0.hasSuffix(".log") }
        var bytes: Int64 = 0
        for name in logs {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
        for state in JobState.allCases { console.out("\(state.rawValue): \(counts[state])") }
        console.out("total: \(counts.total)")
        console.out("awaiting ingestion: \(inbox.jobs.count)")
        console.out("log files: \(logs.count), \(bytes) bytes")
        if let created = history.createdAt {
            console.out("created: \(ISO8601.string(from: created))")
        }
        console.out("expired by retention: \(history.expiredJobs)")
        console.out(FormatVersionsText.found(versions))
        console.out("applied job migration: \(migration)")
        return QueueAccess.reportDamage(inbox.damagedFiles, console)
    }
}
