/// Random job ids and lease tokens, drawn from a buffer of secure random bytes
/// that is refilled with one system call per 4 KiB (a Foundation `UUID`
/// opens and reads the random device once per id on Linux).
final class RandomPool: @unchecked Sendable {
    // @unchecked: `buffer` and `position` are guarded by `lock`.
    static let shared = RandomPool()

    private let lock = Lock()
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var position = 4096

    /// Copies `count` fresh random bytes into `destination`.
    private func take(_ count: Int, into destination: UnsafeMutableRawPointer) {
        lock.withLock {
            if position + count > buffer.count {
                let filled = buffer.withUnsafeMutableBytes { Platform.fillRandom($0) }
                if !filled {
                    var generator = SystemRandomNumberGenerator()
                    for index in buffer.indices { buffer[index] = generator.next() }
                }
                position = 0
            }
            buffer.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
            position += count
        }
    }

    /// A random, non-zero 64-bit number.
    func nextToken() -> UInt64 {
        var value: UInt64 = 0
        while value == 0 { withUnsafeMutableBytes(of: &value) { take(8, into: $0.baseAddress!) } }
        return value
    }

    /// A random (version 4) UUID in lowercase text, as `UUID().uuidString.lowercased()` gives.
    func nextUUIDString() -> String {
        var bytes: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            take(16, into: raw.baseAddress!)
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            return String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var out = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    text[out] = digits.utf8Start[Int(raw[index] >> 4)]
                    text[out + 1] = digits.utf8Start[Int(raw[index] & 0x0F)]
                    out += 2
                }
                return out
            }
        }
    }
}
