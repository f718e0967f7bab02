/// The producer inbox files (FORMAT.md, *Producer inbox files*): names, the 32-byte header, and
/// where frames start.
///
/// ```
/// 0  8 bytes magic "SPOOLINB"
/// 8  u16 version (1)
/// 10 u16 header size (32)
/// 12 16 bytes file id (the 32 hex digits of the file's name)
/// 28 u32 CRC-32C of bytes 0 ..< 28
/// ```
/// Frames follow at offset 32, framed as the log's (``RecordFrame``), numbered 1, 2, 3 … in the file,
/// each its own commit group, their checksums seeded with the CRC-32C of the file id.
enum InboxFormat {
    /// The folder of the queue directory that holds the inbox files.
    static let directoryName = "inbox"
    /// The first eight bytes of every inbox file.
    static let magic: [UInt8] = Array("SPOOLINB".utf8)
    /// The inbox format version this build writes and reads.
    static let version: UInt16 = 1
    /// The header's size; the first frame starts here.
    static let headerSize = 32
    static let suffix = ".inbox"
    /// Bytes of the random file id.
    static let fileIDSize = 16
    /// The first reservation of a producer's file: its header, first record and zeroes up to this size,
    /// in one write synced with `fsync`, so that the records after it are data-only syncs.
    static let firstReservation: Int64 = 64 << 10
    /// The most a reservation grows a file by at a time (each one doubles it up to this).
    static let largestReservation: Int64 = 1 << 20

    /// The size a producer's file is extended to when `needed` bytes no longer fit in `reserved`:
    /// doubled (at least ``firstReservation``, at most ``largestReservation`` more), and at least `needed`.
    static func reservation(after reserved: Int64, needed: Int64) -> Int64 {
        let grown = reserved == 0 ? firstReservation : reserved + min(reserved, largestReservation)
        return max(grown, needed)
    }

    /// The path of the inbox folder of the queue at `directory`.
    static func directory(ofQueue directory: String) -> String { directory + "/" + directoryName }

    /// `<32 lowercase hex digits>.inbox`.
    static func fileName(id: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in id {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self) + suffix
    }

    /// The file id an inbox file name carries, or `nil` for any other name.
    static func fileID(fromName name: String) -> [UInt8]? {
        guard name.hasSuffix(suffix) else { return nil }
        let hex = Array(name.utf8.dropLast(suffix.utf8.count))
        guard hex.count == 2 * fileIDSize else { return nil }
        var id: [UInt8] = []
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let high = hexValue(hex[index]), let low = hexValue(hex[index + 1]) else { return nil }
            id.append(high << 4 | low)
        }
        return id
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// The header of the inbox file with id `id`.
    static func header(id: [UInt8]) -> [UInt8] {
        precondition(id.count == fileIDSize)
        var writer = ByteWriter(capacity: headerSize)
        writer.writeRaw(magic)
        writer.writeUInt16(version)
        writer.writeUInt16(UInt16(headerSize))
        writer.writeRaw(id)
        writer.writeUInt32(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Why an inbox file's header is not accepted.
    enum HeaderProblem: Error, Equatable {
        /// Fewer bytes than a header, all of them a prefix of the expected header: a creation cut short.
        case incomplete
        /// Written by a newer Spool.
        case newerVersion(UInt16)
        /// Not the header this file's name calls for.
        case damaged(String)
    }

    /// Checks the header of the inbox file whose name carries `id`.
    static func checkHeader(_ bytes: UnsafeRawBufferPointer, id: [UInt8]) -> HeaderProblem? {
        let expected = header(id: id)
        if bytes.count >= magic.count + 2, zip(bytes, magic).allSatisfy({ $0 == $1 }) {
            let version = UInt16(bytes[magic.count]) | UInt16(bytes[magic.count + 1]) << 8
            if version > Self.version { return .newerVersion(version) }
        }
        guard bytes.count >= headerSize else {
            return zip(bytes, expected).allSatisfy({ $0 == $1 }) ? .incomplete : .damaged("a damaged header")
        }
        guard zip(bytes.prefix(headerSize), expected).allSatisfy({ $0 == $1 }) else {
            return .damaged("the header is not the one of file id \(fileName(id: id))")
        }
        return nil
    }

    /// The seed of the checksums of the frames of the inbox file with id `id`.
    static func checksumSeed(id: [UInt8]) -> UInt32 { RecordFrame.checksumSeed(instanceID: id) }
}
