import Foundation

@testable import Spool

extension FormatFixture {
    /// Results and tags (since format-2-results, body version 9): enqueues followed by `tags`, successes
    /// whose `result` precedes their `complete` (one handed to a dependent), a cancel by tag taking a
    /// dependent, then a snapshot (`tags`, `result` and `prerequisite_result` after the restores), then a
    /// dependent enqueued after its prerequisite's success and a result that is not UTF-8 after it.
    static func generateResults(queue: JobQueue, clock: ManualClock) throws {
        func step() { clock.advance(by: 1) }
        func claim(_ kind: String) throws -> Lease {
            guard let lease = try queue.claim(kind: kind) else { throw FixtureError("nothing to claim of \(kind)") }
            return lease
        }
        step()
        _ = try queue.enqueue(
            NewJob(
                kind: "results.upload", payload: Data("IMG_1.jpg".utf8), id: "res-upload",
                tags: ["album:7", "user:ana"]))
        _ = try queue.enqueue(NewJob(kind: "results.thumb", id: "res-thumb", tags: ["album:7"]))
        _ = try queue.enqueue(
            NewJob(kind: "results.publish", id: "res-publish", dependencies: ["res-upload", "res-thumb"]))
        _ = try queue.enqueue(contentsOf: [
            NewJob(kind: "results.sync", id: "res-trip", tags: ["trip:1"]),
            NewJob(kind: "results.notify", id: "res-trip-notify", dependencies: ["res-trip"]),
        ])
        step()
        _ = try queue.complete(try claim("results.upload"), result: Data("https://example.com/p/1".utf8))
        _ = try queue.complete(try claim("results.thumb"))
        step()
        guard try queue.cancel(tagged: "trip:1").count == 2 else { throw FixtureError("cancel by tag missed") }
        step()
        _ = try queue.compact()
        step()
        _ = try queue.enqueue(
            NewJob(kind: "results.notify", id: "res-late", dependencies: ["res-upload"], tags: ["late"]))
        _ = try queue.complete(try claim("results.publish"), result: Data([0, 1, 2, 255]))
        step()
    }
}
