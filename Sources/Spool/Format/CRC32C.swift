/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as used by iSCSI,
/// ext4 and LevelDB. The check value of `"123456789"` is `0xE3069283`.
///
/// Computed with slicing-by-8: eight 256-entry tables let the loop consume
/// eight bytes per step.
enum CRC32C {
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// `tables[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            table[byte] = crc
        }
        for slice in 1..<8 {
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
            while count - index >= 8 {
                let low = state ^ UInt32(littleEndianBytes: bytes, at: index)
                let high = UInt32(littleEndianBytes: bytes, at: index + 4)
                state = table[7 * 256 + Int(low & 0xFF)]
                    ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)]
                    ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)]
                    ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)]
                    ^ table[Int(high >> 24)]
                index += 8
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
        self = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
