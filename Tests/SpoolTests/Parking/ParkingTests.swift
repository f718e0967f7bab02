import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Parked jobs (#17 item 1): a running job waiting for an external completion by key, with a
/// deadline. Not an orphan at open, not reclaimed before its deadline, its attempt counted once,
/// completed or failed by key from any later process, reconciled at launch, kept by compaction.
@Suite(.blocking) struct ParkingTests {
    /// A queue on a manual clock in a temporary directory.
    struct Fixture {
        let temp = TemporaryDirectory("spool-park")
        let clock = ManualClock()
        var configuration: Configuration

        init(maxAttempts: Int = 3) {
            configuration = testConfiguration(clock: clock)
            configuration.retryPolicy = .exponential(base: 10, maximum: 10, maxAttempts: maxAttempts)
            configuration.runningJobsAtOpen = .reclaim
        }

        func open() throws -> JobQueue { try JobQueue(directory: temp.queue, configuration: configuration) }
    }

    @Test(.onThePool) func aParkedJobSurvivesReopenWithoutBeingReclaimedAndCompletesByKeyInALaterProcess() async throws
    {
        let fixture = Fixture()
        defer { fixture.temp.cleanup() }
        var queue = try await JobQueue.open(directory: fixture.temp.queue, configuration: fixture.configuration)
        try await queue.enqueue(NewJob(kind: "upload", id: "u1"))
        let lease = try #require(try await queue.claim(leaseDuration: 60))
        let deadline = fixture.clock.now().addingTimeInterval(3600)
        let parked = try await queue.park(lease, key: "session:7", deadline: deadline)
        #expect(parked.state == .running && parked.parkedKey == "session:7" && parked.attempts == 1)
        #expect(parked.parkDeadline == Millis.date(Millis.from(deadline)))
        try closeChecked(queue)

        // A later launch, past the lease but before the deadline: no orphan, no reclaim.
        fixture.clock.advance(by: 600)
        queue = try await JobQueue.open(directory: fixture.temp.queue, configuration: fixture.configuration)
        #expect(queue.recoveryReport.reclaimedJobs.isEmpty)
        #expect(try await queue.reclaimExpiredLeases().isEmpty)
        #expect(try await queue.claim() == nil)
        #expect(try queue.parkedJobs().map(\.id) == ["u1"])
        let done = try await queue.completeParked(key: "session:7")
        #expect(done.state == .succeeded && done.attempts == 1 && done.parkedKey == nil)
        #expect(try queue.parkedJobs().isEmpty)
        await expectError(.jobNotFound) { try await queue.completeParked(key: "session:7") }
        try closeChecked(queue)
    }

    @Test func aParkedJobPastItsDeadlineGoesBackByTheRetryPolicyAtOpenAndAtAClaim() throws {
        let fixture = Fixture()
        defer { fixture.temp.cleanup() }
        var queue = try fixture.open()
        try queue.enqueue(NewJob(kind: "upload", id: "u1"))
        try queue.enqueue(NewJob(kind: "upload", id: "u2"))
        let first = try #require(try queue.claim())
        try queue.park(first, key: "a", deadline: fixture.clock.now().addingTimeInterval(100))
        let second = try #require(try queue.claim())
        try queue.park(second, key: "b", deadline: fixture.clock.now().addingTimeInterval(1000))
        // Before the deadline a reclaim is refused by the state's rule itself (the one replay uses).
        let early = queue.engine.stateSnapshot.refusal(
            of: .reclaim(id: "u1", at: Millis.from(fixture.clock.now()), reason: "x", nextRetryAt: nil))
        #expect(early == .parkDeadlineHolds(id: "u1"))
        fixture.clock.advance(by: 100)
        #expect(try queue.reclaimExpiredLeases() == ["u1"])
        let back = try #require(try queue.job("u1"))
        #expect(back.state == .enqueued && back.parkedKey == nil && back.nextRetryAt != nil)
        #expect(back.lastError == QueueEngine.parkDeadlineReason)
        try closeChecked(queue)
        fixture.clock.advance(by: 900)
        queue = try fixture.open()
        #expect(queue.recoveryReport.reclaimedJobs == ["u2"])
        #expect(try queue.job("u2")?.state == .enqueued)
        try closeChecked(queue)
    }

    @Test func reconcileFailsByPolicyTheJobsWhoseKeysTheSystemNoLongerHas() throws {
        let fixture = Fixture(maxAttempts: 1)
        defer { fixture.temp.cleanup() }
        let queue = try fixture.open()
        for id in ["a", "b", "c"] { try queue.enqueue(NewJob(kind: "upload", id: JobID(id))) }
        var leases: [Lease] = []
        while let lease = try queue.claim() { leases.append(lease) }
        for lease in leases {
            try queue.park(lease, key: "key-" + lease.job.id.rawValue, deadline: .distantFuture)
        }
        let failed = try queue.reconcileParked(stillPending: ["key-b"])
        #expect(failed.map(\.id) == ["a", "c"])
        // One attempt each, spent: failed for good; b still waits.
        #expect(failed.allSatisfy { $0.state == .failed && $0.attempts == 1 })
        #expect(try queue.parkedJobs().map(\.parkedKey) == ["key-b"])
        #expect(try queue.reconcileParked(stillPending: ["key-b"]).isEmpty)
        let b = try queue.failParked(key: "key-b", error: "HTTP 500", terminal: true)
        #expect(b.state == .failed && b.lastError == "HTTP 500")
        try closeChecked(queue)
    }

    /// A deadline not after now is refused and spends nothing (issue #34 item 8); a duration counts on the
    /// queue's clock, from `JobQueue.park(_:key:for:)` and from a handler's `JobContext.park(key:for:)`,
    /// whose `clock` is the queue's.
    @Test func aParkDeadlineNotAfterNowIsRefusedAndADurationCountsOnTheQueuesClock() throws {
        let fixture = Fixture()
        defer { fixture.temp.cleanup() }
        let queue = try fixture.open()
        try queue.enqueue(NewJob(kind: "upload", id: "u1"))
        let lease = try #require(try queue.claim(leaseDuration: 60))
        for deadline in [fixture.clock.now(), fixture.clock.now().addingTimeInterval(-1)] {
            expectError(.invalidArgument) { try queue.park(lease, key: "k", deadline: deadline) }
        }
        expectError(.invalidArgument) { try queue.park(lease, key: "k", for: 0) }
        let job = try #require(try queue.job("u1"))
        #expect(job.state == .running && job.attempts == 1 && job.parkedKey == nil, "nothing spent, nothing parked")
        let parked = try queue.park(lease, key: "k", for: 3600)
        #expect(parked.parkDeadline == fixture.clock.now().addingTimeInterval(3600))
        try closeChecked(queue)
    }

    /// A context built for a test gives the clock it was given, and parks for a duration on it.
    @Test(.onThePool) func aTestsContextParksForADurationOnItsClock() async throws {
        let manual = ManualClock(start: Date(timeIntervalSince1970: 5_000))
        let asked = Locked<Date?>(nil)
        let context = JobContext(
            job: Job(kind: "upload", state: .running, attempts: 1),
            park: { _, deadline in asked.withLock { $0 = deadline } }, clock: manual)
        #expect(context.clock.now() == manual.now())
        await #expect(throws: JobParked.self) { try await context.park(key: "k2", for: 60) }
        #expect(asked.withLock { $0 } == manual.now().addingTimeInterval(60))
    }

    @Test func keysAreUniqueAmongParkedJobsAndAJobParksOnce() throws {
        let fixture = Fixture()
        defer { fixture.temp.cleanup() }
        let queue = try fixture.open()
        try queue.enqueue(NewJob(kind: "upload", id: "a"))
        try queue.enqueue(NewJob(kind: "upload", id: "b"))
        let a = try #require(try queue.claim())
        let b = try #require(try queue.claim())
        try queue.park(a, key: "k", deadline: .distantFuture)
        expectError(.parkKeyConflict) { try queue.park(b, key: "k", deadline: .distantFuture) }
        expectError(.invalidState) { try queue.park(a, key: "other", deadline: .distantFuture) }
        expectError(.invalidArgument) { try queue.park(b, key: "", deadline: .distantFuture) }
        expectError(.invalidArgument) {
            try queue.park(
                b, key: String(repeating: "x", count: JobLimits.maxParkKeyBytes + 1), deadline: .distantFuture)
        }
        // Once the holder completes, the key is free again.
        try queue.completeParked(key: "k")
        try queue.park(b, key: "k", deadline: .distantFuture)
        // A cancel ends the park (and frees the key).
        try queue.cancel("b")
        #expect(try queue.parkedJobs().isEmpty)
        #expect(queue.engine.stateSnapshot.parkedKeys.isEmpty)
        try closeChecked(queue)
    }

    @Test func compactionKeepsTheParkAndTheRecordIsBodyVersionFive() throws {
        let fixture = Fixture()
        defer { fixture.temp.cleanup() }
        var queue = try fixture.open()
        try queue.enqueue(NewJob(kind: "upload", id: "a"))
        let lease = try #require(try queue.claim())
        try queue.park(lease, key: "k", deadline: fixture.clock.now().addingTimeInterval(50))
        _ = try queue.compact()
        try closeChecked(queue)
        fixture.clock.advance(by: 10)
        queue = try fixture.open()
        let job = try #require(try queue.job("a"))
        #expect(job.parkedKey == "k" && job.state == .running)
        try queue.completeParked(key: "k")
        try closeChecked(queue)
        #expect(TransactionCodec.Opcode.park.minimumBodyVersion == 5)
    }
}

/// A parked job asks for no launch before its deadline (issue #34 item 3): its moment in the scheduling
/// hints is its park's deadline, and so is that of the jobs waiting for it.
@Suite(.blocking) struct ParkedSchedulingTests {
    @Test func aQueueWhoseOnlyWorkIsParkedAsksForNoLaunchBeforeTheDeadline() throws {
        let temp = TemporaryDirectory("spool-park-hints")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let upload = try queue.enqueue(NewJob(kind: "upload", id: "u"))
        try queue.enqueue(NewJob(kind: "report", id: "r", dependencies: [upload]))
        let lease = try #require(try queue.claim(kind: "upload"))
        #expect(try queue.nextProcessingHint()?.earliestBeginDate == clock.now(), "running: now")
        try queue.park(lease, key: "transfer-u", for: 3600)
        let deadline = clock.now().addingTimeInterval(3600)
        #expect(try queue.nextProcessingHint()?.earliestBeginDate == deadline)
        #expect(try queue.schedulingHints().map(\.earliestBeginDate) == [deadline], "the dependent waits with it")
        // Other work due now asks for now.
        try queue.enqueue(NewJob(kind: "other", id: "o"))
        #expect(try queue.nextProcessingHint()?.earliestBeginDate == clock.now())
        try closeChecked(queue)
    }
}
