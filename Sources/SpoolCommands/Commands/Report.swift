import Foundation
import Spool

/// `spool report DIR --html FILE`: a picture of the queue as one self-contained HTML page.
enum ReportCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "report",
        synopsis: "DIR --html FILE",
        summary: "Write one self-contained HTML page showing the queue: states, jobs, attempts, log files.",
        help: """
              --html FILE          write the page to FILE (replaced if it exists)

            Reads the queue without changing it, as `list` does, and writes one HTML page with
            no script and no external resource: the jobs per state, the next deadlines, every
            job with its attempts and last error, each job's attempts and retries on a timeline
            (inline SVG), the log files, and what a compaction would reclaim (measured by
            compacting a copy of the files in a scratch directory, with the default retention).
            A damaged inbox file does not stop it: the page shows everything readable and
            names the file; the file is named on stderr too, and the exit status is 1.
            """,
        spec: ArgumentSpec(positionals: ["DIR"], valueOptions: ["html"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        guard let output = arguments.value("html") else { throw CommandFailure.usage("report needs --html FILE") }
        let report = try QueueReport.read(directory: arguments.positionals[0], now: Date())
        let page = ReportPage.html(report)
        do {
            try Data(page.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CommandFailure.operational("could not write \(output): \(error.localizedDescription)")
        }
        console.out("wrote \(output): \(report.counts.total) jobs, \(page.utf8.count) bytes")
        return QueueAccess.reportDamage(report.damagedInboxFiles, console)
    }
}
