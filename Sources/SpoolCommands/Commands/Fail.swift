import Foundation
import Spool

/// `spool fail`: records that a claimed job's attempt failed.
enum FailCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "fail",
        synopsis: "DIR ID --token TOKEN --error TEXT [--terminal] [--json] [--take-over]",
        summary: "Record that the attempt leased under TOKEN failed; print when it runs again.",
        help: """
              --token TOKEN        the 16 hex digits `spool claim` printed
              --error TEXT         what went wrong, kept as the job's last error
              --terminal           do not retry: the job ends failed now
              --json               print the job as JSON instead of a summary line
            \(QueueAccess.takeOverHelp)

            A retryable failure sends the job back to enqueued with a retry deadline
            (5 s, 15 s, 45 s, 135 s after failed attempts 1 to 4); the failure of the last
            attempt, or a terminal one, leaves it failed until `spool retry`. Exits 1 with
            leaseLost when the job was cancelled or its lease reclaimed since the claim.
            """,
        spec: ArgumentSpec(
            positionals: ["DIR", "ID"], valueOptions: ["token", "error"], flags: ["terminal", "json", "take-over"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let id = JobID(arguments.positionals[1])
        let token = try LeaseArguments.token(arguments)
        let message = try arguments.required("error")
        let output = try QueueAccess.withQueue(
            arguments.positionals[0], takeOver: arguments.flag("take-over"), console: console
        ) {
            queue in
            let job = try queue.fail(id, token: token, error: message, terminal: arguments.flag("terminal"))
            return try JobOutput.render(job, in: queue, json: arguments.flag("json"))
        }
        console.out(output)
        return ExitStatus.success
    }
}
