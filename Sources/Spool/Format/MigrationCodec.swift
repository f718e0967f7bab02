/// A job as a migration leaves it (operation `migrate_job`, opcode 21): every field but the
/// enqueue sequence, which an existing job keeps and a new job takes from the queue's counter.
struct MigratedJob: Equatable, Sendable {
    var id: String
    var kind: String
    var state: JobState
    var attempts: Int32
    var maxAttempts: Int32
    var priority: Int32
    var createdAt: Int64
    var runAt: Int64
    var nextRetryAt: Int64?
    var finishedAt: Int64?
    var uniqueKey: String?
    var lastError: String?
    var lease: StoredLease?
    /// Where the new payload lies; `nil` keeps the existing job's payload.
    var payload: PayloadLocation?

    /// The image of `job` as it is, payload kept.
    init(_ job: StoredJob) {
        id = job.id
        kind = job.kind
        state = job.state
        attempts = job.attempts
        maxAttempts = job.maxAttempts
        priority = job.priority
        createdAt = job.createdAt
        runAt = job.runAt
        nextRetryAt = job.nextRetryAt
        finishedAt = job.finishedAt
        uniqueKey = job.uniqueKey
        lastError = job.lastError
        lease = job.lease
        payload = nil
    }

    init(
        id: String, kind: String, state: JobState, attempts: Int32, maxAttempts: Int32, priority: Int32,
        createdAt: Int64, runAt: Int64, nextRetryAt: Int64?, finishedAt: Int64?, uniqueKey: String?,
        lastError: String?, lease: StoredLease?, payload: PayloadLocation?
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.priority = priority
        self.createdAt = createdAt
        self.runAt = runAt
        self.nextRetryAt = nextRetryAt
        self.finishedAt = finishedAt
        self.uniqueKey = uniqueKey
        self.lastError = lastError
        self.lease = lease
        self.payload = payload
    }
}

/// The encoding of the operations of job migrations and of jobs the build cannot run
/// (opcodes 20 to 25, record body version 4; see `FORMAT.md`, *Job migrations*):
///
/// ```
/// migration_begin    := opcode(20) number:varint at:svarint
/// migrate_job        := opcode(21) id:string kind:string state:u8 attempts:svarint max_attempts:svarint
///                       priority:svarint created_at:svarint run_at:svarint next_retry_at:opt<svarint>
///                       finished_at:opt<svarint> unique_key:opt<string> last_error:opt<string>
///                       lease:opt<lease> payload:opt<bytes>
/// migration_remove   := opcode(22) id:string
/// migration_commit   := opcode(23) number:varint
/// migrations_applied := opcode(24) number:varint
/// abandon            := opcode(25) id:string at:svarint reason:string
/// ```
enum MigrationCodec {
    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .migrationBegin(let number, let at):
            writer.writeUInt8(TransactionCodec.Opcode.migrationBegin.rawValue)
            writer.writeVarint(number)
            writer.writeSignedVarint(at)
        case .migrateJob(let job):
            precondition(
                job.payload == nil, "a migrated job with a new payload is encoded with its bytes, as a PlannedOperation"
            )
            _ = encodeJob(job, payload: nil, into: &writer)
        case .migrationRemove(let id):
            writer.writeUInt8(TransactionCodec.Opcode.migrationRemove.rawValue)
            writer.writeString(id)
        case .migrationCommit(let number):
            writer.writeUInt8(TransactionCodec.Opcode.migrationCommit.rawValue)
            writer.writeVarint(number)
        case .migrationsApplied(let number):
            writer.writeUInt8(TransactionCodec.Opcode.migrationsApplied.rawValue)
            writer.writeVarint(number)
        case .abandon(let id, let at, let reason):
            writer.writeUInt8(TransactionCodec.Opcode.abandon.rawValue)
            writer.writeString(id)
            writer.writeSignedVarint(at)
            writer.writeString(reason)
        default:
            preconditionFailure("not a migration operation: \(operation)")
        }
    }

    /// Appends a `migrate_job`; `payload` (new bytes) or the job's kept payload.
    /// - Returns: Where the new payload bytes lie in the writer's bytes, when there are any.
    static func encodeJob(_ job: MigratedJob, payload: Data?, into writer: inout ByteWriter) -> Range<Int>? {
        writer.writeUInt8(TransactionCodec.Opcode.migrateJob.rawValue)
        writer.writeString(job.id)
        writer.writeString(job.kind)
        writer.writeUInt8(UInt8(SnapshotCodec.stateCodes.firstIndex(of: job.state)! + 1))
        writer.writeSignedVarint(Int64(job.attempts))
        writer.writeSignedVarint(Int64(job.maxAttempts))
        writer.writeSignedVarint(Int64(job.priority))
        writer.writeSignedVarint(job.createdAt)
        writer.writeSignedVarint(job.runAt)
        writer.writeOptionalSignedVarint(job.nextRetryAt)
        writer.writeOptionalSignedVarint(job.finishedAt)
        writer.writeOptionalString(job.uniqueKey)
        writer.writeOptionalString(job.lastError)
        SnapshotCodec.encodeLease(job.lease, into: &writer)
        guard let payload else {
            writer.writeUInt8(0)
            return nil
        }
        writer.writeUInt8(1)
        writer.writeVarint(UInt64(payload.count))
        let start = writer.count
        payload.withUnsafeBytes { writer.writeRaw($0) }
        return start..<writer.count
    }

    static func decode(
        _ opcode: TransactionCodec.Opcode, _ reader: inout ByteReader, fileSequence: UInt64,
        bodyOffset: Int64
    ) throws -> LogOperation {
        switch opcode {
        case .migrationBegin:
            return .migrationBegin(number: try reader.readVarint(), at: try reader.readSignedVarint())
        case .migrateJob:
            return .migrateJob(try decodeJob(&reader, fileSequence: fileSequence, bodyOffset: bodyOffset))
        case .migrationRemove:
            return .migrationRemove(id: try reader.readString())
        case .migrationCommit:
            return .migrationCommit(number: try reader.readVarint())
        case .migrationsApplied:
            return .migrationsApplied(number: try reader.readVarint())
        case .abandon:
            return .abandon(
                id: try reader.readString(), at: try reader.readSignedVarint(), reason: try reader.readString())
        default:
            throw TransactionCodec.Failure.malformed("opcode \(opcode.rawValue) is not a migration operation")
        }
    }

    private static func decodeJob(_ reader: inout ByteReader, fileSequence: UInt64, bodyOffset: Int64) throws
        -> MigratedJob
    {
        let id = try reader.readString()
        let kind = try reader.readString()
        let code = Int(try reader.readUInt8())
        guard (1...SnapshotCodec.stateCodes.count).contains(code) else {
            throw TransactionCodec.Failure.malformed("unknown job state \(code)")
        }
        let attempts = try reader.readAttempts()
        let maxAttempts = try reader.readMaxAttempts()
        let priority = try reader.readPriority()
        let createdAt = try reader.readSignedVarint()
        let runAt = try reader.readSignedVarint()
        let nextRetryAt = try reader.readOptionalSignedVarint()
        let finishedAt = try reader.readOptionalSignedVarint()
        let uniqueKey = try reader.readOptionalString()
        let lastError = try reader.readOptionalString()
        let lease = try SnapshotCodec.decodeLease(&reader)
        var payload: PayloadLocation?
        switch try reader.readUInt8() {
        case 0: break
        case 1:
            payload = try reader.readPayload(fileSequence: fileSequence, bodyOffset: bodyOffset)
        case let other: throw TransactionCodec.Failure.malformed("payload presence byte \(other)")
        }
        return MigratedJob(
            id: id, kind: kind, state: SnapshotCodec.stateCodes[code - 1], attempts: attempts,
            maxAttempts: maxAttempts, priority: priority, createdAt: createdAt, runAt: runAt,
            nextRetryAt: nextRetryAt, finishedAt: finishedAt, uniqueKey: uniqueKey,
            lastError: lastError, lease: lease, payload: payload)
    }
}
