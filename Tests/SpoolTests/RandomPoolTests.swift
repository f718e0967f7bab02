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
}
