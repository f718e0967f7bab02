/// The 20-byte header in front of every record body.
///
/// ```
/// 0  u32 CRC-32C of bytes 4 ..< 20 + length (the rest of the header and the body)
/// 4  u32 body length
/// 8  u64 log sequence number (LSN): 1 for the first record, +1 for each next one
/// 16 u8  record type
/// 17 u8  reserved, zero
/// 18 u16 index of the record within its commit group (0 starts a group)
/// ```
struct FrameHeader: Equatable, Sendable {
    var checksum: UInt32
    var bodyLength: Int
    var lsn: UInt64
    var type: UInt8
    var reserved: UInt8
    var groupIndex: UInt16

    /// The LSN of the first record of the commit group this record belongs to.
    var groupFirstLSN: UInt64 { lsn &- UInt64(groupIndex) }

    /// Reads a header at `offset`; the caller checked that 20 bytes are there.
    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        var reader = ByteReader(bytes, position: offset)
        // The caller guarantees the bytes, so these reads cannot fail.
        checksum = (try? reader.readUInt32()) ?? 0
        bodyLength = Int((try? reader.readUInt32()) ?? 0)
        lsn = (try? reader.readUInt64()) ?? 0
        type = (try? reader.readUInt8()) ?? 0
        reserved = (try? reader.readUInt8()) ?? 0
        groupIndex = (try? reader.readUInt16()) ?? 0
    }
}

enum RecordFrame {
    /// Where the header's length field lies in a frame (bytes 4 ..< 8, a little-endian u32).
    static let lengthField = 4..<8

    /// The offset of the body of a frame that starts at `frameOffset`.
    @inline(__always)
    static func bodyStart<Offset: BinaryInteger>(ofFrameAt frameOffset: Offset) -> Offset {
        frameOffset + Offset(LogFormat.frameHeaderSize)
    }

    /// The offset after a frame that starts at `frameOffset` and holds `bodyLength` bytes of body.
    @inline(__always)
    static func end(ofFrameAt frameOffset: Int, bodyLength: Int) -> Int {
        frameOffset + LogFormat.frameHeaderSize + bodyLength
    }

    /// The body length the frame at `frameOffset` declares, not checked against anything: for
    /// readers that look ahead at bytes not verified yet. The caller checked that the length
    /// field is there (`frameOffset + lengthField.upperBound <= bytes.count`).
    @inline(__always)
    static func declaredBodyLength(_ bytes: UnsafeRawBufferPointer, frameAt frameOffset: Int) -> Int {
        Int(UInt32(littleEndianBytes: bytes, at: frameOffset + lengthField.lowerBound))
    }

    /// The value a file's frame checksums start from instead of 0: the CRC-32C
    /// of the queue's instance id. Bytes that merely look like a frame (a log
    /// file carried as a payload, another queue's records) do not verify.
    static func checksumSeed(instanceID: [UInt8]) -> UInt32 {
        CRC32C.checksum(instanceID)
    }

    /// Appends a framed record to `buffer`: header, then body, with the checksum
    /// filled in. Returns the offset of the body within `buffer`.
    @discardableResult
    static func append(
        body: UnsafeRawBufferPointer, type: RecordType, lsn: UInt64, groupIndex: UInt16,
        seed: UInt32, to buffer: inout [UInt8]
    ) -> Int {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: LogFormat.frameHeaderSize))
        buffer.append(contentsOf: body)
        buffer.withUnsafeMutableBytes { raw in
            sealFrame(
                UnsafeMutableRawBufferPointer(rebasing: raw[start...]), type: type, lsn: lsn,
                groupIndex: groupIndex, seed: seed)
        }
        return start + LogFormat.frameHeaderSize
    }

    /// Writes the header of a frame whose body already follows room for it:
    /// `frame` is ``LogFormat/frameHeaderSize`` bytes (their values do not matter)
    /// then the body. The same bytes as ``append(body:type:lsn:groupIndex:seed:to:)``
    /// makes, without copying the body.
    static func seal(_ frame: inout [UInt8], type: RecordType, lsn: UInt64, groupIndex: UInt16, seed: UInt32) {
        frame.withUnsafeMutableBytes { sealFrame($0, type: type, lsn: lsn, groupIndex: groupIndex, seed: seed) }
    }

    /// Fills in the header of the frame `raw` (header room, then the body) and its checksum.
    private static func sealFrame(
        _ raw: UnsafeMutableRawBufferPointer, type: RecordType, lsn: UInt64,
        groupIndex: UInt16, seed: UInt32
    ) {
        let bodyLength = raw.count - LogFormat.frameHeaderSize
        precondition(bodyLength >= 0 && bodyLength <= LogFormat.maximumBodySize)
        var header = ByteWriter(capacity: LogFormat.frameHeaderSize)
        header.writeUInt32(0)
        header.writeUInt32(UInt32(bodyLength))
        header.writeUInt64(lsn)
        header.writeUInt8(type.rawValue)
        header.writeUInt8(0)
        header.writeUInt16(groupIndex)
        for (index, byte) in header.bytes.enumerated() where index >= 4 { raw[index] = byte }
        let checksum = CRC32C.update(seed, UnsafeRawBufferPointer(rebasing: raw[4...]))
        for byte in 0..<4 { raw[byte] = UInt8(truncatingIfNeeded: checksum >> UInt32(8 * byte)) }
    }

    /// A record found intact in a file.
    struct Found {
        var header: FrameHeader
        /// Offset of the frame in the file.
        var offset: Int
        /// Range of the body in the file.
        var bodyRange: Range<Int>
        var end: Int { bodyRange.upperBound }
    }

    /// Why no intact record starts at an offset.
    enum Damage: Error, Equatable {
        /// The frame runs past the end of the file.
        case truncated
        /// The length is over the maximum, the type unknown, or the LSN implausible.
        case invalid(String)
        /// The checksum is wrong; `checkedBytes` were checksummed to find out.
        case checksumMismatch(checkedBytes: Int)
    }

    /// Checks for an intact frame at `offset` in `file`. Cheap when there is
    /// none: the length and bounds are checked before the checksum.
    /// The LSNs a frame may carry: 1 to ``LogFormat/maximumLSN``.
    static let acceptableLSNs: ClosedRange<UInt64> = 1...LogFormat.maximumLSN

    static func parse(
        _ file: UnsafeRawBufferPointer, at offset: Int, seed: UInt32,
        acceptableLSNs: ClosedRange<UInt64> = RecordFrame.acceptableLSNs
    ) -> Result<Found, Damage> {
        let available = file.count - offset
        guard available >= LogFormat.frameHeaderSize else {
            return .failure(.truncated)
        }
        let header = FrameHeader(file, at: offset)
        // The cheap fields first, so that scanning damaged bytes rarely computes a checksum.
        guard RecordType(rawValue: header.type) != nil, header.reserved == 0 else {
            return .failure(.invalid("unknown record type \(header.type) or reserved byte \(header.reserved)"))
        }
        guard acceptableLSNs.contains(header.lsn), header.lsn > UInt64(header.groupIndex) else {
            return .failure(.invalid("implausible LSN \(header.lsn)"))
        }
        guard header.bodyLength <= LogFormat.maximumBodySize else {
            return .failure(.invalid("length \(header.bodyLength) over the maximum"))
        }
        guard available - LogFormat.frameHeaderSize >= header.bodyLength else {
            return .failure(.truncated)
        }
        let end = offset + LogFormat.frameHeaderSize + header.bodyLength
        let actual = CRC32C.update(seed, UnsafeRawBufferPointer(rebasing: file[(offset + 4)..<end]))
        guard actual == header.checksum else {
            return .failure(.checksumMismatch(checkedBytes: end - offset))
        }
        return .success(
            Found(
                header: header, offset: offset,
                bodyRange: (offset + LogFormat.frameHeaderSize)..<end))
    }

    /// Whether every byte from `offset` to the end is zero.
    ///
    /// A preallocated log ends in up to a whole chunk of zeroes, so this
    /// compares a block at a time (``Platform/isAllZero(_:)``).
    static func isZero(_ file: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        guard offset < file.count else { return true }
        return Platform.isAllZero(UnsafeRawBufferPointer(rebasing: file[offset...]))
    }
}
