import Foundation
import Spool

/// `spool show`: every field of one job.
enum ShowCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "show",
        synopsis: "DIR ID [--json]",
        summary: "Show one job, with its payload.",
        help: """
              --json               print the job as one JSON object
            """,
        spec: ArgumentSpec(positionals: ["DIR", "ID"], flags: ["json"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let id = JobID(arguments.positionals[1])
        let directory = arguments.positionals[0]
        // Read-only: not an open, which would cut a torn tail or reclaim an expired lease.
        let lines = try QueueAccess.inspecting(directory) { queue -> [String] in
            guard let job = queue.job(id) else {
                // A producer's job the owner has not taken in yet.
                if let awaiting = try queue.awaitingIngestion().first(where: { $0.id == id }) {
                    if arguments.flag("json") { return [JobPresentation.json(awaiting).rendered] }
                    return JobPresentation.details(awaiting, now: Date())
                }
                throw SpoolError(.jobNotFound, "no such job", path: directory, jobID: id)
            }
            let payload = try queue.payload(of: id)
            if arguments.flag("json") { return [JobPresentation.json(job, payload: payload).rendered] }
            return JobPresentation.details(job, payload: payload, now: Date())
        }
        for line in lines { console.out(line) }
        return ExitStatus.success
    }
}
