import Foundation
import Spool

/// `spool complete`: records that a claimed job succeeded.
enum CompleteCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "complete",
        synopsis: "DIR ID --token TOKEN [--result TEXT | --result-file PATH] [--json] [--take-over]",
        summary: "Record that the job leased under TOKEN succeeded, with a result if given.",
        help: """
              --token TOKEN        the 16 hex digits `spool claim` printed
              --result TEXT        record TEXT (its UTF-8 bytes) as the job's result, handed to the
                                   jobs that wait for it (at most 64 KiB)
              --result-file PATH   record the bytes of the file at PATH as the result instead
              --json               print the job as JSON instead of a summary line
            \(QueueAccess.takeOverHelp)

            Exits 1 with leaseLost when the job was cancelled, or its lease expired and was
            reclaimed, since the claim: the result is discarded.
            """,
        spec: ArgumentSpec(
            positionals: ["DIR", "ID"], valueOptions: ["token", "result", "result-file"], flags: ["json", "take-over"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let id = JobID(arguments.positionals[1])
        let token = try LeaseArguments.token(arguments)
        let result = try resultBytes(arguments)
        let output = try QueueAccess.withQueue(
            arguments.positionals[0], takeOver: arguments.flag("take-over"), console: console
        ) {
            queue in
            let job =
                try result.map { try queue.complete(id, token: token, result: $0) } ?? queue.complete(id, token: token)
            return try JobOutput.render(job, in: queue, json: arguments.flag("json"))
        }
        console.out(output)
        return ExitStatus.success
    }

    /// The result `--result` or `--result-file` gives; `nil` for neither.
    private static func resultBytes(_ arguments: ParsedArguments) throws -> Data? {
        switch (arguments.values["result"], arguments.values["result-file"]) {
        case (nil, nil): return nil
        case (let text?, nil): return Data(text.utf8)
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure.usage("--result-file: cannot read '\(path)'")
            }
            return data
        case (.some, .some): throw CommandFailure.usage("give --result or --result-file, not both")
        }
    }
}

/// Arguments shared by the commands that finish a lease.
enum LeaseArguments {
    /// The `--token` option, which must be 16 hex digits.
    static func token(_ arguments: ParsedArguments) throws(CommandFailure) -> LeaseToken {
        let text = try arguments.required("token")
        guard let token = LeaseToken(text) else {
            throw .usage("--token must be the 16 hex digits `spool claim` printed, not '\(text)'")
        }
        return token
    }
}

/// What the commands that change one job print.
enum JobOutput {
    /// The job as JSON (with its payload), or a one-line summary.
    static func render(_ job: Job, in queue: JobQueue, json: Bool) throws -> String {
        json ? try JobPresentation.json(job, in: queue).rendered : JobPresentation.summary(job, now: Date())
    }
}
