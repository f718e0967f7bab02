import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// What replay leaves of a chain's cascades for the live path to publish.
@Suite(.blocking) struct ReplayCascadeTests {
    /// Replay applies records through the same `apply`, which appends every dependent a cascade
    /// touched to `cascadedIDs`; only the live `commit` takes them. After open the state still holds
    /// every cascade of the replayed log (memory growing with the log since the last snapshot), and
    /// the first live commit publishes them all as changes of its own.
    @Test func replayLeavesNoCascadesToPublish() throws {
        let temp = TemporaryDirectory("spool-review2")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let first = try queue.enqueue(NewJob(kind: "a"))
        _ = try queue.enqueue(NewJob(kind: "b", dependencies: [first]))
        try queue.complete(try #require(try queue.claim(kind: "a")))  // unblocks the dependent
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        #expect(queue.engine.stateSnapshot.cascadedIDs.isEmpty, "replay kept \(queue.engine.stateSnapshot.cascadedIDs)")
        let subscription = queue.engine.changes.subscribe()
        let unrelated = try queue.enqueue(NewJob(kind: "c"))
        #expect(subscription.poll()?.jobIDs == [unrelated.rawValue], "only the job this record changed")
        try closeChecked(queue)
    }
}
