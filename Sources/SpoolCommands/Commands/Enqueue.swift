import Foundation
import Spool

/// `spool enqueue`: adds a job and prints its id once the job is durable.
///
/// When the queue is `.shared` and another process owns it (its `OWNER` file records a lease, live or
/// expired: a suspended app's lease expires, and the command must not take its role; or the open is
/// refused with ``SpoolError/Code/ownedElsewhere``), or always with `--producer`, the job goes through a
/// ``QueueProducer``: its record is durable in the command's own inbox file when the id is printed,
/// and the owner enqueues it when it ingests the inbox. The command then never waits for the owner,
/// and cannot say what a unique-key policy did (the owner judges it at ingestion), so it prints no
/// policy note, only that the job went through the inbox.
enum EnqueueCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "enqueue",
        synopsis: """
            DIR --kind KIND [--payload TEXT | --payload-file PATH] [--id ID]
            [--unique-key KEY [--policy keep|replace|append]] [--delay SECONDS] [--priority N] [--max-attempts N]
            [--tag TAG]... [--producer]
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
              --tag TAG            a tag to find the job by (spool list --tag, cancel by tag); repeatable,
                                   at most \(JobLimits.maxTags), each 1 to \(JobLimits.maxTagBytes) UTF-8 bytes
              --producer           write the job to the queue's inbox, for its owner to ingest, without
                                   opening the queue (DIR must hold a queue)

            When another process owns DIR as a .shared queue (its OWNER file records a lease, even an
            expired one: the owner may be a suspended app, whose role a command must not take), the
            job goes through the inbox as with --producer: the id is printed once the job is durable in
            the inbox, and the owner enqueues it when it ingests the inbox (no note says what a
            unique-key policy did).

            KIND, ID and KEY are text: an argument that is not valid UTF-8 is refused (exit 2), never
            stored changed. The payload limit is \(QueueAccess.configuration(createIfMissing: true).maximumPayloadSize) bytes.
            """,
        spec: ArgumentSpec(
            positionals: ["DIR"],
            valueOptions: [
                "kind", "payload", "payload-file", "id", "unique-key", "policy", "delay",
                "priority", "max-attempts", "tag",
            ],
            flags: ["producer"], repeatableOptions: ["tag"]),
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
        job.tags = Set(arguments.values("tag"))

        // Into a queue whose OWNER file records a .shared owner's lease, even an expired one, the job goes
        // through the inbox: opening the queue would take the app's role (its lease expires while it is
        // suspended), and the app would find its queue taken over when it resumes.
        if arguments.flags.contains("producer") || QueueAccess.sharedOwner(of: directory) != nil {
            return try enqueueThroughInbox(job, directory: directory, console)
        }
        let opened: (JobID, String?)
        do {
            opened = try enqueueOpening(job, directory: directory, console)
        } catch let error as SpoolError where error.code == .ownedElsewhere {
            return try enqueueThroughInbox(job, directory: directory, console)
        }
        let (id, note) = opened
        if let note { console.err(note.escapingControlCharacters) }
        console.out(id.rawValue.escapingControlCharacters)
        return ExitStatus.success
    }

    /// Enqueues `job` through a ``QueueProducer`` (the queue's inbox), prints its id and a note that the
    /// owner enqueues it when it ingests the inbox.
    private static func enqueueThroughInbox(_ job: NewJob, directory: String, _ console: Console) throws -> Int32 {
        let producer = try QueueProducer(
            directory: directory, configuration: QueueAccess.configuration(createIfMissing: false))
        let id = try producer.enqueue(job)
        console.err("note: the job went through the queue's inbox; its owner enqueues it when it ingests the inbox")
        console.out(id.rawValue.escapingControlCharacters)
        return ExitStatus.success
    }

    /// Opens the queue, enqueues `job` and returns its id and what its unique-key policy did; throws
    /// ``SpoolError/Code/ownedElsewhere`` when another process owns the queue as `.shared`.
    private static func enqueueOpening(_ job: NewJob, directory: String, _ console: Console) throws -> (JobID, String?)
    {
        try QueueAccess.withQueue(directory, createIfMissing: true, console: console) { queue in
            // To tell the person what the unique-key policy did, judged from what the enqueue returned and
            // changed (the queue's own rule decides who holds the key): the unfinished jobs carrying it first.
            let carriers =
                try job.uniqueKey.map { key in
                    try queue.jobs().filter { !$0.state.isFinished && $0.uniqueKey == key }
                } ?? []
            let id = try queue.enqueue(job)
            return (id, try policyNote(job.uniquePolicy, enqueued: id, carriers: carriers, in: queue))
        }
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
