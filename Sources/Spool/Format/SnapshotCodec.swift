/// The queue-wide values a snapshot carries (operation `snapshot`, opcode 12).
struct SnapshotSummary: Equatable, Sendable {
    /// The LSN of the last record the snapshot includes: the log files after
    /// the snapshot go on at `lastLSN + 1`.
    var lastLSN: UInt64
    /// The ``StoredJob/sequence`` of the next enqueue.
    var nextSequence: UInt64
    /// The earliest time the queue is known to have existed, in milliseconds since 1970.
    var createdAt: Int64
    /// Finished jobs dropped by retention so far, in all compactions.
    var expiredJobs: UInt64
}

/// The encoding of the snapshot operations, `restore` (11) and `snapshot` (12).
///
/// ```
/// snapshot := opcode(12) last_lsn:varint next_sequence:varint created_at:svarint expired_jobs:varint
/// restore  := opcode(11) id:string kind:string state:u8 attempts:svarint max_attempts:svarint
///             priority:svarint sequence:varint created_at:svarint run_at:svarint
///             next_retry_at:opt<svarint> finished_at:opt<svarint> unique_key:opt<string>
///             last_error:opt<string> lease:opt<lease> payload:bytes
/// lease    := token:u64 claimed_at:svarint expires_at:svarint monotonic_expiry:varint boot_id:string
/// ```
/// A job with constraints, prerequisites it waits for, or a periodic schedule is
/// written as `restore_with_options` (opcode 16, body version 3): the fields of
/// `restore` up to `lease`, then `constraints:opt<constraints> waiting_for:ids
/// periodic:opt<progress>` (see ``OptionsCodec``), then `payload`.
/// `state`: 1 enqueued, 2 running, 3 succeeded, 4 failed, 5 cancelled.
enum SnapshotCodec {
    static let stateCodes: [JobState] = [.enqueued, .running, .succeeded, .failed, .cancelled]

    static func encode(_ summary: SnapshotSummary, into writer: inout ByteWriter) {
        writer.writeUInt8(TransactionCodec.Opcode.snapshot.rawValue)
        writer.writeVarint(summary.lastLSN)
        writer.writeVarint(summary.nextSequence)
        writer.writeSignedVarint(summary.createdAt)
        writer.writeVarint(summary.expiredJobs)
    }

    /// Appends `snapshot_extent` (44): the number of records the snapshot holds, its first included. A
    /// fixed 8 bytes, so that the writer can write the first record before it knows the count and write
    /// it again, the same size, once it does.
    static func encodeExtent(records: UInt64, into writer: inout ByteWriter) {
        writer.writeUInt8(TransactionCodec.Opcode.snapshotExtent.rawValue)
        writer.writeUInt64(records)
    }

    /// Appends a restore of `job` carrying `payload`.
    /// - Returns: Where the payload bytes lie in the writer's bytes.
    @discardableResult
    static func encodeRestore(_ job: StoredJob, payload: [UInt8], into writer: inout ByteWriter) -> Range<Int> {
        writer.writeUInt8(
            job.hasOptions
                ? TransactionCodec.Opcode.restoreWithOptions.rawValue
                : TransactionCodec.Opcode.restore.rawValue)
        writer.writeString(job.id)
        writer.writeString(job.kind)
        writer.writeUInt8(UInt8(stateCodes.firstIndex(of: job.state)! + 1))
        writer.writeSignedVarint(Int64(job.attempts))
        writer.writeSignedVarint(Int64(job.maxAttempts))
        writer.writeSignedVarint(Int64(job.priority))
        writer.writeVarint(job.sequence)
        writer.writeSignedVarint(job.createdAt)
        writer.writeSignedVarint(job.runAt)
        writer.writeOptionalSignedVarint(job.nextRetryAt)
        writer.writeOptionalSignedVarint(job.finishedAt)
        writer.writeOptionalString(job.uniqueKey)
        writer.writeOptionalString(job.lastError)
        encodeLease(job.lease, into: &writer)
        if job.hasOptions {
            OptionsCodec.encodeOptional(job.constraints, into: &writer)
            OptionsCodec.encode(ids: job.waitingFor, into: &writer)
            OptionsCodec.encodeOptional(job.periodic, into: &writer)
        }
        writer.writeVarint(UInt64(payload.count))
        let start = writer.count
        writer.writeRaw(payload)
        return start..<writer.count
    }

    static func decodeSummary(_ reader: inout ByteReader) throws -> SnapshotSummary {
        SnapshotSummary(
            lastLSN: try reader.readLSN("last_lsn"), nextSequence: try reader.readCounter("next_sequence"),
            createdAt: try reader.readSignedVarint(), expiredJobs: try reader.readCounter("expired_jobs"))
    }

    static func decodeRestore(
        _ reader: inout ByteReader, withOptions: Bool, fileSequence: UInt64,
        bodyOffset: Int64
    ) throws -> StoredJob {
        let id = try reader.readString()
        let kind = try reader.readString()
        let code = Int(try reader.readUInt8())
        guard (1...stateCodes.count).contains(code) else {
            throw TransactionCodec.Failure.malformed("unknown job state \(code)")
        }
        let attempts = try reader.readAttempts()
        let maxAttempts = try reader.readMaxAttempts()
        let priority = try reader.readPriority()
        let sequence = try reader.readCounter("sequence")
        let createdAt = try reader.readSignedVarint()
        let runAt = try reader.readSignedVarint()
        let nextRetryAt = try reader.readOptionalSignedVarint()
        let finishedAt = try reader.readOptionalSignedVarint()
        let uniqueKey = try reader.readOptionalString()
        let lastError = try reader.readOptionalString()
        let lease = try decodeLease(&reader)
        var constraints: JobConstraints?
        var waitingFor: [String] = []
        var periodic: StoredPeriodic?
        if withOptions {
            constraints = try OptionsCodec.decodeOptionalConstraints(&reader)
            waitingFor = try OptionsCodec.decodeIDs(&reader)
            periodic = try OptionsCodec.decodeOptionalProgress(&reader)
            guard constraints != nil || !waitingFor.isEmpty || periodic != nil else {
                throw TransactionCodec.Failure.malformed("a restore with options has none")
            }
        }
        let payload = try reader.readPayload(fileSequence: fileSequence, bodyOffset: bodyOffset)
        // The rare fields are boxed once, or not at all for a plain job (three setters would box three times).
        return StoredJob(
            id: id, kind: kind, state: stateCodes[code - 1], attempts: attempts, maxAttempts: maxAttempts,
            priority: priority, sequence: sequence, createdAt: createdAt, runAt: runAt,
            nextRetryAt: nextRetryAt, finishedAt: finishedAt, uniqueKey: uniqueKey, lastError: lastError,
            payload: payload,
            lease: lease, constraints: constraints, waitingFor: waitingFor, periodic: periodic)
    }

    /// `lease := presence:u8 (token:u64 claimed_at:svarint expires_at:svarint monotonic_expiry:varint boot_id:string)?`
    static func encodeLease(_ lease: StoredLease?, into writer: inout ByteWriter) {
        guard let lease else {
            writer.writeUInt8(0)
            return
        }
        writer.writeUInt8(1)
        writer.writeUInt64(lease.token)
        writer.writeSignedVarint(lease.claimedAt)
        writer.writeSignedVarint(lease.expiresAt)
        writer.writeVarint(lease.monotonicExpiry)
        writer.writeString(lease.bootID)
    }

    static func decodeLease(_ reader: inout ByteReader) throws -> StoredLease? {
        switch try reader.readUInt8() {
        case 0: return nil
        case 1:
            return StoredLease(
                token: try reader.readUInt64(), claimedAt: try reader.readSignedVarint(),
                expiresAt: try reader.readSignedVarint(), monotonicExpiry: try reader.readVarint(),
                bootID: try reader.readString())
        case let other: throw TransactionCodec.Failure.malformed("lease presence byte \(other)")
        }
    }
}
