import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Periodic jobs: the next occurrence is written by the record that ends the current one.
@Suite(.blocking) struct PeriodicTests {
    static let hour: TimeInterval = 3600

    @Test func completingAnOccurrenceSchedulesTheNextInTheSameRecord() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let anchor = clock.now()
        let id = try queue.enqueue(
            NewJob(kind: "refresh", uniqueKey: "refresh", periodic: PeriodicSchedule(interval: Self.hour)))
        let lease = try #require(try queue.claim())
        #expect(lease.job.occurrence == 1 && lease.job.periodic == PeriodicSchedule(interval: Self.hour))
        clock.advance(by: 90)
        let recordsBefore = try recordOperationNames(temp.queue).count
        let next = try queue.complete(lease)
        let records = try recordOperationNames(temp.queue)
        #expect(records.count == recordsBefore + 1)
        #expect(records.last == ["complete", "nextOccurrence"])
        #expect(try bodyVersions(temp.queue).last == 3)
        #expect(next.id == id && next.state == .enqueued && next.occurrence == 2 && next.attempts == 0)
        #expect(next.runAt == anchor.addingTimeInterval(Self.hour))
        #expect(queue.engine.stateSnapshot.uniqueKeys["refresh"] == id.rawValue, "the key stays with the job")
        #expect(try queue.claim() == nil)
        queue = try reopenedTwice(queue, clock: clock)
        #expect(try queue.job(id)?.occurrence == 2)
        clock.advance(by: Self.hour - 90)
        #expect(try queue.claim()?.job.occurrence == 2)
        try closeChecked(queue)
    }

    @Test func aClockJumpGivesOneCatchUpRunNotABurst() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let anchor = clock.now()
        try queue.enqueue(NewJob(kind: "refresh", id: "p", periodic: PeriodicSchedule(interval: Self.hour)))
        try queue.complete(try #require(try queue.claim()))
        clock.setWallClock(anchor.addingTimeInterval(10 * Self.hour + 5))
        let late = try #require(try queue.claim())
        #expect(late.job.occurrence == 2)
        let next = try queue.complete(late)
        #expect(
            next.runAt == anchor.addingTimeInterval(11 * Self.hour), "the next boundary after now, not a missed one")
        #expect(next.occurrence == 3)
        #expect(try queue.claim() == nil)
        try closeChecked(queue)
    }

    @Test func aFlexWindowLetsTheOccurrenceStartEarly() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let anchor = clock.now()
        try queue.enqueue(NewJob(kind: "refresh", periodic: PeriodicSchedule(interval: Self.hour, flex: 600)))
        let next = try queue.complete(try #require(try queue.claim()))
        #expect(next.runAt == anchor.addingTimeInterval(Self.hour - 600))
        // Run inside that window: the next window is the following boundary's, not this one again.
        clock.advance(by: Self.hour - 300)
        let again = try queue.complete(try #require(try queue.claim()))
        #expect(again.runAt == anchor.addingTimeInterval(2 * Self.hour - 600))
        try closeChecked(queue)
    }

    @Test func aFailedOccurrenceStillSchedulesTheNext() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let anchor = clock.now()
        try queue.enqueue(
            NewJob(kind: "refresh", id: "p", maxAttempts: 2, periodic: PeriodicSchedule(interval: Self.hour)))
        let retried = try queue.fail(try #require(try queue.claim()), error: "offline")
        #expect(
            retried.state == .enqueued && retried.occurrence == 1 && retried.nextRetryAt != nil,
            "a retryable failure retries the occurrence")
        clock.advance(by: 10)
        let ended = try queue.fail(try #require(try queue.claim()), error: "still offline")
        #expect(
            ended.state == .enqueued && ended.occurrence == 2 && ended.attempts == 0
                && ended.lastError == "still offline")
        #expect(ended.runAt == anchor.addingTimeInterval(Self.hour))
        clock.advance(by: Self.hour)
        let terminal = try queue.fail(try #require(try queue.claim()), error: "bad", terminal: true)
        #expect(terminal.state == .enqueued && terminal.occurrence == 3)
        // Only cancel ends it.
        #expect(try queue.cancel("p").state == .cancelled)
        try closeChecked(queue)
    }

    @Test func aReclaimWithSpentAttemptsAtOpenSchedulesTheNext() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let anchor = clock.now()
        try queue.enqueue(
            NewJob(kind: "refresh", id: "p", maxAttempts: 1, periodic: PeriodicSchedule(interval: Self.hour)))
        _ = try #require(try queue.claim())
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let job = try #require(try queue.job("p"))
        #expect(job.state == .enqueued && job.occurrence == 2 && job.runAt == anchor.addingTimeInterval(Self.hour))
        #expect(job.lastError?.hasPrefix("orphaned") == true)
        try closeChecked(queue)
    }

    @Test func schedulesBelowTheMinimumsAreRefused() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(ManualClock()))
        expectError(.invalidArgument) {
            try queue.enqueue(NewJob(kind: "k", periodic: PeriodicSchedule(interval: 899)))
        }
        expectError(.invalidArgument) {
            try queue.enqueue(NewJob(kind: "k", periodic: PeriodicSchedule(interval: 900, flex: 60)))
        }
        expectError(.invalidArgument) {
            try queue.enqueue(NewJob(kind: "k", periodic: PeriodicSchedule(interval: 900, flex: 901)))
        }
        expectError(.invalidArgument) {
            try queue.enqueue(NewJob(kind: "k", periodic: PeriodicSchedule(interval: .infinity)))
        }
        try queue.enqueue(NewJob(kind: "k", periodic: PeriodicSchedule(interval: 900, flex: 300)))
        try closeChecked(queue)
    }
}

/// Cancelling many jobs at once, each call one record.
@Suite(.blocking) struct CancelManyTests {
    @Test func cancelByKindTakesItsJobsAndTheirDependentsInOneRecord() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try queue.enqueue(NewJob(kind: "upload", id: "u1"))
        try queue.enqueue(NewJob(kind: "upload", id: "u2", dependencies: ["u1"]))
        try queue.enqueue(NewJob(kind: "notify", id: "n", dependencies: ["u2"]))
        try queue.enqueue(NewJob(kind: "other", id: "o"))
        let lease = try #require(try queue.claim())
        #expect(lease.job.id == "u1")
        let records = try recordOperationNames(temp.queue).count
        let cancelled = try queue.cancel(kind: "upload")
        #expect(cancelled.map(\.id) == ["u1", "u2", "n"] && cancelled.allSatisfy { $0.state == .cancelled })
        let written = try recordOperationNames(temp.queue)
        #expect(
            written.count == records + 1 && written.last == ["cancel"],
            "u2 and n are cancelled by the cascade of u1's cancel")
        expectError(.leaseLost) { try queue.complete(lease) }
        #expect(try queue.cancel(kind: "upload").isEmpty)
        #expect(try recordOperationNames(temp.queue).count == records + 1, "nothing to cancel writes nothing")
        #expect(try queue.job("o")?.state == .enqueued)
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
    }
}
