/// One record of the `OWNER` file: who owns the queue (the process that runs its jobs and writes its
/// log) under ``ProcessSharing/shared``, since which takeover (`epoch`), and until when its lease holds.
///
/// The file holds two 64-byte slots, at ``slotOffsets``; each write goes to the slot its generation
/// names (`generation % 2`), so a write torn by a power loss leaves the other slot, the previous
/// record, intact. The current record is the valid slot with the highest generation. FORMAT.md,
/// "Ownership (the OWNER file)", is the reference.
struct OwnerRecord: Equatable, Sendable {
    /// The file's name in the queue directory.
    static let fileName = "OWNER"
    static let magic: [UInt8] = Array("SPOOLOWN".utf8)
    static let currentVersion: UInt16 = 1
    /// Every version keeps the slot's size and its CRC-32C in the last four bytes.
    static let slotSize = 64
    /// Where the two slots lie: in different 4 KiB blocks, so that a torn write of one cannot reach the other.
    static let slotOffsets: [Int64] = [0, 4096]
    /// The bytes a reader reads: both slots.
    static let fileSize = Int(slotOffsets[1]) + slotSize
    /// The size of an owner token.
    static let tokenSize = 16

    /// Counts every write of the file (takeovers and renewals); says which slot is current.
    var generation: UInt64
    /// Counts takeovers: each new owner writes the epoch after the one it found.
    var epoch: UInt64
    /// The owner's random 128-bit token, drawn at open: what the fence compares.
    var token: [UInt8]
    /// Milliseconds since 1970 until which the owner's lease holds; 0: no lease (an
    /// ``ProcessSharing/exclusive`` owner, which holds `LOCK` instead while it has the queue open).
    var leaseUntil: Int64
    /// The owner's process id, for messages and for the dead-owner check (informational otherwise).
    var processID: Int32

    /// The slot this record is written to.
    var slotOffset: Int64 { Self.slotOffsets[Int(generation % 2)] }

    /// The 64 bytes of the slot.
    func encoded() -> [UInt8] {
        precondition(token.count == Self.tokenSize, "an owner token is 16 bytes")
        var writer = ByteWriter(capacity: Self.slotSize)
        writer.writeRaw(Self.magic)
        writer.writeUInt16(Self.currentVersion)
        writer.writeUInt16(0)
        writer.writeUInt32(UInt32(bitPattern: processID))
        writer.writeUInt64(generation)
        writer.writeUInt64(epoch)
        writer.writeRaw(token)
        writer.writeUInt64(UInt64(bitPattern: leaseUntil))
        writer.writeUInt32(0)
        writer.writeUInt32(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Decodes one slot: `nil` for a slot that is empty, short, not an owner record or fails its
    /// checksum (a write torn by a power loss); a newer version with a valid checksum is refused.
    static func decode(slot bytes: ArraySlice<UInt8>, path: String, offset: Int64) throws -> OwnerRecord? {
        guard bytes.count >= slotSize else { return nil }
        let slot = Array(bytes.prefix(slotSize))
        guard Array(slot[0..<8]) == magic else { return nil }
        func uint(_ at: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(slot[at + $1]) << UInt64(8 * $1) }
        }
        guard UInt32(uint(60, 4)) == CRC32C.checksum(Array(slot[0..<60])) else { return nil }
        let version = UInt16(uint(8, 2))
        guard version <= currentVersion else {
            throw SpoolError(
                .newerFormat, "the OWNER file has version \(version); this build reads up to \(currentVersion)",
                path: path, offset: offset)
        }
        guard version >= 1 else { return nil }
        return OwnerRecord(
            generation: uint(16, 8), epoch: uint(24, 8), token: Array(slot[32..<48]),
            leaseUntil: Int64(bitPattern: uint(48, 8)), processID: Int32(bitPattern: UInt32(uint(12, 4))))
    }

    /// The current record of a file's bytes (read from offset 0): the valid slot with the highest
    /// generation, slot 0 on a tie; `nil` when neither slot holds one.
    static func current(in file: [UInt8], path: String) throws -> OwnerRecord? {
        var best: OwnerRecord?
        for offset in slotOffsets where Int(offset) < file.count {
            guard let record = try decode(slot: file[Int(offset)...], path: path, offset: offset) else { continue }
            if best.map({ record.generation > $0.generation }) ?? true { best = record }
        }
        return best
    }
}
