/// The encoding of a job's own retry schedule and of how often it started (opcodes 47 to 49, body version 13;
/// FORMAT.md, *Retry policies and starts*):
///
/// ```
/// 47 retry_table        id: string, count: varint, then count × delay_ms: varint
/// 48 retry_exponential  id: string, base_ms: varint, factor: u64, maximum_ms: varint, jitter: u64
/// 49 starts             id: string, count: varint
/// ```
/// `factor` and `jitter` are IEEE 754 binary64 bits. A retry schedule follows the enqueue of its job in the
/// same record (after its `tags`); a snapshot writes it, and `starts` when the job started more often than
/// it spent attempts, right after the job's restore.
enum RetriesCodec {
    /// The most delays a job's own retry table holds.
    static let maxTableDelays = 64

    /// `schedule` as it is stored: delays in whole milliseconds, the exponential maximum at most
    /// ``RetryPolicy/longestDelay``, so that the live state holds exactly what replay reads back.
    static func stored(_ schedule: RetryPolicy.Schedule) -> RetryPolicy.Schedule {
        func milliseconds(_ seconds: TimeInterval) -> TimeInterval {
            Double(Millis.from(seconds: min(seconds, RetryPolicy.longestDelay))) / 1000
        }
        switch schedule {
        case .table(let delays): return .table(delays.map(milliseconds))
        case .exponential(let base, let factor, let maximum, let jitter):
            return .exponential(
                base: milliseconds(base), factor: factor, maximum: milliseconds(maximum), jitter: jitter)
        }
    }

    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .retrySchedule(let id, .table(let delays)):
            writer.writeUInt8(TransactionCodec.Opcode.retryTable.rawValue)
            writer.writeString(id)
            writer.writeVarint(UInt64(delays.count))
            for delay in delays { writer.writeVarint(UInt64(Millis.from(seconds: delay))) }
        case .retrySchedule(let id, .exponential(let base, let factor, let maximum, let jitter)):
            writer.writeUInt8(TransactionCodec.Opcode.retryExponential.rawValue)
            writer.writeString(id)
            writer.writeVarint(UInt64(Millis.from(seconds: base)))
            writer.writeUInt64(factor.bitPattern)
            writer.writeVarint(UInt64(Millis.from(seconds: maximum)))
            writer.writeUInt64(jitter.bitPattern)
        case .starts(let id, let count):
            writer.writeUInt8(TransactionCodec.Opcode.starts.rawValue)
            writer.writeString(id)
            writer.writeVarint(UInt64(count))
        default:
            preconditionFailure("not a retry schedule or starts operation: \(operation)")
        }
    }

    /// The operations a snapshot writes after the restore of `job`: its retry schedule, and its starts
    /// when they are not its attempts. - Returns: How many it wrote.
    static func encodeAnnexes(of job: StoredJob, into writer: inout ByteWriter) -> Int {
        var count = 0
        if let schedule = job.retrySchedule {
            encode(.retrySchedule(id: job.id, schedule), into: &writer)
            count += 1
        }
        if job.starts != job.attempts {
            encode(.starts(id: job.id, count: job.starts), into: &writer)
            count += 1
        }
        return count
    }

    static func decode(_ opcode: TransactionCodec.Opcode, _ reader: inout ByteReader) throws(DecodingError)
        -> LogOperation
    {
        let id = try reader.readString()
        switch opcode {
        case .retryTable:
            let start = reader.position
            let count = try reader.readCount(atMost: maxTableDelays)
            guard count > 0 else { throw DecodingError(reason: "a retry table with no delay", position: start) }
            var delays: [TimeInterval] = []
            delays.reserveCapacity(count)
            for _ in 0..<count { delays.append(try readMilliseconds(&reader)) }
            return .retrySchedule(id: id, .table(delays))
        case .retryExponential:
            let base = try readMilliseconds(&reader)
            let factorStart = reader.position
            let factor = Double(bitPattern: try reader.readUInt64())
            guard factor >= 1, factor.isFinite else {
                throw DecodingError(
                    reason: "a retry factor of \(factor) (a finite number, at least 1)", position: factorStart)
            }
            let maximumStart = reader.position
            let maximum = try readMilliseconds(&reader)
            guard maximum >= base else {
                throw DecodingError(reason: "a retry maximum below its base", position: maximumStart)
            }
            let jitterStart = reader.position
            let jitter = Double(bitPattern: try reader.readUInt64())
            guard (0...1).contains(jitter) else {
                throw DecodingError(reason: "a retry jitter of \(jitter) (0 to 1)", position: jitterStart)
            }
            return .retrySchedule(id: id, .exponential(base: base, factor: factor, maximum: maximum, jitter: jitter))
        case .starts:
            let start = reader.position
            let count = try reader.readVarint()
            guard count <= UInt64(Int32.max) else {
                throw DecodingError(reason: "starts \(count) out of range", position: start)
            }
            return .starts(id: id, count: Int32(count))
        default:
            preconditionFailure("not a retry schedule or starts opcode: \(opcode)")
        }
    }

    /// A delay in milliseconds, at most ``RetryPolicy/longestDelay``, as seconds.
    private static func readMilliseconds(_ reader: inout ByteReader) throws(DecodingError) -> TimeInterval {
        let start = reader.position
        let milliseconds = try reader.readVarint()
        guard milliseconds <= UInt64(RetryPolicy.longestDelay * 1000) else {
            throw DecodingError(reason: "a retry delay of \(milliseconds) ms is out of range", position: start)
        }
        return Double(milliseconds) / 1000
    }
}
