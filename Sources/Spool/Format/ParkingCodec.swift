/// The encoding of the parking and checkpoint operations (opcodes 26 to 28, body version 5; FORMAT.md,
/// *Parked jobs and checkpoints*):
///
/// ```
/// 26 park                id: string, token: u64, key: string, deadline: svarint
/// 27 checkpoint          id: string, token: u64, data: bytes, expires_at: svarint, monotonic_expiry: varint
/// 28 restore_checkpoint  id: string, data: bytes
/// ```
/// A snapshot writes a parked job's `park` and a job's `restore_checkpoint` right after its restore.
enum ParkingCodec {
    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .park(let id, let token, let key, let deadline):
            writer.writeUInt8(TransactionCodec.Opcode.park.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeString(key)
            writer.writeSignedVarint(deadline)
        case .checkpoint(let id, let token, let data, let expiresAt, let monotonicExpiry):
            writer.writeUInt8(TransactionCodec.Opcode.checkpoint.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeBytes(data)
            writer.writeSignedVarint(expiresAt)
            writer.writeVarint(monotonicExpiry)
        case .restoreCheckpoint(let id, let data):
            writer.writeUInt8(TransactionCodec.Opcode.restoreCheckpoint.rawValue)
            writer.writeString(id)
            writer.writeBytes(data)
        default:
            preconditionFailure("not a parking operation: \(operation)")
        }
    }

    /// The operations a snapshot writes after the restore of `job`: its park, its checkpoint.
    /// - Returns: How many it wrote.
    static func encodeAnnexes(of job: StoredJob, into writer: inout ByteWriter) -> Int {
        var count = 0
        if let park = job.park, let lease = job.lease {
            encode(.park(id: job.id, token: lease.token, key: park.key, deadline: park.deadline), into: &writer)
            count += 1
        }
        if let checkpoint = job.checkpoint {
            encode(.restoreCheckpoint(id: job.id, data: checkpoint), into: &writer)
            count += 1
        }
        return count
    }

    static func decode(_ opcode: TransactionCodec.Opcode, _ reader: inout ByteReader) throws(DecodingError)
        -> LogOperation
    {
        switch opcode {
        case .park:
            let id = try reader.readString()
            let token = try reader.readUInt64()
            let start = reader.position
            let key = try reader.readString()
            guard !key.isEmpty, key.utf8.count <= JobLimits.maxParkKeyBytes else {
                throw DecodingError(
                    reason: "park key of \(key.utf8.count) bytes is out of range (1 to \(JobLimits.maxParkKeyBytes))",
                    position: start)
            }
            return .park(id: id, token: token, key: key, deadline: try reader.readSignedVarint())
        case .checkpoint:
            let id = try reader.readString()
            let token = try reader.readUInt64()
            let data = try readCheckpoint(&reader)
            return .checkpoint(
                id: id, token: token, data: data, expiresAt: try reader.readSignedVarint(),
                monotonicExpiry: try reader.readVarint())
        case .restoreCheckpoint:
            let id = try reader.readString()
            return .restoreCheckpoint(id: id, data: try readCheckpoint(&reader))
        default:
            preconditionFailure("not a parking opcode: \(opcode)")
        }
    }

    /// Checkpoint bytes: at most ``JobLimits/maxCheckpointBytes``.
    private static func readCheckpoint(_ reader: inout ByteReader) throws(DecodingError) -> [UInt8] {
        let start = reader.position
        let data = try reader.readBytes()
        guard data.count <= JobLimits.maxCheckpointBytes else {
            throw DecodingError(
                reason: "checkpoint of \(data.count) bytes is over \(JobLimits.maxCheckpointBytes)", position: start)
        }
        return data
    }
}
