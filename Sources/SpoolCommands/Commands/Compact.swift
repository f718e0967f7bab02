import Foundation
import Spool

/// `spool compact`: rewrites the log as a snapshot of the live jobs.
enum CompactCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "compact",
        synopsis: "DIR [--take-over]",
        summary: "Rewrite the log as a snapshot of the live jobs and delete the files it replaces.",
        help: """
            \(QueueAccess.takeOverHelp)

            Opens the queue, writes every job into a new snapshot log file, then deletes the
            older log files. Succeeded and cancelled jobs that finished more than 24 hours ago
            are dropped; every other job is kept exactly. Prints the bytes before and after.
            """,
        spec: ArgumentSpec(positionals: ["DIR"], flags: ["take-over"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        let report = try QueueAccess.withQueue(directory, takeOver: arguments.flag("take-over"), console: console) {
            try $0.compact()
        }
        console.out(
            "compacted \(directory): \(report.bytesBefore) bytes -> \(report.bytesAfter) bytes; "
                + "\(report.jobsWritten) jobs in \(report.recordsWritten) records, \(report.jobsExpired) expired")
        return ExitStatus.success
    }
}
