import Foundation
import Testing
@testable import Spool

@Suite struct RandomPoolTests {
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
