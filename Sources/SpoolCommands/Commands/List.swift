import Foundation
import Spool

/// `spool list`: the queue's jobs as a table or as JSON.
enum ListCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "list",
        synopsis: "DIR [--state STATE] [--tag TAG] [--json]",
        summary: "List jobs in enqueue order, as a table or as one JSON array.",
        help: """
              --state STATE        only jobs in STATE
              --tag TAG            only jobs carrying TAG
              --json               print one JSON array of job objects (payload included)

            The table shows each job's attempts used of its maximum, when it is due (or its
            next retry, or when its lease ends) relative to now, and its last error. Jobs that
            producers enqueued and that the queue's owner has not ingested yet follow, marked
            awaiting ingestion, with when each producer's call was acknowledged (in JSON:
            state "awaitingIngestion" and "acknowledgedAt"); --state leaves them out.
            """,
        spec: ArgumentSpec(positionals: ["DIR"], valueOptions: ["state", "tag"], flags: ["json"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        var state: JobState?
        if let text = arguments.value("state") {
            guard let parsed = JobState(rawValue: text) else {
                let states = JobState.allCases.map(\.rawValue).joined(separator: ", ")
                throw CommandFailure.usage("--state must be one of \(states), not '\(text)'")
            }
            state = parsed
        }
        // Read-only: not an open, which would cut a torn tail or reclaim an expired lease.
        var damaged: [SpoolError] = []
        let lines = try QueueAccess.inspecting(arguments.positionals[0]) { queue -> [String] in
            let tag = arguments.value("tag")
            let jobs = queue.jobs(state: state).filter { job in tag.map { job.tags.contains($0) } ?? true }
            // A damaged inbox file is named on standard error; the log's jobs are shown all the same.
            let inbox =
                state != nil ? AwaitingIngestion(jobs: [], damagedFiles: []) : QueueAccess.awaitingIngestion(of: queue)
            damaged = inbox.damagedFiles
            let awaiting = inbox.jobs.filter { job in tag.map { job.tags.contains($0) } ?? true }
            if arguments.flag("json") {
                return [
                    JSONValue.array(
                        try jobs.map { JobPresentation.json($0, payload: try queue.payload(of: $0.id)) }
                            + awaiting.map(JobPresentation.json)
                    ).renderedOneElementPerLine
                ]
            }
            let now = Date()
            return (jobs.isEmpty && !awaiting.isEmpty ? [] : table(jobs, now: now, state: state))
                + awaitingTable(awaiting, now: now)
        }
        for line in lines { console.out(line) }
        return QueueAccess.reportDamage(damaged, console)
    }

    /// The jobs awaiting ingestion as a table of their own, after a line that says what they are; nothing
    /// when there are none.
    static func awaitingTable(_ jobs: [AwaitingJob], now: Date) -> [String] {
        guard !jobs.isEmpty else { return [] }
        let rows = jobs.map { job in
            [
                job.id.rawValue.escapingControlCharacters, job.kind.escapingControlCharacters,
                job.acknowledgedAt.map { Formatting.instant($0, relativeTo: now) } ?? "-",
                Formatting.instant(job.runAt, relativeTo: now), job.uniqueKey?.escapingControlCharacters ?? "-",
            ]
        }
        return ["awaiting ingestion (acknowledged by producers, not taken in by the owner yet):"]
            + Formatting.table(header: ["ID", "KIND", "ACKNOWLEDGED", "DUE", "UNIQUE KEY"], rows: rows)
            + ["\(jobs.count) job\(jobs.count == 1 ? "" : "s") awaiting ingestion"]
    }

    /// The jobs as an aligned table with a closing count line.
    static func table(_ jobs: [Job], now: Date, state: JobState?) -> [String] {
        guard !jobs.isEmpty else { return [state.map { "no \($0.rawValue) jobs" } ?? "no jobs"] }
        let rows = jobs.map { job in
            [
                job.id.rawValue.escapingControlCharacters, job.kind.escapingControlCharacters, job.state.rawValue,
                "\(job.attempts)/\(job.maxAttempts)", JobPresentation.schedule(job, now: now),
                job.lastStopReason?.description ?? "-",
                job.lastError.map { Formatting.brief($0, limit: 60).escapingControlCharacters } ?? "-",
            ]
        }
        let header = ["ID", "KIND", "STATE", "ATTEMPTS", "DUE", "LAST STOP", "LAST ERROR"]
        return Formatting.table(header: header, rows: rows) + [Formatting.countsLine(jobs)]
    }
}
