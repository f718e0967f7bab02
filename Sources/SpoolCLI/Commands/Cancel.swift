import Foundation
import Spool

/// `spool cancel`: cancels an enqueued or running job.
enum CancelCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "cancel",
        synopsis: "DIR ID [--json]",
        summary: "Cancel an enqueued or running job.",
        help: """
              --json               print the job as JSON instead of a summary line

            A running job's lease becomes invalid: its handler's complete or fail exits 1
            with leaseLost and the result is discarded. Cancelling a cancelled job changes
            nothing; a succeeded or failed job cannot be cancelled (exit 1, invalidState).
            """,
        spec: ArgumentSpec(positionals: ["DIR", "ID"], flags: ["json"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let id = JobID(arguments.positionals[1])
        let output = try QueueAccess.withQueue(arguments.positionals[0]) { queue in
            let wasRunning = try queue.job(id)?.state == .running
            let job = try queue.cancel(id)
            let text = try JobOutput.render(job, in: queue, json: arguments.flag("json"))
            return wasRunning && !arguments.flag("json") ? text + " (it was running: its lease is void)" : text
        }
        console.out(output)
        return ExitStatus.success
    }
}
