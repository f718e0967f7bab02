import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `claim(kinds:)`: one claim across several kinds, the runner's claim, public.
@Suite(.blocking) struct MultiKindClaimTests {
    /// A queue with jobs of three kinds: x (priority 0, enqueued first), y (priority 5), z (priority 9),
    /// then another x and y of priority 0, enqueued in that order.
    static func queue(_ temp: TemporaryDirectory) throws -> JobQueue {
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try queue.enqueue(contentsOf: [
            NewJob(kind: "x", id: "x1"), NewJob(kind: "y", id: "y1", priority: 5),
            NewJob(kind: "z", id: "z1", priority: 9), NewJob(kind: "y", id: "y2"),
            NewJob(kind: "x", id: "x2"),
        ])
        return queue
    }

    @Test func takesTheBestJobAcrossTheKindsInTheOrderOfReadyJobs() throws {
        let temp = TemporaryDirectory("spool-claim-kinds")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp)
        defer { try? queue.close() }
        let expected = try queue.readyJobs(at: queue.configuration.clock.now()).filter { ["x", "y"].contains($0.kind) }
            .map(\.id)
        #expect(expected == ["y1", "x1", "y2", "x2"])
        var claimed: [JobID] = []
        while let lease = try queue.claim(kinds: ["x", "y"]) { claimed.append(lease.job.id) }
        #expect(claimed == expected)
        #expect(try queue.job("z1")?.state == .enqueued, "a kind outside the set is not claimed")
    }

    @Test(.onThePool) func theAsyncFormTakesTheSameJobs() async throws {
        let temp = TemporaryDirectory("spool-claim-kinds")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp)
        defer { try? queue.close() }
        var claimed: [JobID] = []
        while let lease = try await queue.claim(kinds: ["z", "x"], leaseDuration: 60) {
            claimed.append(lease.job.id)
            #expect(lease.expiresAt == queue.configuration.clock.now() + 60)
        }
        #expect(claimed == ["z1", "x1", "x2"])
    }

    @Test(.onThePool) func anEmptySetClaimsNothing() async throws {
        let temp = TemporaryDirectory("spool-claim-kinds")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp)
        defer { try? queue.close() }
        let blocking: () throws -> Lease? = { try queue.claim(kinds: []) }  // the blocking form
        #expect(try blocking() == nil)
        #expect(try await queue.claim(kinds: []) == nil)
        #expect(try queue.counts()[.enqueued] == 5)
    }

    @Test(.onThePool) func anInvalidKindIsRefusedAndNothingIsClaimed() async throws {
        let temp = TemporaryDirectory("spool-claim-kinds")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp)
        defer { try? queue.close() }
        expectError(.invalidArgument) { try queue.claim(kinds: ["x", ""]) }
        await expectError(.invalidArgument) { try await queue.claim(kinds: ["x", String(repeating: "k", count: 201)]) }
        expectError(.invalidArgument) { try queue.claim(kinds: ["x"], leaseDuration: -1) }
        #expect(try queue.counts()[.enqueued] == 5)
    }
}
