import Foundation
import Spool

/// `spool verify`: checks every record of the log without changing anything.
enum VerifyCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "verify",
        synopsis: "DIR",
        summary: "Check every record's checksum and that it applies; exit 1 naming the file and offset of damage.",
        help: """
            Replays the log read-only exactly as opening it would, but cuts and reclaims nothing,
            and takes no lock: it runs at once while another process has the queue open and
            writes (the log is checked up to its last intact record then; a view that the
            owner's writes made inconsistent, or a file a compaction removed, is read again,
            up to 8 times, then exit 1 with locked; damage is reported when two reads in a row
            find it). A torn tail, the unfinished last write of a process that died (or of a
            live owner, in flight), is reported as a warning and exits 0: it was never
            acknowledged, and the next open cuts it off.
            Prints the file format and record body versions found (each is checked; a version
            newer than this build reads fails with newerFormat) and the applied job migration.
            Then checks the invariants of the state the replay built (one state per job, unique
            keys, chains, leases, counts, the ready index); a broken one is printed and exits 1.
            """,
        spec: ArgumentSpec(positionals: ["DIR"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        let (summary, broken) = try LogInspector.verifyInvariants(directory: directory)
        let files = summary.filesRead == 1 ? "1 log file" : "\(summary.filesRead) log files"
        let records = summary.records == 1 ? "1 record" : "\(summary.records) records"
        let jobs = JobState.allCases.compactMap { state in summary.jobsByState[state].map { "\($0) \(state.rawValue)" }
        }
        let total = summary.jobsByState.values.reduce(0, +)
        let jobText =
            "\(total) job" + (total == 1 ? "" : "s") + (jobs.isEmpty ? "" : " (" + jobs.joined(separator: ", ") + ")")
        console.out(
            "ok: \(directory.escapingControlCharacters): \(files), \(records) sound, last LSN \(summary.lastLSN); \(jobText)"
        )
        if summary.recordsAwaitingIngestion > 0 {
            let count = summary.recordsAwaitingIngestion
            console.out(
                "inbox: \(count) producer record\(count == 1 ? "" : "s") sound, awaiting ingestion by the queue's owner"
            )
        }
        console.out(FormatVersionsText.found(summary))
        console.out("applied job migration: \(summary.appliedMigration)")
        if summary.abandonedMigrations > 0 {
            console.err(
                "warning: \(summary.abandonedMigrations) job migration(s) cut short by a crash "
                    + "(never applied; the app's next open runs them again)")
        }
        if let torn = summary.tornTail {
            console.err(
                "warning: torn tail of \(torn.bytes) bytes at offset \(torn.offset) in \(torn.path) "
                    + "(an unfinished write, never acknowledged; the next open cuts it off)")
        }
        return report(broken, directory: directory, console)
    }

    /// Prints the invariants the replayed state broke, if any; returns the exit status.
    static func report(_ broken: [BrokenInvariant], directory: String, _ console: Console) -> Int32 {
        guard !broken.isEmpty else { return ExitStatus.success }
        console.err(
            "error: \(directory.escapingControlCharacters): the replayed state breaks "
                + "\(broken.count) invariant\(broken.count == 1 ? "" : "s") (every record is sound and applies)")
        for invariant in broken { console.err("  \(invariant.description.escapingControlCharacters)") }
        return ExitStatus.failure
    }
}
