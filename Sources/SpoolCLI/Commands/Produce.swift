import Foundation
import Spool

/// `spool produce`: enqueues COUNT jobs into a queue another process owns, through a
/// ``QueueProducer``, for the multi-producer process tests (a stopped producer, kill -9 of producers
/// and owners). Job `i` has the id `PREFIX-i`; each id is printed on standard output, in one
/// unbuffered write, only once the producer acknowledged it (its record is durable in the inbox), so
/// that a line a killed child printed is a promise the queue must keep. A call refused with
/// ``SpoolError/Code/locked`` (the inbox stayed busy) is tried again: it acknowledged nothing.
enum ProduceCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "produce",
        synopsis: "DIR COUNT [--prefix PREFIX]",
        summary: "Enqueue COUNT jobs through the queue's inbox, printing each acknowledged id (for process tests).",
        help: """
              --prefix PREFIX   the jobs' ids are PREFIX-0, PREFIX-1, ... (default: the process id)

            DIR must hold a queue. Each id is printed once its record is durable in the inbox.
            """,
        spec: ArgumentSpec(positionals: ["DIR", "COUNT"], valueOptions: ["prefix"]),
        run: run)

    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        guard let count = Int(arguments.positionals[1]), count >= 0 else {
            throw CommandFailure.usage("COUNT must be a whole number of at least 0")
        }
        let prefix = arguments.value("prefix") ?? "\(ProcessInfo.processInfo.processIdentifier)"
        let producer = try QueueProducer(
            directory: arguments.positionals[0], configuration: QueueAccess.configuration(createIfMissing: false))
        for index in 0..<count {
            let id = JobID("\(prefix)-\(index)")
            while true {
                do {
                    try producer.enqueue(NewJob(kind: "produced", id: id))
                    break
                } catch let error as SpoolError where error.code == .locked {
                    continue
                }
            }
            say(id.rawValue)
        }
        return ExitStatus.success
    }

    /// Prints one line with a single write, unbuffered.
    private static func say(_ text: String) {
        let line = Array("\(text)\n".utf8)
        line.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }
}
