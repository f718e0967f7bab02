import Foundation
import Spool

/// `spool retry`: a person's retry of a failed, cancelled or waiting job, with a full budget
/// (``JobQueue/retry(_:)-zzu9``, whose rule this follows).
enum RetryCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "retry",
        synopsis: "DIR ID [--json] [--take-over]",
        summary: "Send a failed, cancelled or enqueued job to enqueued, due now, with its attempts reset to 0.",
        help: """
              --json               print the job as JSON instead of a summary line
            \(QueueAccess.takeOverHelp)

            An enqueued job (delayed, or waiting out the backoff after a failed attempt) is
            made due now with a full budget, as a failed or cancelled one is; a job waiting
            for a prerequisite still waits for it. A running or succeeded job cannot be
            retried (exit 1, invalidState), nor a job whose prerequisite failed or was
            cancelled (retry that one first; exit 1, invalidState), nor a job whose unique
            key another unfinished job now holds (exit 1, uniqueKeyConflict).
            """,
        spec: ArgumentSpec(positionals: ["DIR", "ID"], flags: ["json", "take-over"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let id = JobID(arguments.positionals[1])
        let output = try QueueAccess.withQueue(
            arguments.positionals[0], takeOver: arguments.flag("take-over"), console: console
        ) {
            queue in
            try JobOutput.render(try queue.retry(id), in: queue, json: arguments.flag("json"))
        }
        console.out(output)
        return ExitStatus.success
    }
}
