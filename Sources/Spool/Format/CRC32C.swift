/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI,
/// ext4 and LevelDB. The check value of `"123456789"` is `0xE3069283`.
///
/// Computed with slicing-by-16: sixteen 256-entry tables let the loop consume
/// sixteen bytes per step. Each step waits on the one before (the state feeds
/// the next lookups), so a step of 16 bytes costs little more time than one of
/// 8 did: replay checksums every record it reads, and this halved that time.
enum CRC32C {
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// `tables[k * 256 + b]` is the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 16 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            table[byte] = crc
        }
        for slice in 1..<16 {
            for byte in 0..<256 {
                let previous = table[(slice - 1) * 256 + byte]
                table[slice * 256 + byte] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        update(0, bytes)
    }

    /// The CRC-32C of an array's bytes.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// Extends `crc` (the checksum of earlier bytes, or 0) with `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var state = ~crc
        var index = 0
        let count = bytes.count
        tables.withUnsafeBufferPointer { table in
            /// The four bytes of `word` looked up in tables `first` down to `first - 3`.
            @inline(__always)
            func lookUp(_ word: UInt32, _ first: Int) -> UInt32 {
                table[first * 256 + Int(word & 0xFF)]
                    ^ table[(first - 1) * 256 + Int((word >> 8) & 0xFF)]
                    ^ table[(first - 2) * 256 + Int((word >> 16) & 0xFF)]
                    ^ table[(first - 3) * 256 + Int(word >> 24)]
            }
            while count - index >= 16 {
                let first = state ^ UInt32(littleEndianBytes: bytes, at: index)
                state =
                    lookUp(first, 15)
                    ^ lookUp(UInt32(littleEndianBytes: bytes, at: index + 4), 11)
                    ^ lookUp(UInt32(littleEndianBytes: bytes, at: index + 8), 7)
                    ^ lookUp(UInt32(littleEndianBytes: bytes, at: index + 12), 3)
                index += 16
            }
            if count - index >= 8 {
                let first = state ^ UInt32(littleEndianBytes: bytes, at: index)
                state = lookUp(first, 7) ^ lookUp(UInt32(littleEndianBytes: bytes, at: index + 4), 3)
                index += 8
            }
            if count - index >= 4 {
                state = lookUp(state ^ UInt32(littleEndianBytes: bytes, at: index), 3)
                index += 4
            }
            while index < count {
                state = (state >> 8) ^ table[Int((state ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        return ~state
    }
}

extension UInt32 {
    /// Reads four bytes at `offset` as a little-endian integer; no alignment needed.
    @inline(__always)
    init(littleEndianBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
        self =
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
