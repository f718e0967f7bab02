/// Appends little-endian integers, LEB128 varints and length-prefixed bytes
/// to a growing buffer. The inverse of ``ByteReader``.
struct ByteWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    mutating func writeUInt8(_ value: UInt8) { bytes.append(value) }

    mutating func writeUInt16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func writeUInt32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func writeUInt64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Unsigned LEB128: seven bits a byte, low bits first, high bit set on all but the last.
    mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed integer as a zigzag varint: 0, -1, 1, -2 … map to 0, 1, 2, 3 …
    mutating func writeSignedVarint(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A varint length followed by the bytes.
    mutating func writeBytes<C: Collection>(_ value: C) where C.Element == UInt8 {
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A varint length followed by the string's UTF-8 bytes.
    mutating func writeString(_ value: String) {
        var copy = value
        copy.withUTF8 { writeBytes($0) }
    }

    /// A presence byte (0 or 1), then the string when present.
    mutating func writeOptionalString(_ value: String?) {
        if let value {
            writeUInt8(1)
            writeString(value)
        } else {
            writeUInt8(0)
        }
    }

    /// A presence byte (0 or 1), then the zigzag varint when present.
    mutating func writeOptionalSignedVarint(_ value: Int64?) {
        if let value {
            writeUInt8(1)
            writeSignedVarint(value)
        } else {
            writeUInt8(0)
        }
    }

    mutating func writeRaw<C: Collection>(_ value: C) where C.Element == UInt8 {
        bytes.append(contentsOf: value)
    }
}

/// Why a ``ByteReader`` stopped.
struct DecodingError: Error, Sendable {
    let reason: String
    /// The position within the decoded buffer.
    let position: Int
}

/// Reads what ``ByteWriter`` wrote, checking every length against the bytes
/// that remain so that damaged input can never cause a large allocation or an
/// out-of-bounds read.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var position: Int

    init(_ bytes: UnsafeRawBufferPointer, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position == bytes.count }

    private func failure(_ reason: String) -> DecodingError {
        DecodingError(reason: reason, position: position)
    }

    @inline(__always)
    mutating func readUInt8() throws(DecodingError) -> UInt8 {
        guard position < bytes.count else { throw failure("unexpected end reading a byte") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readUInt16() throws(DecodingError) -> UInt16 {
        guard remaining >= 2 else { throw failure("unexpected end reading UInt16") }
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    mutating func readUInt32() throws(DecodingError) -> UInt32 {
        guard remaining >= 4 else { throw failure("unexpected end reading UInt32") }
        defer { position += 4 }
        return UInt32(littleEndianBytes: bytes, at: position)
    }

    mutating func readUInt64() throws(DecodingError) -> UInt64 {
        guard remaining >= 8 else { throw failure("unexpected end reading UInt64") }
        let low = UInt64(UInt32(littleEndianBytes: bytes, at: position))
        let high = UInt64(UInt32(littleEndianBytes: bytes, at: position + 4))
        position += 8
        return low | high << 32
    }

    @inline(__always)
    mutating func readVarint() throws(DecodingError) -> UInt64 {
        // Most varints (lengths, counts, small numbers) are one byte: read those without the loop.
        if position < bytes.count, bytes[position] < 0x80 {
            position += 1
            return UInt64(bytes[position - 1])
        }
        return try readMultiByteVarint()
    }

    private mutating func readMultiByteVarint() throws(DecodingError) -> UInt64 {
        // Up to eight bytes (56 bits: times in milliseconds take six) in a few word operations
        // when eight bytes remain: find the last byte (high bit clear), keep the bytes up to it
        // without their high bits, and pack the 7-bit groups together.
        if bytes.count - position >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let lastBytes = ~word & 0x8080_8080_8080_8080
            if lastBytes != 0 {
                // Every bit up to the first last-byte marker: the varint's bytes.
                var value = word & (lastBytes ^ (lastBytes &- 1)) & 0x7F7F_7F7F_7F7F_7F7F
                value = (value & 0x007F_007F_007F_007F) | ((value & 0x7F00_7F00_7F00_7F00) >> 1)
                value = (value & 0x0000_3FFF_0000_3FFF) | ((value & 0x3FFF_0000_3FFF_0000) >> 2)
                value = (value & 0x0000_0000_0FFF_FFFF) | ((value & 0x0FFF_FFFF_0000_0000) >> 4)
                position += lastBytes.trailingZeroBitCount / 8 + 1
                return value
            }
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw failure("unexpected end in a varint") }
            let byte = bytes[position]
            position += 1
            guard shift < 64, !(shift == 63 && byte > 1) else { throw failure("varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    @inline(__always)
    mutating func readSignedVarint() throws(DecodingError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A varint that must fit in `limit`.
    @inline(__always)
    mutating func readCount(atMost limit: Int) throws(DecodingError) -> Int {
        let value = try readVarint()
        guard value <= UInt64(limit) else { throw failure("count \(value) exceeds \(limit)") }
        return Int(value)
    }

    /// The range of a length-prefixed byte string, checked against what remains.
    @inline(__always)
    mutating func readByteRange() throws(DecodingError) -> Range<Int> {
        // Against what remains after the length itself (`readCount(atMost: remaining)` would judge it
        // by the bytes before the length, letting a string run up to ten bytes past the end).
        let start = position
        let length = try readVarint()
        guard length <= UInt64(remaining) else {
            throw DecodingError(reason: "length \(length) exceeds the \(remaining) bytes left", position: start)
        }
        let count = Int(length)
        defer { position += count }
        return position..<(position + count)
    }

    /// Reads a length-prefixed byte string, as ``readByteRange()``, with the CRC-32C of its bytes.
    mutating func readChecksummedByteRange() throws(DecodingError) -> (range: Range<Int>, checksum: UInt32) {
        let range = try readByteRange()
        return (range, CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[range])))
    }

    mutating func readBytes() throws(DecodingError) -> [UInt8] {
        let range = try readByteRange()
        return Array(bytes[range])
    }

    mutating func readString() throws(DecodingError) -> String {
        let range = try readByteRange()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    mutating func readOptionalString() throws(DecodingError) -> String? {
        switch try readUInt8() {
        case 0: return nil
        case 1: return try readString()
        case let flag: throw failure("presence flag \(flag) is neither 0 nor 1")
        }
    }

    mutating func readOptionalSignedVarint() throws(DecodingError) -> Int64? {
        switch try readUInt8() {
        case 0: return nil
        case 1: return try readSignedVarint()
        case let flag: throw failure("presence flag \(flag) is neither 0 nor 1")
        }
    }
}
