/// Random job ids and lease tokens, drawn from a buffer of secure random bytes
/// that is refilled with one system call per 4 KiB (a Foundation `UUID`
/// opens and reads the random device once per id on Linux).
final class RandomPool: @unchecked Sendable {
    // @unchecked: `buffer` and `position` are guarded by `lock`.
    static let shared = RandomPool()

    private let lock = Lock()
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var position = 4096

    /// Copies `count` fresh random bytes into `destination`, refilling the buffer as often as needed.
    private func take(_ count: Int, into destination: UnsafeMutableRawPointer) {
        lock.withLock {
            var copied = 0
            while copied < count {
                if position == buffer.count { refill() }
                let chunk = min(buffer.count - position, count - copied)
                buffer.withUnsafeBytes {
                    destination.advanced(by: copied).copyMemory(from: $0.baseAddress! + position, byteCount: chunk)
                }
                position += chunk
                copied += chunk
            }
        }
    }

    /// Fills the buffer with fresh secure random bytes. Call with `lock` held.
    private func refill() {
        let filled = buffer.withUnsafeMutableBytes { Platform.fillRandom($0) }
        if !filled {
            var generator = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = generator.next() }
        }
        position = 0
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
            return Self.uuidString(UnsafeRawBufferPointer(raw))
        }
    }

    /// `count` random UUIDs as ``nextUUIDString()`` gives them, drawn under one lock (a batch's ids).
    func nextUUIDStrings(_ count: Int) -> [String] {
        var random = [UInt8](repeating: 0, count: 16 * count)
        random.withUnsafeMutableBytes { take($0.count, into: $0.baseAddress!) }
        return random.withUnsafeBytes { raw in
            (0..<count).map { Self.uuidString(UnsafeRawBufferPointer(rebasing: raw[(16 * $0)..<(16 * $0 + 16)])) }
        }
    }

    /// The text of the version 4 UUID made of 16 random bytes (version and variant bits set here).
    static func uuidString(_ random: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            let digits: StaticString = "0123456789abcdef"
            var out = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[out] = UInt8(ascii: "-")
                    out += 1
                }
                var byte = random[index]
                if index == 6 { byte = (byte & 0x0F) | 0x40 }
                if index == 8 { byte = (byte & 0x3F) | 0x80 }
                text[out] = digits.utf8Start[Int(byte >> 4)]
                text[out + 1] = digits.utf8Start[Int(byte & 0x0F)]
                out += 2
            }
            return out
        }
    }
}
