import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Time and deadline arithmetic: Millis round trips, backoff bounds, periodic windows, extreme values.
@Suite(.blocking) struct TimeArithmeticTests {
    /// A whole-millisecond instant after 2038 (seconds since 1970 ≥ 2^31) whose `Date` does not give
    /// back its milliseconds by `timeIntervalSince1970 * 1000` rounded down.
    static let awkwardMillis: Int64 = 2_163_140_617_568

    @Test func wholeMillisecondDatesRoundTrip() {
        var generator = SeededGenerator(seed: 0x5EED)
        var failures: [Int64] = []
        for millis in [Self.awkwardMillis, 1_094_217_704_297, 320_072_223_563, -7_861_493_285_255] {
            if Millis.from(Millis.date(millis)) != millis { failures.append(millis) }
        }
        for _ in 0..<200_000 {
            let millis = Int64(bitPattern: generator.next() % 500_000_000_000_000) - 250_000_000_000_000 + 1
            if Millis.from(Millis.date(millis)) != millis { failures.append(millis) }
        }
        #expect(
            failures.count == 0, "\(failures.count) whole milliseconds do not round trip, e.g. \(failures.prefix(3))")
        // Sub-millisecond instants still round down (a job is never due before the millisecond it names).
        #expect(Millis.from(Date(timeIntervalSince1970: 1_800_000_000.0009)) == 1_800_000_000_000)
        #expect(Millis.from(Date(timeIntervalSince1970: -0.0005)) == -1)
    }

    @Test func aJobIsNotDueAMillisecondBeforeItsRunAt() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let runAt = Millis.date(Self.awkwardMillis)
        let clock = ManualClock(start: runAt.addingTimeInterval(-60))
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let id = try queue.enqueue(NewJob(kind: "k", runAt: runAt))
        #expect(try queue.job(id)?.runAt == runAt, "the run time given is the run time kept")
        let deadline = try #require(try queue.nextDeadline())
        #expect(deadline == runAt)
        #expect(try queue.readyJobs(at: deadline).map(\.id) == [id], "due at the deadline the queue reports")
        clock.setWallClock(Millis.date(Self.awkwardMillis - 1))
        #expect(try queue.claim() == nil, "not due a millisecond early")
        clock.setWallClock(runAt)
        #expect(try queue.claim()?.job.id == id)
        try closeChecked(queue)
    }

    @Test func hugeBackoffDelaysDoNotTrap() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = semanticsConfiguration(clock)
        configuration.retryPolicy = .exponential(base: 1, factor: 10, maximum: .infinity, maxAttempts: 100)
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        let id = try queue.enqueue(NewJob(kind: "k"))
        var last = Millis.from(clock.now())
        for attempt in 1...40 {
            let lease = try #require(try queue.claim(), "attempt \(attempt)")
            let failed = try queue.fail(lease, error: "no")
            let retryAt = try #require(failed.nextRetryAt)
            #expect(Millis.isRepresentable(retryAt))
            #expect(Millis.from(retryAt) >= last)
            last = Millis.from(retryAt)
            clock.setWallClock(retryAt)
        }
        #expect(try queue.job(id)?.attempts == 40)
        try closeChecked(queue)
    }

    @Test func backoffStaysInItsDocumentedRange() {
        var generator = SeededGenerator(seed: 42)
        // Table: indexed by the attempt that failed, the last entry repeating.
        let table = RetryPolicy.table([1, 2, 3])
        #expect((1...6).map { table.delay(afterFailedAttempt: $0, unitRandom: 0.5) } == [1, 2, 3, 3, 3, 3])
        #expect(RetryPolicy.default.delay(afterFailedAttempt: 1, unitRandom: 0) == 5)
        #expect(RetryPolicy.default.delay(afterFailedAttempt: 5, unitRandom: 0) == 405)
        for _ in 0..<20_000 {
            let base = Double(generator.next() % 1000) / 10
            let factor = 1 + Double(generator.next() % 1_000_000) / 100
            let maximum = base + Double(generator.next() % 100_000)
            let jitter = Double(generator.next() % 101) / 100
            let attempt = Int(generator.next() % UInt64(JobLimits.maxAttempts)) + 1
            let unit = Double(generator.next() >> 11) / Double(1 << 53)
            let policy = RetryPolicy.exponential(base: base, factor: factor, maximum: maximum, jitter: jitter)
            let delay = policy.delay(afterFailedAttempt: attempt, unitRandom: unit)
            let raw = base == 0 ? 0 : min(maximum, base * pow(factor, Double(attempt - 1)))
            #expect(delay.isFinite && delay >= 0 && delay <= maximum)
            #expect(delay >= raw * (1 - jitter) - 1e-9 * raw, "base \(base) factor \(factor) attempt \(attempt)")
        }
        // The exponent is not cut at 1000: a slow factor still reaches its documented value.
        let slow = RetryPolicy.exponential(base: 1, factor: 1.001, maximum: 3600, maxAttempts: 10_000)
        #expect(abs(slow.delay(afterFailedAttempt: 5001, unitRandom: 0.5) - pow(1.001, 5000)) < 1e-6)
        // A zero base stays zero whatever the factor (0 × ∞ is not the maximum).
        let zero = RetryPolicy.exponential(base: 0, factor: 1e10, maximum: 60)
        #expect(zero.delay(afterFailedAttempt: 100, unitRandom: 0.5) == 0)
    }

    @Test func periodicNextRunIsTheFirstWindowAfterNow() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<50_000 {
            let interval = Int64(900_000 + generator.next() % 999_999_000_000)
            let flex =
                generator.next() % 2 == 0
                ? 0 : Int64(300_000) + Int64(generator.next() % UInt64(interval - 300_000 + 1))
            let anchor = Int64(generator.next() % 400_000_000_000_000) - 200_000_000_000_000
            let now = Int64(generator.next() % 400_000_000_000_000) - 200_000_000_000_000
            let periodic = StoredPeriodic(interval: interval, flex: flex, anchor: anchor, occurrence: 1)
            let next = periodic.nextRunAt(after: now)
            #expect(next > now)
            let k = (next + flex - anchor) / interval
            #expect(k >= 1 && anchor + k * interval - flex == next, "on a window start")
            #expect(k == 1 || next - interval <= now, "the first such window")
        }
    }
}

@Suite(.blocking) struct ManualClockRangeTests {
    /// Advancing the test clock to a far deadline (a retry thousands of years out) must not trap,
    /// nor leave a monotonic reading that a lease expiry overflows from.
    @Test func advancingFarDoesNotTrap() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        let id = try queue.enqueue(NewJob(kind: "k", delay: 9e10))
        clock.advance(to: try #require(try queue.nextDeadline()))
        clock.advance(by: 1e11)
        let lease = try #require(try queue.claim(leaseDuration: 9e8))
        #expect(lease.job.id == id)
        try closeChecked(queue)
    }
}
