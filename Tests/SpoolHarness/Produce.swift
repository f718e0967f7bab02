import Foundation
import Spool
import SpoolCommands

/// `spool produce`: enqueues COUNT jobs into a queue another process owns, through a
/// ``QueueProducer``, for the multi-producer process tests (a stopped producer, kill -9 of producers
/// and owners). Job `i` has the id `PREFIX-i`; each id is printed on standard output, in one
/// unbuffered write, only once the producer acknowledged it (its record is durable in the inbox), so
/// that a line a killed child printed is a promise the queue must keep. A call refused with
/// ``SpoolError/Code/locked`` (the inbox stayed busy) is tried again: it acknowledged nothing.
///
/// With `--commands` (and no COUNT) it makes the calls standard input asks instead, one line each, in
/// order, with one producer (the causal-chain test of producer order): `enqueue ID KIND [KEY [POLICY]]`
/// (POLICY `keep`, `replace` or `append`), `enqueue-tagged TAG ID…` (one record), `cancel ID`,
/// `cancel-tag TAG`; each line is answered `ok LINE` once its call returned, or `refused CODE LINE`.
enum ProduceCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "produce",
        synopsis: "DIR (COUNT [--prefix PREFIX] | --commands)",
        summary: "Enqueue COUNT jobs through the queue's inbox, printing each acknowledged id (for process tests).",
        help: """
              --prefix PREFIX   the jobs' ids are PREFIX-0, PREFIX-1, ... (default: the process id)
              --commands        make the calls standard input asks, one line each: enqueue ID KIND
                                [KEY [POLICY]], enqueue-tagged TAG ID..., cancel ID, cancel-tag TAG

            DIR must hold a queue. Each id (each line with --commands) is printed once its record is
            durable in the inbox.
            """,
        spec: ArgumentSpec(
            positionals: ["DIR", "COUNT"], optionalPositionals: 1, valueOptions: ["prefix"], flags: ["commands"]),
        run: run)

    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        if arguments.flag("commands") {
            guard arguments.positionals.count == 1 else { throw CommandFailure.usage("give COUNT or --commands") }
            let producer = try QueueProducer(
                directory: arguments.positionals[0], configuration: QueueAccess.configuration(createIfMissing: false))
            while let line = readLine() { say(answer(line, producer)) }
            return ExitStatus.success
        }
        guard arguments.positionals.count == 2, let count = Int(arguments.positionals[1]), count >= 0 else {
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

    /// Makes the call `line` asks for (see the type's documentation) and returns its answer. A call
    /// refused with ``SpoolError/Code/locked`` acknowledged nothing and is tried again.
    private static func answer(_ line: String, _ producer: QueueProducer) -> String {
        let words = line.split(separator: " ").map(String.init)
        while true {
            do {
                switch (words.first, words.count) {
                case ("enqueue", 3...5):
                    let policy: UniquePolicy =
                        switch words.count == 5 ? words[4] : "keep" {
                        case "replace": .replace
                        case "append": .append
                        default: .keep
                        }
                    try producer.enqueue(
                        NewJob(
                            kind: words[2], id: JobID(words[1]), uniqueKey: words.count >= 4 ? words[3] : nil,
                            uniquePolicy: policy))
                case ("enqueue-tagged", 3...):
                    try producer.enqueue(
                        contentsOf: words.dropFirst(2).map { NewJob(kind: "tagged", id: JobID($0), tags: [words[1]]) })
                case ("cancel", 2): try producer.cancel(JobID(words[1]))
                case ("cancel-tag", 2): try producer.cancel(tagged: words[1])
                default: return "unknown \(line)"
                }
                return "ok \(line)"
            } catch let error as SpoolError where error.code == .locked {
                continue
            } catch let error as SpoolError {
                return "refused \(error.code) \(line)"
            } catch {
                return "refused \(error) \(line)"
            }
        }
    }

    /// Prints one line with a single write, unbuffered.
    private static func say(_ text: String) {
        let line = Array("\(text)\n".utf8)
        line.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }
}
