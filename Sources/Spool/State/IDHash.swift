/// The hash that ``HashIndex`` files job ids under: a seeded multiply-and-fold
/// hash of the id's UTF-8 bytes, eight at a time.
///
/// Replay hashes every id it reads, and the standard library's `hashValue`
/// (SipHash over a `Hasher`, byte by byte into its buffer) took about a
/// twentieth of an open for a 36-byte UUID. This one reads two words per 16
/// bytes and mixes them with one full-width multiplication (the "folded
/// multiply" of wyhash and foldhash). Like `hashValue`, it is seeded at random
/// per process, so that the ids that collide differ from run to run and cannot
/// be chosen ahead to slow a table down; positions, not hashes, are what the
/// table stores, so nothing depends on the values across runs.
enum IDHash {
    /// Random per process.
    private static let seed: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next() | 1)
    }()

    /// Odd constants with balanced bits (the fractional digits of π).
    private static let k0: UInt64 = 0x243F_6A88_85A3_08D3
    private static let k1: UInt64 = 0x1319_8A2E_0370_7344
    private static let k2: UInt64 = 0xA409_3822_299F_31D1

    /// The 32-bit hash of a string's UTF-8 bytes.
    @inline(__always)
    static func hash(_ id: String) -> UInt32 {
        if let hash = id.utf8.withContiguousStorageIfAvailable({ hash(utf8: UnsafeRawBufferPointer($0)) }) {
            return hash
        }
        var copy = id
        return copy.withUTF8 { hash(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// The 32-bit hash of UTF-8 bytes: the same value ``hash(_:)`` gives the string they spell.
    static func hash(utf8 bytes: UnsafeRawBufferPointer) -> UInt32 {
        let (seed0, seed1) = seed
        let count = bytes.count
        var state = seed0 ^ UInt64(count) &* k0
        var index = 0
        // Whole 16-byte blocks but the last (1 to 16 bytes are left for the tail).
        while count - index > 16 {
            state = fold(word(bytes, index) ^ k1 ^ state, word(bytes, index + 8) ^ seed1)
            index += 16
        }
        let rest = count - index
        let first: UInt64
        let second: UInt64
        if rest >= 8 {
            // Two words that may overlap: together they cover the 8 to 16 bytes left.
            first = word(bytes, index)
            second = word(bytes, count - 8)
        } else if rest >= 4 {
            first = UInt64(half(bytes, index))
            second = UInt64(half(bytes, count - 4))
        } else if rest > 0 {
            first = UInt64(bytes[index]) << 16 | UInt64(bytes[index + rest / 2]) << 8 | UInt64(bytes[count - 1])
            second = 0
        } else {
            first = 0
            second = 0
        }
        state = fold(first ^ k1 ^ state, second ^ seed1)
        state = fold(state ^ k2, UInt64(count) ^ seed0)
        return UInt32(truncatingIfNeeded: state ^ (state >> 32))
    }

    /// The high and low halves of the full product, combined.
    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func half(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
