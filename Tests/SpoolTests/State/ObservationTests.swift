import Dispatch
import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Observation: a sequence that starts with the current state, then follows changes.
@Suite struct ObservationTests {
    @Test func aSequenceStartsWithTheCurrentStateThenFollowsChangesAndCascades() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try await queue.enqueue(NewJob(kind: "upload", id: "a", maxAttempts: 1))
        try await queue.enqueue(NewJob(kind: "notify", id: "b", dependencies: ["a"]))
        try await queue.enqueue(NewJob(kind: "upload", id: "c"))
        var all = queue.changes().makeAsyncIterator()
        var uploads = queue.changes(.kind("upload")).makeAsyncIterator()
        var onlyB = queue.changes(.id("b")).makeAsyncIterator()
        #expect(await all.next() == .updated(try #require(try queue.job("a"))))
        #expect(await all.next() == .updated(try #require(try queue.job("b"))))
        #expect(await all.next() == .updated(try #require(try queue.job("c"))))
        #expect(await uploads.next().map(Self.id) == "a")
        #expect(await uploads.next().map(Self.id) == "c")
        let blocked = await onlyB.next()
        guard case .updated(let b) = blocked else {
            Issue.record("expected b")
            return
        }
        #expect(b.isBlocked)

        // The stuck upload: a failure with no attempt left, and its dependent cancelled by the cascade.
        let lease = try #require(try await queue.claim())
        guard case .updated(let running) = await all.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(running.id == "a" && running.state == .running)
        try await queue.fail(lease, error: "server said no")
        guard case .updated(let failed) = await all.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(failed.id == "a" && failed.isFailed && failed.lastError == "server said no")
        guard case .updated(let cascaded) = await all.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(cascaded.id == "b" && cascaded.state == .cancelled)
        guard case .updated(let bAgain) = await onlyB.next() else {
            Issue.record("expected b")
            return
        }
        #expect(bAgain.state == .cancelled)

        // Its Retry button.
        try await queue.retry("a")
        guard case .updated(let retried) = await all.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(retried.id == "a" && retried.state == .enqueued && retried.attempts == 0)

        try await queue.delete("c")
        #expect(await all.next() == .removed("c"))
        // uploads: a's claim/fail/retry changes come first, coalesced; then c's removal.
        var seen: [JobChange] = []
        while let change = await uploads.next() {
            seen.append(change)
            if change == .removed("c") { break }
        }
        #expect(seen.last == .removed("c"))
        #expect(!seen.contains { if case .updated(let job) = $0 { return job.kind != "upload" } else { return false } })
        try closeChecked(queue)
        #expect(await all.next() == nil, "the sequence ends when the queue closes")
    }

    /// An observer must never see a state that a crash could undo: a change is delivered only
    /// once the record that made it is durable. Here the enqueue's sync is held open (its record is
    /// appended and applied, as a crash would find it: not yet on stable storage); the observer
    /// must still be waiting for it, not showing job `x`.
    @Test func anObserverSeesAChangeOnlyOnceItsRecordIsDurable() async throws {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        // The blocking part (a held sync, semaphores) runs on a thread of its own, off Swift's pool.
        let outcome = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<HeldSyncOutcome, any Error>) in
            Thread { continuation.resume(with: Result { try Self.observeWhileTheSyncIsHeld() }) }.start()
        }
        #expect(outcome.observerSubscribed, "the observer never started reading")
        #expect(outcome.syncWasHeld, "the enqueue's sync was never held")
        #expect(
            !outcome.sawItEarly,
            "the observer saw \(String(describing: outcome.observed)) while its record was not durable")
        #expect(outcome.observed == outcome.expected.map(JobChange.updated))
    }

    struct HeldSyncOutcome: Sendable {
        var observerSubscribed = false
        var syncWasHeld = false
        var sawItEarly = false
        var observed: JobChange?
        var expected: Job?
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    private static func observeWhileTheSyncIsHeld() throws -> HeldSyncOutcome {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        var configuration = testConfiguration(clock: ManualClock())
        configuration.fileSystem = fileSystem
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        defer { try? closeChecked(queue) }
        var outcome = HeldSyncOutcome()
        let subscribed = DispatchSemaphore(value: 0)
        let observedOne = DispatchSemaphore(value: 0)
        // Signalled by whichever comes first: the observer returning, or the observer waiting behind the held sync.
        let settled = DispatchSemaphore(value: 0)
        let observed = Locked<JobChange?>(nil)
        // The observer runs on an executor of its own, not on Swift's cooperative pool (two threads
        // on two cores): in the suite under the thread sanitizer, the long synchronous tests (the
        // fuzzers, many times slower there) hold every thread of the pool for minutes, and an
        // observer task waiting for one did not subscribe within the hang guard.
        let observer = Task(executorPreference: HoldableTaskExecutor()) {
            var changes = queue.changes().makeAsyncIterator()
            subscribed.signal()
            let change = await changes.next()
            observed.withLock { $0 = change }
            observedOne.signal()
            settled.signal()
        }
        defer { observer.cancel() }
        guard subscribed.wait(timeout: .now() + hangGuard) == .success else { return outcome }
        outcome.observerSubscribed = true
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let enqueued = DispatchSemaphore(value: 0)
        fileSystem.inject(.holdSync(entered: entered, release: release))
        Thread {
            _ = try? queue.enqueue(NewJob(kind: "k", id: "x"))
            enqueued.signal()
        }.start()
        guard entered.wait(timeout: .now() + hangGuard) == .success else {
            release.signal()
            return outcome
        }
        outcome.syncWasHeld = true
        // The record is appended and applied, its sync held. Either the observer returns (it saw a
        // state not yet durable) or it waits behind the sync for the record to be durable (one
        // waiter: the observer, or the enqueue when the observer leads the held sync itself).
        Thread { if queue.engine.writer.waitForWaiters(1, until: .now() + hangGuard) { settled.signal() } }.start()
        _ = settled.wait(timeout: .now() + hangGuard)
        // With the sync still held, the observer has returned only if it showed the change early.
        outcome.sawItEarly = observedOne.wait(timeout: .now()) == .success
        release.signal()
        _ = enqueued.wait(timeout: .now() + hangGuard)
        if !outcome.sawItEarly { _ = observedOne.wait(timeout: .now() + hangGuard) }
        outcome.observed = observed.withLock { $0 }
        outcome.expected = try queue.job("x")
        return outcome
    }

    /// "The sequence ends when … the reading task is cancelled": even while changes keep coming,
    /// so that a cancelled observer of a busy queue does not go on reading it.
    @Test func aSequenceEndsWhenItsTaskIsCancelledEvenWithChangesPending() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: ManualClock()))
        try await queue.enqueue(NewJob(kind: "k", id: "before"))
        let reader = Task {
            var changes = queue.changes().makeAsyncIterator()
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.enqueue(NewJob(kind: "k", id: "after"))
            var seen: [JobChange] = []
            while let change = await changes.next() {
                seen.append(change)
                if seen.count > 2 { break }
            }
            return seen
        }
        let seen = try await reader.value
        #expect(seen == [], "a cancelled reader got \(seen)")
        try closeChecked(queue)
    }

    /// A job dropped by retention (expired by compaction) is reported as removed, by every filter
    /// that followed it; device conditions, kept in memory only, add nothing to the log.
    @Test func anExpiredJobIsReportedAsRemovedAndConditionsAreNotLogged() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try await queue.enqueue(NewJob(kind: "k", id: "old"))
        try await queue.complete(try #require(try await queue.claim()))
        var all = queue.changes().makeAsyncIterator()
        var ofKind = queue.changes(.kind("k")).makeAsyncIterator()
        var one = queue.changes(.id("old")).makeAsyncIterator()
        #expect(await all.next().map(Self.id) == "old")
        #expect(await ofKind.next().map(Self.id) == "old")
        #expect(await one.next().map(Self.id) == "old")
        let lastLSN = queue.engine.writer.lastAppendedLSN
        try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true, isCharging: true))
        #expect(queue.engine.writer.lastAppendedLSN == lastLSN, "reporting conditions appended a record")
        clock.advance(by: 25 * 3600)
        #expect(try await queue.compact().jobsExpired == 1)
        #expect(await all.next() == .removed("old"))
        #expect(await ofKind.next() == .removed("old"))
        #expect(await one.next() == .removed("old"))
        try closeChecked(queue)
    }

    static func id(_ change: JobChange) -> JobID {
        switch change {
        case .updated(let job): return job.id
        case .removed(let id): return id
        }
    }
}

/// Platform hints: one group per network / power need, with the earliest moment of its jobs.
@Suite(.blocking) struct SchedulingHintTests {
    @Test func hintsGroupUnfinishedJobsByWhatThePlatformUnderstands() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let now = clock.now()
        #expect(try queue.schedulingHints().isEmpty)
        let network = JobConstraints(requiresNetwork: true)
        try queue.enqueue(NewJob(kind: "sync", id: "late", delay: 600, constraints: network))
        try queue.enqueue(
            NewJob(kind: "upload", id: "wifi", delay: 300, constraints: JobConstraints(requiresUnmeteredNetwork: true)))
        try queue.enqueue(
            NewJob(
                kind: "index", id: "plugged", delay: 60,
                constraints: JobConstraints(requiresCharging: true, requiresDeviceIdle: true)))
        try queue.enqueue(
            NewJob(
                kind: "after", id: "after", dependencies: ["late"], constraints: JobConstraints(requiresCharging: true))
        )
        try queue.enqueue(NewJob(kind: "plain", id: "overdue", runAt: now.addingTimeInterval(-100)))
        try queue.enqueue(NewJob(kind: "plain", id: "done"))
        try queue.enqueue(NewJob(kind: "plain", id: "gone", maxAttempts: 1))
        try queue.complete(try #require(try queue.claim(kind: "plain")))  // "overdue" succeeds
        try queue.fail(try #require(try queue.claim(kind: "plain")), error: "x")  // "done" retries later
        let hints = try queue.schedulingHints()
        #expect(hints.count == 3)
        #expect(
            hints[0]
                == SchedulingHint(
                    earliestBeginDate: now, requiresNetworkConnectivity: false, requiresExternalPower: false,
                    jobCount: 2, kinds: ["plain"]), "due now at the earliest, never in the past")
        #expect(
            hints[1]
                == SchedulingHint(
                    earliestBeginDate: now.addingTimeInterval(300), requiresNetworkConnectivity: true,
                    requiresExternalPower: false, jobCount: 2, kinds: ["sync", "upload"]))
        #expect(
            hints[2]
                == SchedulingHint(
                    earliestBeginDate: now.addingTimeInterval(60), requiresNetworkConnectivity: false,
                    requiresExternalPower: true, jobCount: 2, kinds: ["index", "after"]))
        try closeChecked(queue)
    }
}
