import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Prerequisites and unique policy append: WorkManager's chaining rule.
@Suite(.blocking) struct ChainTests {
    private func open(_ temp: TemporaryDirectory, _ clock: ManualClock) throws -> JobQueue {
        try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
    }

    @Test func aDependentRunsOnlyAfterEveryPrerequisiteSucceeded() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "b"))
        try queue.enqueue(NewJob(kind: "k", id: "c", priority: 9, dependencies: ["a", "b", "a"]))
        let c = try #require(try queue.job("c"))
        #expect(c.isBlocked && c.blockingPrerequisites == ["a", "b"] && c.state == .enqueued)
        #expect(try bodyVersions(temp.queue) == [1, 1, 3])
        let a = try #require(try queue.claim())
        #expect(a.job.id == "a", "the blocked job is skipped despite its priority")
        try queue.complete(a)
        #expect(try queue.job("c")?.blockingPrerequisites == ["b"])
        queue = try reopenedTwice(queue, clock: clock)
        let b = try #require(try queue.claim())
        #expect(b.job.id == "b")
        #expect(try queue.claim() == nil)
        #expect(try queue.nextDeadline() == nil)
        try queue.complete(b)
        #expect(try queue.job("c")?.isBlocked == false)
        #expect(try queue.claim()?.job.id == "c")
        try closeChecked(queue)
    }

    @Test func aTerminalFailureCancelsDependentsTransitivelyAndPublishesThem() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "b", dependencies: ["a"]))
        try queue.enqueue(NewJob(kind: "k", id: "c", dependencies: ["b"]))
        try queue.enqueue(NewJob(kind: "k", id: "d"))
        let subscription = queue.engine.changes.subscribe()
        let lease = try #require(try queue.claim())
        _ = subscription.poll()
        clock.advance(by: 7)
        let failed = try queue.fail(lease, error: "gone", terminal: true)
        #expect(failed.state == .failed)
        #expect(subscription.poll()?.jobIDs == ["a", "b", "c"], "cascaded changes are published")
        for id: JobID in ["b", "c"] {
            let job = try #require(try queue.job(id))
            #expect(job.state == .cancelled && job.finishedAt == failed.finishedAt)
        }
        #expect(try queue.job("c")?.blockingPrerequisites == ["b"])
        queue = try reopenedTwice(queue, clock: clock)
        // A cancelled dependent comes back only after its prerequisite is unfinished again.
        expectError(.invalidState) { try queue.retry("b") }
        try queue.retry("a")
        #expect(try queue.job("b")?.state == .cancelled, "retrying a prerequisite does not revive its dependents")
        let revived = try queue.retry("b")
        #expect(revived.isBlocked)
        #expect(try queue.claim()?.job.id == "d")
        #expect(try queue.claim()?.job.id == "a")
        try closeChecked(queue)
    }

    @Test func spentAttemptsCancellationAndDeletionCascadeToo() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "once", maxAttempts: 1))
        try queue.enqueue(NewJob(kind: "k", id: "after-once", dependencies: ["once"]))
        try queue.fail(try #require(try queue.claim()), error: "x")
        #expect(try queue.job("after-once")?.state == .cancelled)

        try queue.enqueue(NewJob(kind: "k", id: "cancelled", delay: 10))
        try queue.enqueue(NewJob(kind: "k", id: "after-cancelled", dependencies: ["cancelled"]))
        try queue.cancel("cancelled")
        #expect(try queue.job("after-cancelled")?.state == .cancelled)

        try queue.enqueue(NewJob(kind: "k", id: "deleted", delay: 10))
        try queue.enqueue(NewJob(kind: "k", id: "after-deleted", dependencies: ["deleted"]))
        try queue.enqueue(NewJob(kind: "k", id: "after-after", dependencies: ["after-deleted"]))
        try queue.delete("deleted")
        #expect(try queue.job("after-deleted")?.state == .cancelled)
        #expect(try queue.job("after-after")?.state == .cancelled)
        queue = try reopenedTwice(queue, clock: clock)
        try closeChecked(queue)
    }

    @Test func prerequisitesAlreadyFinishedOrUnknown() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try open(temp, clock)
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "k", dependencies: ["nobody"])) }
        try queue.enqueue(NewJob(kind: "k", id: "done"))
        try queue.complete(try #require(try queue.claim()))
        try queue.enqueue(NewJob(kind: "k", id: "failed", maxAttempts: 1))
        try queue.fail(try #require(try queue.claim()), error: "x")
        try queue.enqueue(NewJob(kind: "k", id: "ok", dependencies: ["done"]))
        #expect(try queue.job("ok")?.isBlocked == false)
        let doomed = try queue.enqueue(
            NewJob(kind: "k", id: "doomed", uniqueKey: "u", dependencies: ["failed", "done"]))
        let job = try #require(try queue.job(doomed))
        #expect(job.state == .cancelled && job.blockingPrerequisites == ["failed"] && job.finishedAt == clock.now())
        #expect(queue.engine.stateSnapshot.uniqueKeys["u"] == nil, "a job cancelled at birth holds no key")
        // Earlier jobs of the same batch can be named.
        let ids = try queue.enqueue(contentsOf: [
            NewJob(kind: "k", id: "x"), NewJob(kind: "k", id: "y", dependencies: ["x"]),
        ])
        #expect(ids == ["x", "y"])
        #expect(try queue.job("y")?.isBlocked == true)
        try closeChecked(queue)
    }

    @Test func appendChainsJobsOnOneKeyAndReplaceOrCancelByKeyEndsTheChain() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        let first = try queue.enqueue(NewJob(kind: "sync", id: "s1", uniqueKey: "inbox", uniquePolicy: .append))
        #expect(try queue.job(first)?.isBlocked == false, "no holder: a plain enqueue")
        try queue.enqueue(NewJob(kind: "sync", id: "s2", uniqueKey: "inbox", uniquePolicy: .append))
        try queue.enqueue(NewJob(kind: "sync", id: "s3", uniqueKey: "inbox", uniquePolicy: .append))
        #expect(try queue.job("s2")?.blockingPrerequisites == ["s1"])
        #expect(try queue.job("s3")?.blockingPrerequisites == ["s2"])
        #expect(
            try queue.enqueue(NewJob(kind: "sync", id: "kept", uniqueKey: "inbox")) == "s3",
            "keep returns the last of the chain")
        queue = try reopenedTwice(queue, clock: clock)
        try queue.complete(try #require(try queue.claim()))
        #expect(try queue.claim()?.job.id == "s2")
        // cancel by key: every unfinished carrier (s2 running, s3 waiting).
        let cancelled = try queue.cancel(uniqueKey: "inbox")
        #expect(cancelled.map(\.id) == ["s2", "s3"] && cancelled.allSatisfy { $0.state == .cancelled })
        #expect(try queue.cancel(uniqueKey: "inbox").isEmpty)

        try queue.enqueue(NewJob(kind: "sync", id: "t1", delay: 5, uniqueKey: "outbox"))
        try queue.enqueue(NewJob(kind: "sync", id: "t2", uniqueKey: "outbox", uniquePolicy: .append))
        try queue.enqueue(NewJob(kind: "other", id: "t3", dependencies: ["t2"]))
        try queue.enqueue(NewJob(kind: "sync", id: "t4", uniqueKey: "outbox", uniquePolicy: .replace))
        #expect(
            try ["t1", "t2", "t3"].map { try queue.job(JobID($0))?.state } == [.cancelled, .cancelled, .cancelled])
        #expect(try queue.job("t4")?.state == .enqueued)
        queue = try reopenedTwice(queue, clock: clock)
        try closeChecked(queue)
    }

    @Test func aBatchResolvesAppendAndReplaceInOrder() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try open(temp, clock)
        try queue.enqueue(NewJob(kind: "k", id: "old", uniqueKey: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "holds-b", uniqueKey: "b", dependencies: ["old"]))
        // Replacing key a cancels "old", whose cascade cancels "holds-b": key b is free again in the same record.
        let ids = try queue.enqueue(contentsOf: [
            NewJob(kind: "k", id: "n1", uniqueKey: "a", uniquePolicy: .replace),
            NewJob(kind: "k", id: "n2", uniqueKey: "a", uniquePolicy: .append),
            NewJob(kind: "k", id: "n3", uniqueKey: "b", uniquePolicy: .replace),
            NewJob(kind: "k", id: "n4", uniqueKey: "a", uniquePolicy: .replace),
        ])
        #expect(ids == ["n1", "n2", "n3", "n4"])
        #expect(
            try ["old", "holds-b", "n1", "n2", "n3", "n4"].map { try queue.job(JobID($0))!.state }
                == [.cancelled, .cancelled, .cancelled, .cancelled, .enqueued, .enqueued])
        queue = try reopenedTwice(queue, clock: clock)
        try closeChecked(queue)
    }

    @Test func periodicJobsStayOutOfChains() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try open(temp, ManualClock())
        let hourly = PeriodicSchedule(interval: 3600)
        try queue.enqueue(NewJob(kind: "k", id: "p", uniqueKey: "p", periodic: hourly))
        try queue.enqueue(NewJob(kind: "k", id: "q"))
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "k", dependencies: ["p"])) }
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "k", dependencies: ["q"], periodic: hourly)) }
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "k", uniqueKey: "p", uniquePolicy: .append)) }
        try closeChecked(queue)
    }
}
