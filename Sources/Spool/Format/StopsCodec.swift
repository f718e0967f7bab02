/// The encoding of the stop operations (body version 6): `release` (30), `snooze` (31) and
/// `stop_reason` (32).
///
/// ```
/// release     := opcode(30) id:string token:u64 at:svarint reason:u8
/// snooze      := opcode(31) id:string token:u64 at:svarint run_at:svarint gives_back:u8
/// stop_reason := opcode(32) id:string reason:u8
/// ```
/// `reason` is a ``StopReason`` code (``code(of:)``); a `release` holds only an interruption
/// (7, 8 or 9). `gives_back` is 0 or 1.
enum StopsCodec {
    /// The reasons in code order: code 1 is the first. Codes are never reused.
    static let reasonCodes: [StopReason] = [
        .succeeded, .failed, .timedOut, .cancelled, .leaseExpired, .orphaned, .runnerStopped,
        .systemTimeExpired, .constraintsUnmet, .snoozed,
    ]

    /// The byte that stands for `reason` on disk.
    static func code(of reason: StopReason) -> UInt8 {
        UInt8(reasonCodes.firstIndex(of: reason)! + 1)
    }

    static func readReason(_ reader: inout ByteReader) throws -> StopReason {
        let code = Int(try reader.readUInt8())
        guard (1...reasonCodes.count).contains(code) else {
            throw TransactionCodec.Failure.malformed("unknown stop reason \(code)")
        }
        return reasonCodes[code - 1]
    }

    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .release(let id, let token, let at, let reason):
            writer.writeUInt8(TransactionCodec.Opcode.release.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeSignedVarint(at)
            writer.writeUInt8(code(of: reason))
        case .snooze(let id, let token, let at, let runAt, let givesBack):
            writer.writeUInt8(TransactionCodec.Opcode.snooze.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeSignedVarint(at)
            writer.writeSignedVarint(runAt)
            writer.writeUInt8(givesBack ? 1 : 0)
        case .stopReason(let id, let reason):
            writer.writeUInt8(TransactionCodec.Opcode.stopReason.rawValue)
            writer.writeString(id)
            writer.writeUInt8(code(of: reason))
        default:
            preconditionFailure("not a stop operation")
        }
    }

    static func decode(_ opcode: TransactionCodec.Opcode, _ reader: inout ByteReader) throws -> LogOperation {
        switch opcode {
        case .release:
            let id = try reader.readString()
            let token = try reader.readUInt64()
            let at = try reader.readSignedVarint()
            let reason = try readReason(&reader)
            guard reason.isInterruption else {
                throw TransactionCodec.Failure.malformed("a release for \(reason), which is not an interruption")
            }
            return .release(id: id, token: token, at: at, reason: reason)
        case .snooze:
            let id = try reader.readString()
            let token = try reader.readUInt64()
            let at = try reader.readSignedVarint()
            let runAt = try reader.readSignedVarint()
            let givesBack = try reader.readUInt8()
            guard givesBack <= 1 else { throw TransactionCodec.Failure.malformed("gives_back byte \(givesBack)") }
            return .snooze(id: id, token: token, at: at, runAt: runAt, givesBack: givesBack == 1)
        case .stopReason:
            return .stopReason(id: try reader.readString(), reason: try readReason(&reader))
        default:
            preconditionFailure("not a stop opcode")
        }
    }
}
