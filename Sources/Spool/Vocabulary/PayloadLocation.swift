/// Where a job's payload bytes lie in the log, so that they need not be kept
/// in memory: the file's sequence number, the offset in it, the length — and
/// the CRC-32C of the bytes, so that a read of them later is verified as replay
/// verified them (see ``checkRead(_:inQueue:)``). The checksum is not stored on
/// disk: it is computed from the bytes when replay decodes a record whose frame
/// checksum it has just verified, or when the live path writes them. It takes
/// what was padding after `length` (the location stays 24 bytes).
struct PayloadLocation: Equatable, Sendable {
    var fileSequence: UInt64
    var offset: Int64
    var length: Int32
    /// The CRC-32C of the payload bytes (0 for none).
    var checksum: UInt32
}

extension PayloadLocation {
    /// Where an operation's payload is said to lie before its record is appended (a planned enqueue,
    /// a migrated job's new payload, a trial): no rule reads it, and the commit replaces it.
    static let unwritten = PayloadLocation(fileSequence: 0, offset: 0, length: 0, checksum: 0)
}
