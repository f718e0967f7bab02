import Foundation
import Spool

/// `spool enqueue`: adds a job and prints its id once the job is durable.
enum EnqueueCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "enqueue",
        synopsis: """
            DIR --kind KIND [--payload TEXT | --payload-file PATH] [--id ID]
            [--unique-key KEY [--policy keep|replace|append]] [--delay SECONDS] [--priority N] [--max-attempts N]
            """,
        summary: "Add a job; print its id once it is durable. Creates DIR when missing.",
        help: """
              --kind KIND          what the job does (1 to \(JobLimits.maxKindBytes) UTF-8 bytes)
              --payload TEXT       the job's parameters, stored as UTF-8 (empty by default)
              --payload-file PATH  the job's parameters: the bytes of file PATH, exactly (- reads standard
                                   input); for bytes that are not UTF-8, and for payloads longer than the
                                   system lets a command-line argument be (about 128 KiB on Linux)
              --id ID              the job's id (a random UUID by default); must be unused
              --unique-key KEY     at most one unfinished job holds KEY at a time
              --policy keep        when KEY is held: enqueue nothing, print the holder's id (default)
              --policy replace     when KEY is held: cancel the holder and enqueue this job
              --policy append      when KEY is held: enqueue this job to run after the holder succeeds
                                   (it waits for it, and is cancelled if the holder fails or is cancelled)
                                   and take KEY over
              --delay SECONDS      do not run before this many seconds from now (at least 0, under \(Int64(JobLimits.maxDelay)))
              --priority N         higher runs first among due jobs (default 0; \(JobLimits.priorities.lowerBound) to \(JobLimits.priorities.upperBound))
              --max-attempts N     attempts before the job ends failed (default 5; 1 to \(JobLimits.maxAttempts))

            KIND, ID and KEY are text: an argument that is not valid UTF-8 is refused (exit 2), never
            stored changed. The payload limit is \(QueueAccess.configuration(createIfMissing: true).maximumPayloadSize) bytes.
            """,
        spec: ArgumentSpec(
            positionals: ["DIR"],
            valueOptions: [
                "kind", "payload", "payload-file", "id", "unique-key", "policy", "delay",
                "priority", "max-attempts",
            ]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        var job = NewJob(kind: try arguments.required("kind"))
        job.payload = try payload(arguments)
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
        job.priority = try arguments.integer("priority", in: JobLimits.priorities) ?? 0
        job.maxAttempts = try arguments.integer("max-attempts", in: 1...JobLimits.maxAttempts)

        let (id, note) = try QueueAccess.withQueue(directory, createIfMissing: true) { queue in
            // To tell the person what the unique-key policy did, judged from what the enqueue returned and
            // changed (the queue's own rule decides who holds the key): the unfinished jobs carrying it first.
            let carriers =
                try job.uniqueKey.map { key in
                    try queue.jobs().filter { !$0.state.isFinished && $0.uniqueKey == key }
                } ?? []
            let id = try queue.enqueue(job)
            return (id, try policyNote(job.uniquePolicy, enqueued: id, carriers: carriers, in: queue))
        }
        if let note { console.err(note.escapingControlCharacters) }
        console.out(id.rawValue.escapingControlCharacters)
        return ExitStatus.success
    }

    /// What the unique-key policy did, or `nil` when the key was free (the job was enqueued as any other).
    private static func policyNote(
        _ policy: UniquePolicy, enqueued id: JobID, carriers: [Job],
        in queue: JobQueue
    ) throws -> String? {
        switch policy {
        case .keep:
            // Kept exactly when the id returned is the holder's, one of the jobs already there.
            guard let holder = carriers.first(where: { $0.id == id }) else { return nil }
            return
                "note: unique key held by unfinished job \(holder.id) (\(holder.state.rawValue)); kept it, enqueued nothing"
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

    /// The payload: `--payload`'s text, or the bytes `--payload-file` names, or none.
    private static func payload(_ arguments: ParsedArguments) throws -> Data {
        guard let path = arguments.value("payload-file") else { return Data((arguments.value("payload") ?? "").utf8) }
        guard arguments.value("payload") == nil else {
            throw CommandFailure.usage("give --payload or --payload-file, not both")
        }
        let limit = QueueAccess.configuration(createIfMissing: true).maximumPayloadSize
        // One byte past the limit is enough to refuse a file; a huge one is never read whole.
        let bytes = try PayloadInput.read(path, atMost: limit + 1)
        guard bytes.count <= limit else {
            throw CommandFailure.operational(
                "\(path == "-" ? "standard input" : path) holds more than the payload limit of \(limit) bytes")
        }
        return bytes
    }
}
