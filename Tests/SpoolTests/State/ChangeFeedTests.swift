import Foundation
import Testing

@testable import Spool

/// The internal change feed the runtime and observation are built on.
@Suite struct ChangeFeedTests {
    @Test func aSubscriberLearnsWhichJobsEachCommitChanged() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        let subscription = queue.engine.changes.subscribe()
        #expect(subscription.poll() == ChangeFeed.Changes())
        try await queue.enqueue(NewJob(kind: "a", id: "one"))
        #expect(await subscription.next()?.jobIDs == ["one"])
        let lease = try #require(try await queue.claim())
        try await queue.enqueue(NewJob(kind: "a", id: "two"))
        try await queue.complete(lease)
        // Read late: the three changes arrive as one union, not a backlog.
        #expect(await subscription.next()?.jobIDs == ["one", "two"])
        #expect(subscription.poll()?.isEmpty == true)
        try closeChecked(queue)
    }

    @Test func closingTheQueueEndsAWaitingSubscription() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        let subscription = queue.engine.changes.subscribe()
        async let ended = subscription.next()
        try closeChecked(queue)
        #expect(await ended == nil)
        #expect(subscription.poll() == nil)
    }

    @Test func pendingChangesAreDeliveredBeforeTheEndAndNothingAfter() async throws {
        let feed = ChangeFeed()
        let subscription = feed.subscribe()
        feed.publish(jobIDs: ["x"])
        feed.publishEnvironmentChange()
        feed.finish()
        #expect(await subscription.next() == ChangeFeed.Changes(jobIDs: ["x"], environmentChanged: true))
        #expect(await subscription.next() == nil)
        // A subscription made after the end is ended at once.
        #expect(await feed.subscribe().next() == nil)
    }

    @Test func cancellingTheWaitingTaskEndsTheWait() async throws {
        let feed = ChangeFeed()
        let subscription = feed.subscribe()
        let waiter = Task { await subscription.next() }
        waiter.cancel()
        #expect(await waiter.value == nil)
        feed.publish(jobIDs: ["late"])
        #expect(subscription.poll() == nil, "a cancelled subscription receives nothing more")
    }

    @Test func aCancelledTaskGetsNothingEvenWithChangesPending() async throws {
        let feed = ChangeFeed()
        let subscription = feed.subscribe()
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            feed.publish(jobIDs: ["pending"])
            return await subscription.next()
        }
        #expect(await reader.value == nil, "the read of a cancelled task returned changes")
        feed.publish(jobIDs: ["late"])
        #expect(subscription.poll() == nil, "a cancelled subscription receives nothing more")
    }

    @Test func everySubscriberGetsEveryChange() async throws {
        let feed = ChangeFeed()
        let first = feed.subscribe()
        let second = feed.subscribe()
        async let firstChanges = first.next()
        feed.publish(jobIDs: ["a", "b"])
        #expect(await firstChanges?.jobIDs == ["a", "b"])
        #expect(second.poll()?.jobIDs == ["a", "b"])
    }
}
