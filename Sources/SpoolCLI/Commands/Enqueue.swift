import Foundation
import Spool

/// `spool enqueue`: adds a job and prints its id once the job is durable.
enum EnqueueCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "enqueue",
        synopsis: """
        DIR --kind KIND [--payload TEXT] [--id ID] [--unique-key KEY [--policy keep|replace|append]]
        [--delay SECONDS] [--priority N] [--max-attempts N]
        """,
        summary: "Add a job; print its id once it is durable. Creates DIR when missing.",
        help: """
          --kind KIND          what the job does (1 to 200 UTF-8 bytes)
          --payload TEXT       the job's parameters, stored as UTF-8 (empty by default)
          --id ID              the job's id (a random UUID by default); must be unused
          --unique-key KEY     at most one unfinished job holds KEY at a time
          --policy keep        when KEY is held: enqueue nothing, print the holder's id (default)
          --policy replace     when KEY is held: cancel the holder and enqueue this job
          --delay SECONDS      do not run before this many seconds from now
          --priority N         higher runs first among due jobs (default 0)
          --max-attempts N     attempts before the job ends failed (default 5)
        """,
        spec: ArgumentSpec(positionals: ["DIR"],
                           valueOptions: ["kind", "payload", "id", "unique-key", "policy", "delay", "priority",
                                          "max-attempts"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        var job = NewJob(kind: try arguments.required("kind"))
        job.payload = Data((arguments.value("payload") ?? "").utf8)
        job.id = arguments.value("id").map { JobID($0) }
        job.uniqueKey = arguments.value("unique-key")
        if let policy = arguments.value("policy") {
            guard job.uniqueKey != nil else { throw CommandFailure.usage("--policy needs --unique-key") }
            guard let parsed = UniquePolicy(rawValue: policy) else {
                throw CommandFailure.usage("--policy must be keep, replace or append, not '\(policy)'")
            }
            job.uniquePolicy = parsed
        }
        job.delay = try arguments.seconds("delay") ?? 0
        job.priority = try arguments.integer("priority") ?? 0
        job.maxAttempts = try arguments.integer("max-attempts")

        let (id, note) = try QueueAccess.withQueue(directory, createIfMissing: true) { queue in
            // To tell the person what the unique-key policy did, judged from what the enqueue returned and
            // changed (the queue's own rule decides who holds the key): the unfinished jobs carrying it first.
            let carriers = try job.uniqueKey.map { key in
                try queue.jobs().filter { !$0.state.isFinished && $0.uniqueKey == key }
            } ?? []
            let id = try queue.enqueue(job)
            return (id, try policyNote(job.uniquePolicy, enqueued: id, carriers: carriers, in: queue))
        }
        if let note { console.err(note) }
        console.out(id.rawValue)
        return ExitStatus.success
    }

    /// What the unique-key policy did, or `nil` when the key was free (the job was enqueued as any other).
    private static func policyNote(_ policy: UniquePolicy, enqueued id: JobID, carriers: [Job],
                                   in queue: JobQueue) throws -> String? {
        switch policy {
        case .keep:
            // Kept exactly when the id returned is the holder's, one of the jobs already there.
            guard let holder = carriers.first(where: { $0.id == id }) else { return nil }
            return "note: unique key held by unfinished job \(holder.id) (\(holder.state.rawValue)); kept it, enqueued nothing"
        case .replace:
            let cancelled = try carriers.filter { try queue.job($0.id)?.state == .cancelled }.map(\.id.rawValue)
            guard !cancelled.isEmpty else { return nil }
            return "note: cancelled job \(cancelled.joined(separator: ", ")), which held the unique key"
        case .append:
            let waitedFor = try queue.job(id)?.blockingPrerequisites ?? []
            guard let holder = carriers.first(where: { waitedFor.contains($0.id) }) else { return nil }
            return "note: the new job waits for job \(holder.id), which held the unique key"
        }
    }
}
