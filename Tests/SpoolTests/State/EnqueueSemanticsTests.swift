import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Enqueue-side interactions a model of single operations does not reach: several jobs of one batch
/// on one key or one chain, cancel by kind over chains, retry and delete inside append chains.
@Suite(.blocking) struct EnqueueSemanticsTests {
    private func open(_ temp: TemporaryDirectory, _ clock: ManualClock) throws -> JobQueue {
        try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
    }

    private func states(_ queue: JobQueue, _ ids: [String]) throws -> [JobState?] {
        try ids.map { try queue.job(JobID($0))?.state }
    }

    @Test func aBatchMixingPoliciesOnOneKeyAndChainsResolvesAsOneByOne() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "s", uniqueKey: "a"))
        let ids = try queue.enqueue(contentsOf: [
            NewJob(kind: "k", id: "b1", uniqueKey: "a", uniquePolicy: .append),  // after s
            NewJob(kind: "k", id: "b2", dependencies: ["b1"]),  // waits for b1
            NewJob(kind: "k", id: "b3", uniqueKey: "a"),  // keep: b1
            NewJob(kind: "k", id: "b4", uniqueKey: "a", uniquePolicy: .replace),  // cancels s (and b1, b2 by cascade)
            NewJob(kind: "k", id: "b5", dependencies: ["b2"]),  // cancelled at birth
            NewJob(kind: "k", id: "b6", uniqueKey: "a", uniquePolicy: .append),  // after b4
            NewJob(kind: "k", id: "b7", uniqueKey: "a", uniquePolicy: .replace),  // cancels b4 (b6 by cascade)
            // cancelled at birth: b7 keeps a
            NewJob(kind: "k", id: "b8", uniqueKey: "a", uniquePolicy: .append, dependencies: ["b5"]),
            NewJob(kind: "k", id: "b9", uniqueKey: "a"),  // keep: b7
        ])
        #expect(ids == ["b1", "b2", "b1", "b4", "b5", "b6", "b7", "b8", "b7"])
        #expect(
            try states(queue, ["s", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9"])
                == [
                    .cancelled, .cancelled, .cancelled, nil, .cancelled, .cancelled, .cancelled, .enqueued, .cancelled,
                    nil,
                ])
        #expect(queue.engine.stateSnapshot.uniqueKeys["a"] == "b7")
        #expect(try queue.job("b8")?.blockingPrerequisites.contains("b7") == true)
        queue = try reopenedTwice(queue, clock: clock)
        #expect(queue.engine.stateSnapshot.uniqueKeys["a"] == "b7")
        try closeChecked(queue)
    }

    @Test func aRefusedBatchOrCallWritesNothing() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "h", uniqueKey: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "p", uniqueKey: "per", periodic: PeriodicSchedule(interval: 3600)))
        let lsn = queue.engine.writer.lastAppendedLSN
        let before = try queue.jobs()
        let refused: [[NewJob]] = [
            // replace planned first, then an id repeated in the batch
            [NewJob(kind: "k", id: "x", uniqueKey: "a", uniquePolicy: .replace), NewJob(kind: "k", id: "x")],
            // a prerequisite later in the batch
            [NewJob(kind: "k", id: "y", dependencies: ["z"]), NewJob(kind: "k", id: "z")],
            // keep returned h: "k2" was never enqueued
            [NewJob(kind: "k", id: "k2", uniqueKey: "a"), NewJob(kind: "k", id: "w", dependencies: ["k2"])],
            // append to a periodic holder
            [
                NewJob(kind: "k", id: "v", uniqueKey: "a", uniquePolicy: .replace),
                NewJob(kind: "k", id: "u", uniqueKey: "per", uniquePolicy: .append),
            ],
            // the replacing job takes the id of the job it replaces
            [NewJob(kind: "k", id: "h", uniqueKey: "a", uniquePolicy: .replace)],
            // a job depending on itself
            [NewJob(kind: "k", id: "self", dependencies: ["self"])],
        ]
        for jobs in refused {
            expectError(.invalidArgument) { try queue.enqueue(contentsOf: jobs) }
            #expect(queue.engine.writer.lastAppendedLSN == lsn)
            #expect(try queue.jobs() == before)
        }
        expectError(.jobNotFound) { try queue.cancel("nope") }
        expectError(.jobNotFound) { try queue.retry("nope") }
        expectError(.jobNotFound) { try queue.delete("nope") }
        expectError(.jobNotFound) { try queue.reschedule("nope", runAt: Date()) }
        #expect(queue.engine.writer.lastAppendedLSN == lsn)
        try closeChecked(queue)
    }

    @Test func cancelByKindOverChainsAndRunningJobs() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(contentsOf: [
            NewJob(kind: "up", id: "u1"),
            NewJob(kind: "up", id: "u2", dependencies: ["u1"]),
            NewJob(kind: "other", id: "o1", dependencies: ["u2"]),
            NewJob(kind: "other", id: "o2", dependencies: ["o1"]),
            NewJob(kind: "other", id: "o3"),
            NewJob(kind: "up", id: "u3", dependencies: ["o3"]),
        ])
        let lease = try #require(try queue.claim(kind: "up"))
        #expect(lease.job.id == "u1")
        let cancelled = try queue.cancel(kind: "up")
        #expect(cancelled.map(\.id) == ["u1", "u2", "o1", "o2", "u3"])
        #expect(cancelled.allSatisfy { $0.state == .cancelled })
        #expect(try queue.job("o3")?.state == .enqueued)
        expectError(.leaseLost) { try queue.complete(lease) }
        #expect(try queue.cancel(kind: "up").isEmpty)
        queue = try reopenedTwice(queue, clock: clock)
        try closeChecked(queue)
    }

    @Test func deletingARunningCarrierOfAnAppendChain() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "c1", uniqueKey: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "c2", uniqueKey: "a", uniquePolicy: .append))
        try queue.enqueue(NewJob(kind: "k", id: "c3", uniqueKey: "a", uniquePolicy: .append))
        let lease = try #require(try queue.claim())
        #expect(lease.job.id == "c1")
        try queue.delete("c1")
        #expect(try states(queue, ["c1", "c2", "c3"]) == [nil, .cancelled, .cancelled])
        #expect(queue.engine.stateSnapshot.uniqueKeys["a"] == nil)
        expectError(.leaseLost) { try queue.complete(lease) }
        let next = try queue.enqueue(NewJob(kind: "k", id: "c4", uniqueKey: "a", uniquePolicy: .append))
        #expect(try queue.job(next)?.isBlocked == false)
        queue = try reopenedTwice(queue, clock: clock)
        try closeChecked(queue)
    }

    /// A job of an append chain shares its prerequisite's unique key, and a key has one holder at a
    /// time: cancelled with its prerequisite by the cascade, the job can be retried once that
    /// prerequisite succeeded (it then waits for nothing), not while the retried prerequisite holds
    /// the key (README, chains). Replay gives the same.
    @Test func anAppendChainCancelledByCascadeIsRetriedAfterItsPrerequisiteSucceeded() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "x", uniqueKey: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "y", uniqueKey: "a", uniquePolicy: .append))
        try queue.cancel("x")
        #expect(try states(queue, ["x", "y"]) == [.cancelled, .cancelled])
        expectError(.invalidState) { try queue.retry("y") }
        try queue.retry("x")
        expectError(.uniqueKeyConflict) { try queue.retry("y") }
        let lease = try #require(try queue.claim(kind: "k"))
        #expect(lease.job.id == "x")
        try queue.complete(lease)
        let y = try queue.retry("y")
        #expect(y.state == .enqueued && y.blockingPrerequisites.isEmpty)
        #expect(queue.engine.stateSnapshot.uniqueKeys["a"] == "y")
        queue = try reopenedTwice(queue, clock: clock)
        #expect(queue.engine.stateSnapshot.uniqueKeys["a"] == "y")
        #expect(try states(queue, ["x", "y"]) == [.succeeded, .enqueued])
        try closeChecked(queue)
    }
}
