import Foundation
import Spool

/// `spool cancel`: cancels an enqueued or running job, or every unfinished job with a tag (`--tag`).
///
/// Into a `.shared` queue another process owns (its `OWNER` file records a lease, live or expired),
/// or always with `--producer`, the command records a cancel *request* through a ``QueueProducer``
/// (the queue's inbox) and returns at once: the owner applies it when it ingests the inbox, if the job
/// is unfinished then. A command never takes an app's role to cancel a job (`--take-over` does, for an
/// owner whose lease expired).
enum CancelCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "cancel",
        synopsis: "DIR (ID | --tag TAG) [--json] [--producer] [--take-over]",
        summary:
            "Cancel an enqueued or running job, or every unfinished job with a tag (a request to its owner when another process owns DIR).",
        help: """
              --tag TAG            cancel every unfinished job carrying TAG instead of one job (and the
                                   jobs that wait for them); prints the ids cancelled, one per line
                                   (a JSON array with --json); needs the queue open, not --producer
              --json               print the job as JSON instead of a summary line
              --producer           record a cancel request in the queue's inbox, for its owner to apply,
                                   without opening the queue
              --take-over          open the queue and cancel the job even when a .shared owner's lease
                                   has expired, taking its role (not with a live lease)

            A running job's lease becomes invalid: its handler's complete or fail exits 1
            with leaseLost and the result is discarded. Cancelling a cancelled job changes
            nothing; a succeeded or failed job cannot be cancelled (exit 1, invalidState).

            When another process owns DIR as a .shared queue (its OWNER file records a lease,
            even an expired one), the command records a cancel request in the queue's inbox, as
            with --producer, prints the id and a note on stderr, and exits 0 at once: the owner
            applies the request when it ingests the inbox, if the job is unfinished then, and
            drops it otherwise (no job is printed, and invalidState cannot be told).
            """,
        spec: ArgumentSpec(
            positionals: ["DIR", "ID"], optionalPositionals: 1, valueOptions: ["tag"],
            flags: ["json", "producer", "take-over"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        if let tag = arguments.values["tag"] {
            guard arguments.positionals.count == 1 else { throw CommandFailure.usage("give an ID or --tag, not both") }
            return try cancelTagged(tag, directory: directory, arguments, console)
        }
        guard arguments.positionals.count == 2 else { throw CommandFailure.usage("give the ID of a job, or --tag TAG") }
        let id = JobID(arguments.positionals[1])
        if arguments.flag("producer") {
            guard !arguments.flag("take-over") else {
                throw CommandFailure.usage("give --producer or --take-over, not both")
            }
            return try requestThroughInbox(id, directory: directory, json: arguments.flag("json"), console)
        }
        if !arguments.flag("take-over"), QueueAccess.sharedOwner(of: directory) != nil {
            return try requestThroughInbox(id, directory: directory, json: arguments.flag("json"), console)
        }
        let output: String
        do {
            output = try QueueAccess.withQueue(directory, takeOver: true, console: console) { queue in
                let wasRunning = try queue.job(id)?.state == .running
                let job = try queue.cancel(id)
                let text = try JobOutput.render(job, in: queue, json: arguments.flag("json"))
                return wasRunning && !arguments.flag("json") ? text + " (it was running: its lease is void)" : text
            }
        } catch let error as SpoolError where error.code == .ownedElsewhere && !arguments.flag("take-over") {
            // A .shared owner took the queue between the check and the open.
            return try requestThroughInbox(id, directory: directory, json: arguments.flag("json"), console)
        }
        console.out(output)
        return ExitStatus.success
    }

    /// Cancels every unfinished job carrying `tag` in the queue opened here (a producer has no
    /// cancel by tag: the owner's state decides which jobs carry it). Prints the ids cancelled.
    private static func cancelTagged(
        _ tag: String, directory: String, _ arguments: ParsedArguments, _ console: Console
    ) throws -> Int32 {
        if arguments.flag("producer") {
            throw CommandFailure.usage("--tag cancels in the queue itself: it cannot go through the inbox (--producer)")
        }
        if !arguments.flag("take-over"), QueueAccess.sharedOwner(of: directory) != nil {
            throw CommandFailure.usage(
                "another process owns \(directory) (.shared): cancel by tag from that process, or with --take-over once its lease expired"
            )
        }
        let ids = try QueueAccess.withQueue(directory, takeOver: true, console: console) { queue in
            try queue.cancel(tagged: tag).map(\.id.rawValue)
        }
        if arguments.flag("json") {
            console.out(JSONValue.array(ids.map { .string($0) }).rendered)
        } else {
            for id in ids { console.out(id.escapingControlCharacters) }
        }
        return ExitStatus.success
    }

    /// Records a cancel request through a ``QueueProducer``; prints the id (or, with `json`, an object
    /// saying it is a request) and a note that the owner applies it when it ingests the inbox.
    private static func requestThroughInbox(_ id: JobID, directory: String, json: Bool, _ console: Console) throws
        -> Int32
    {
        let producer = try QueueProducer(
            directory: directory, configuration: QueueAccess.configuration(createIfMissing: false))
        try producer.cancel(id)
        console.err(
            "note: a cancel request went through the queue's inbox; its owner applies it when it ingests "
                + "the inbox (if the job is unfinished then)")
        if json {
            console.out(JSONValue.object([("id", .string(id.rawValue)), ("request", .string("cancel"))]).rendered)
        } else {
            console.out(id.rawValue.escapingControlCharacters)
        }
        return ExitStatus.success
    }
}
