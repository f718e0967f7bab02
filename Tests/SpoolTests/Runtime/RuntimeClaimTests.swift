import Foundation
import Testing

@testable import Spool

/// The runtime's building blocks below the runner: a claim across a set of kinds,
/// and sleeping on the injected clock.
@Suite struct RuntimeClaimTests {
    @Test func aClaimAcrossKindsTakesTheBestDueJobOfThoseKindsOnly() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        try await queue.enqueue(NewJob(kind: "a", id: "a-low"))
        clock.advance(by: 1)
        try await queue.enqueue(NewJob(kind: "b", id: "b-low"))
        try await queue.enqueue(NewJob(kind: "c", id: "c-high", priority: 9))
        try await queue.enqueue(NewJob(kind: "b", id: "b-later", delay: 30))
        try await queue.enqueue(NewJob(kind: "a", id: "a-mid", priority: 5))
        // Priority first, across the kinds of the set; kind c is not in it.
        #expect(try await queue.claim(kinds: .only(["a", "b"]), leaseDuration: nil)?.job.id == "a-mid")
        // Then earlier due, then earlier enqueued: a-low was enqueued first and due first.
        #expect(try await queue.claim(kinds: .only(["a", "b"]), leaseDuration: nil)?.job.id == "a-low")
        #expect(try await queue.claim(kinds: .allExcept(["b"]), leaseDuration: nil)?.job.id == "c-high")
        #expect(try await queue.claim(kinds: .allExcept(["b"]), leaseDuration: nil) == nil)
        #expect(try await queue.claim(kinds: .only([]), leaseDuration: nil) == nil)
        #expect(try queue.engine.earliestDue(kinds: .only(["b"])) == Millis.from(clock.now()))
        #expect(try await queue.claim(kinds: .all, leaseDuration: nil)?.job.id == "b-low")
        // Only a delayed b job is left: not due, but its deadline is known per kind set.
        #expect(try await queue.claim(kinds: .only(["b"]), leaseDuration: nil) == nil)
        #expect(try queue.engine.earliestDue(kinds: .only(["b"])) == Millis.from(clock.now().addingTimeInterval(30)))
        #expect(try queue.engine.earliestDue(kinds: .allExcept(["b"])) == nil)
        // The one-kind claim still works as before.
        clock.advance(by: 30)
        #expect(try await queue.claim(kind: "a") == nil)
        #expect(try await queue.claim(kind: "b")?.job.id == "b-later")
        try closeChecked(queue)
    }

    @Test func aManualClockWakesASleeperWhenAdvancedToItsDeadlineNotBefore() async throws {
        let clock = ManualClock()
        let deadline = clock.now().addingTimeInterval(10)
        let woke = Locked(false)
        let sleeper = Task {
            try await clock.sleep(until: deadline)
            woke.withLock { $0 = true }
        }
        await waitForSleepers(clock, count: 1)
        #expect(clock.sleepingDeadlines == [deadline])
        clock.advance(by: 9.999)
        #expect(clock.sleepingDeadlines == [deadline], "still asleep a moment before its deadline")
        #expect(woke.withLock { $0 } == false)
        clock.advance(by: 0.001)
        try await sleeper.value
        #expect(woke.withLock { $0 })
        #expect(clock.sleepingDeadlines.isEmpty)
        // A deadline already reached returns at once.
        try await clock.sleep(until: deadline)
    }

    @Test func wallClockJumpsMoveDeadlinesWithTheWallClock() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let deadline = start.addingTimeInterval(60)
        let sleeper = Task { try await clock.sleep(until: deadline) }
        await waitForSleepers(clock, count: 1)
        // A jump back leaves it asleep; a jump forward past the deadline wakes it.
        clock.setWallClock(start.addingTimeInterval(-3600))
        #expect(clock.sleepingDeadlines == [deadline])
        clock.setWallClock(start.addingTimeInterval(3600))
        try await sleeper.value
        #expect(clock.sleepingDeadlines.isEmpty)
    }

    @Test func cancellingASleeperEndsItsSleepWithCancellationError() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(5)) }
        await waitForSleepers(clock, count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepingDeadlines.isEmpty)
    }

    @Test func theSystemClockReturnsForAPastDeadlineAndStopsWhenCancelled() async throws {
        let clock = SystemClock()
        try await clock.sleep(until: clock.now().addingTimeInterval(-1))
        let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
