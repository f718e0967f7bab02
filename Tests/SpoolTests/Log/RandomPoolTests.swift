import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

@Suite(.blocking) struct RandomPoolTests {
    @Test func idsAreVersion4UUIDsInLowercaseAndDistinct() {
        var seen = Set<String>()
        for _ in 0..<5000 {
            let id = RandomPool.shared.nextUUIDString()
            #expect(UUID(uuidString: id) != nil && id == id.lowercased() && id.utf8.count == 36, "\(id)")
            let characters = Array(id)
            #expect(characters[14] == "4" && "89ab".contains(characters[19]), "\(id)")
            seen.insert(id)
        }
        #expect(seen.count == 5000)
        #expect((0..<1000).allSatisfy { _ in RandomPool.shared.nextToken() != 0 })
    }

    /// The text is Foundation's for the same bytes, with the version and variant bits set: every
    /// digit of every byte value, and the dashes, where `UUID.uuidString` puts them.
    @Test func theTextOfBytesIsFoundationsTextOfTheSameUUID() {
        #expect([UInt8](0..<16).withUnsafeBytes(RandomPool.uuidString) == "00010203-0405-4607-8809-0a0b0c0d0e0f")
        #expect(
            [UInt8](repeating: 0xFF, count: 16).withUnsafeBytes(RandomPool.uuidString)
                == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        for first in stride(from: 0, to: 256, by: 16) {
            var bytes = (0..<16).map { UInt8(truncatingIfNeeded: first + $0 * 17) }
            let text = bytes.withUnsafeBytes(RandomPool.uuidString)
            bytes[6] = (bytes[6] & 0x0F) | 0x40
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            #expect(text == uuid.uuidString.lowercased())
        }
    }

    /// A batch's ids are drawn at once: 16,000 bytes, several refills of the 4 KiB buffer.
    @Test func idsDrawnTogetherAreVersion4UUIDsAndDistinct() {
        _ = RandomPool.shared.nextUUIDString()  // leaves the buffer part used, so the draw straddles refills
        let ids = RandomPool.shared.nextUUIDStrings(1000)
        #expect(ids.count == 1000 && Set(ids).count == 1000)
        for id in ids {
            let characters = Array(id)
            #expect(UUID(uuidString: id) != nil && id == id.lowercased() && id.utf8.count == 36, "\(id)")
            #expect(characters[14] == "4" && "89ab".contains(characters[19]), "\(id)")
        }
        #expect(RandomPool.shared.nextUUIDStrings(0).isEmpty)
    }
}
