import Foundation
import Spool

/// `spool dump`: every record of the log as one JSON object per line.
enum DumpCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "dump",
        synopsis: "DIR",
        summary: "Print every record, in log order, as one JSON object per line.",
        help: """
            Each line is {"file","offset","lsn","operations":[...]}; each operation is
            {"op","id", then its fields}. Times are integer milliseconds since 1970 in
            fields ending in Ms; an enqueue's payload appears as payloadOffset and
            payloadLength. Records before any damage are printed; the damage then exits 1
            with the file and offset. A torn tail is noted on stderr (exit 0).

            Reads without a lock, while the queue's owner (another process) writes: the
            records are those up to the last intact one when the log was read.
            """,
        spec: ArgumentSpec(positionals: ["DIR"]),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let directory = arguments.positionals[0]
        // Without a lock: the records are printed once the read is complete (LogInspector reads again
        // from the start when the owner's concurrent writes made a view inconsistent).
        let summary = try LogInspector.forEachRecord(directory: directory) { console.out(json($0).rendered) }
        if let torn = summary.tornTail {
            console.err(
                "warning: torn tail of \(torn.bytes) bytes at offset \(torn.offset) in \(torn.path) (not printed)")
        }
        return ExitStatus.success
    }

    /// A record as a JSON object: where it is, its LSN, and its operations.
    static func json(_ record: LogRecordSummary) -> JSONValue {
        .object([
            ("file", .string(record.path)),
            ("offset", .integer(record.offset)),
            ("lsn", .integer(Int64(clamping: record.lsn))),
            ("operations", .array(record.operations.map(json))),
        ])
    }

    /// An operation as a JSON object: `op`, `id`, then its fields in recorded order.
    private static func json(_ operation: LogOperationSummary) -> JSONValue {
        let fields = operation.fields.map { field -> (key: String, value: JSONValue) in
            switch field.value {
            case .string(let text): return (field.name, .string(text))
            case .integer(let number): return (field.name, .integer(number))
            case .null: return (field.name, .null)
            }
        }
        return .object([("op", .string(operation.name)), ("id", .string(operation.jobID.rawValue))] + fields)
    }
}
