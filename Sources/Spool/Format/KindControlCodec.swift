/// The encoding of the per-kind controls (body version 7): pause and resume of a kind, rate limits
/// and, in a snapshot, a rate-limited kind's current window.
///
/// ```
/// pause_kind     := opcode(34) kind:string at:svarint
/// resume_kind    := opcode(35) kind:string at:svarint
/// set_rate_limit := opcode(36) kind:string at:svarint limit:opt<rate_limit>
/// rate_limit     := starts:varint interval_ms:varint
/// rate_window    := opcode(37) kind:string start:svarint count:varint
/// ```
/// `starts` is 1 to 2^31−1, `interval_ms` 1 to 2^63−1, `count` 1 to 2^62.
enum KindControlCodec {
    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .pauseKind(let kind, let at):
            writer.writeUInt8(TransactionCodec.Opcode.pauseKind.rawValue)
            writer.writeString(kind)
            writer.writeSignedVarint(at)
        case .resumeKind(let kind, let at):
            writer.writeUInt8(TransactionCodec.Opcode.resumeKind.rawValue)
            writer.writeString(kind)
            writer.writeSignedVarint(at)
        case .setRateLimit(let kind, let limit, let at):
            writer.writeUInt8(TransactionCodec.Opcode.setRateLimit.rawValue)
            writer.writeString(kind)
            writer.writeSignedVarint(at)
            if let limit {
                writer.writeUInt8(1)
                writer.writeVarint(UInt64(limit.starts))
                writer.writeVarint(UInt64(limit.intervalMillis))
            } else {
                writer.writeUInt8(0)
            }
        case .rateWindow(let kind, let window):
            writer.writeUInt8(TransactionCodec.Opcode.rateWindow.rawValue)
            writer.writeString(kind)
            writer.writeSignedVarint(window.start)
            writer.writeVarint(UInt64(window.count))
        default:
            preconditionFailure("not a kind control: \(operation)")
        }
    }

    static func decode(_ opcode: TransactionCodec.Opcode, _ reader: inout ByteReader) throws -> LogOperation {
        switch opcode {
        case .pauseKind:
            return .pauseKind(kind: try reader.readString(), at: try reader.readSignedVarint())
        case .resumeKind:
            return .resumeKind(kind: try reader.readString(), at: try reader.readSignedVarint())
        case .setRateLimit:
            let kind = try reader.readString()
            let at = try reader.readSignedVarint()
            switch try reader.readUInt8() {
            case 0: return .setRateLimit(kind: kind, limit: nil, at: at)
            case 1:
                let starts = try reader.readRateLimitStarts()
                let interval = try reader.readPositiveDuration("interval_ms")
                return .setRateLimit(
                    kind: kind, limit: StoredRateLimit(starts: starts, intervalMillis: interval), at: at)
            case let other: throw TransactionCodec.Failure.malformed("rate limit presence byte \(other)")
            }
        case .rateWindow:
            let kind = try reader.readString()
            let start = try reader.readSignedVarint()
            let position = reader.position
            let count = try reader.readCounter("count")
            guard count >= 1 else {
                throw DecodingError(reason: "count 0 is out of range (1 to 2^62)", position: position)
            }
            return .rateWindow(kind: kind, window: RateWindow(start: start, count: Int64(count)))
        default:
            preconditionFailure("not a kind control opcode: \(opcode)")
        }
    }
}

extension ByteReader {
    /// A rate limit's `starts` (varint): 1 to 2^31−1.
    mutating func readRateLimitStarts() throws(DecodingError) -> Int64 {
        let start = position
        let value = try readVarint()
        guard value >= 1, value <= UInt64(Int32.max) else {
            throw DecodingError(reason: "starts \(value) is out of range (1 to 2^31-1)", position: start)
        }
        return Int64(value)
    }

    /// A duration in milliseconds (varint) of at least 1: 1 to 2^63−1.
    mutating func readPositiveDuration(_ field: String) throws(DecodingError) -> Int64 {
        let start = position
        let value = try readDuration(field)
        guard value >= 1 else {
            throw DecodingError(reason: "\(field) 0 is out of range (1 to 2^63-1)", position: start)
        }
        return value
    }
}
