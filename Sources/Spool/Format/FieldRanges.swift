/// The range of every numeric field a record body holds whose encoding allows more than the
/// state can hold (FORMAT.md, *Number ranges*): each is checked here, as it is decoded, and
/// a value outside its range makes the body undecodable (`malformed`, so `corruption` naming the
/// file and the record's offset), never a trap later. The state code trusts these ranges.
///
/// The counters that operations raise by one (the enqueue sequence, the expired-jobs count, a
/// periodic job's occurrence) are decoded at most ``maximumCounter``, so that no log could hold
/// enough operations to carry one past 2^63; the LSN's range is the frame's (``LogFormat/maximumLSN``).
enum FieldRanges {
    /// The largest enqueue sequence, next sequence, expired-jobs count and occurrence a body may hold: 2^62.
    static let maximumCounter: UInt64 = 1 << 62
}

extension ByteReader {
    /// A value read at `start` is out of its field's range.
    private func outOfRange(
        _ field: String, _ value: some BinaryInteger, at start: Int,
        _ range: String
    ) -> DecodingError {
        DecodingError(reason: "\(field) \(value) is out of range (\(range))", position: start)
    }

    /// `priority` (svarint): a 32-bit signed integer.
    mutating func readPriority() throws(DecodingError) -> Int32 {
        let start = position
        let value = try readSignedVarint()
        guard let priority = Int32(exactly: value) else {
            throw outOfRange("priority", value, at: start, "-2^31 to 2^31-1")
        }
        return priority
    }

    /// `attempts` (svarint): 0 to 2^31-1.
    mutating func readAttempts() throws(DecodingError) -> Int32 {
        let start = position
        let value = try readSignedVarint()
        guard let attempts = Int32(exactly: value), attempts >= 0 else {
            throw outOfRange("attempts", value, at: start, "0 to 2^31-1")
        }
        return attempts
    }

    /// `max_attempts` (svarint): 1 to 2^31-1.
    mutating func readMaxAttempts() throws(DecodingError) -> Int32 {
        let start = position
        let value = try readSignedVarint()
        guard let maxAttempts = Int32(exactly: value), maxAttempts >= 1 else {
            throw outOfRange("max_attempts", value, at: start, "1 to 2^31-1")
        }
        return maxAttempts
    }

    /// A counter (varint) that operations raise by one: 0 to ``FieldRanges/maximumCounter``.
    mutating func readCounter(_ field: String) throws(DecodingError) -> UInt64 {
        let start = position
        let value = try readVarint()
        guard value <= FieldRanges.maximumCounter else { throw outOfRange(field, value, at: start, "0 to 2^62") }
        return value
    }

    /// An LSN (varint): 0 to ``LogFormat/maximumLSN``, so that the LSN after it can be computed.
    mutating func readLSN(_ field: String) throws(DecodingError) -> UInt64 {
        let start = position
        let value = try readVarint()
        guard value <= LogFormat.maximumLSN else { throw outOfRange(field, value, at: start, "0 to 2^64-2") }
        return value
    }

    /// A duration in milliseconds (varint): 0 to 2^63-1.
    mutating func readDuration(_ field: String) throws(DecodingError) -> Int64 {
        let start = position
        let value = try readVarint()
        guard let millis = Int64(exactly: value) else { throw outOfRange(field, value, at: start, "0 to 2^63-1") }
        return millis
    }
}
