/// The source of time for a queue: wall-clock time for deadlines and records,
/// a monotonic clock and a boot identifier for leases.
///
/// Production code uses ``SystemClock``; tests and demos inject a ``ManualClock``
/// and move it by hand, so that no test ever sleeps.
public protocol SpoolClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
    /// Nanoseconds on a clock that never goes backwards within one boot.
    func monotonicNanoseconds() -> UInt64
    /// Identifies the current boot; monotonic readings from another boot are not comparable.
    func bootIdentifier() -> String
    /// Suspends until ``now()`` shows `deadline` or later.
    ///
    /// A deadline is a wall-clock instant, as every deadline in the log is: when
    /// the wall clock jumps forward past it the sleep ends, when it jumps back the
    /// sleep goes on. The worker runtime sleeps here until a job's next deadline.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Date) async throws
}

extension SpoolClock {
    /// Sleeps in real time, re-reading ``now()`` at least every
    /// ``SystemClock/wallClockCheckInterval`` seconds so that a change of the wall
    /// clock is noticed: the default for clocks that follow real time.
    public func sleep(until deadline: Date) async throws {
        while true {
            let remaining = deadline.timeIntervalSince(now())
            if remaining <= 0 { return }
            let slice = min(remaining, SystemClock.wallClockCheckInterval)
            try await Task.sleep(nanoseconds: UInt64((slice * 1e9).rounded(.up)))
        }
    }
}

/// The system's clocks.
public struct SystemClock: SpoolClock {
    private static let boot = Platform.bootIdentifier()

    /// Creates the system clock.
    public init() {}
    /// The current wall-clock time.
    public func now() -> Date { Date() }
    /// The platform's monotonic clock, counting through sleep.
    public func monotonicNanoseconds() -> UInt64 { Platform.monotonicNanoseconds() }
    /// The system's boot identifier.
    public func bootIdentifier() -> String { Self.boot }

    /// The longest a real-time sleep goes without re-reading the wall clock, in
    /// seconds: a person changing the time moves a sleeping runtime's wake-up by at
    /// most this much. (The platform's sleep follows a monotonic clock, not the wall
    /// clock, and on some platforms not the time the device spends asleep.)
    public static let wallClockCheckInterval: TimeInterval = 60
}

/// A clock that moves only when told to, for tests and demonstrations.
///
/// ``advance(by:)`` moves both the wall clock and the monotonic clock;
/// ``setWallClock(_:)`` moves the wall clock alone, as a user changing the time
/// would; ``reboot()`` starts a new boot. A task in ``sleep(until:)`` wakes when
/// one of them moves the wall clock to its deadline or past it, never otherwise.
public final class ManualClock: SpoolClock, @unchecked Sendable {
    // @unchecked: every stored property is read and written under `lock`.
    private let lock = Lock()
    private var wall: Date
    private var monotonic: UInt64
    private var boot: String
    private var boots = 0
    /// Tasks in `sleep(until:)`, by a number given when they started.
    private var sleepers: [UInt64: Sleeper] = [:]
    private var sleeperCount: UInt64 = 0

    private struct Sleeper {
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// Creates a clock showing `start`, at monotonic reading 1 s, in boot `boot-0`.
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        wall = start
        monotonic = 1_000_000_000
        boot = "boot-0"
    }

    /// The clock's wall-clock time.
    public func now() -> Date { lock.withLock { wall } }
    /// The clock's monotonic reading.
    public func monotonicNanoseconds() -> UInt64 { lock.withLock { monotonic } }
    /// The clock's boot identifier.
    public func bootIdentifier() -> String { lock.withLock { boot } }

    /// Moves both clocks forward by `seconds`, waking the sleepers whose deadline it reaches.
    public func advance(by seconds: TimeInterval) {
        precondition(seconds >= 0, "a clock advances forward")
        wake(
            lock.withLock {
                wall = wall.addingTimeInterval(seconds)
                // Saturates at 2^62 ns (146 years), far below where a lease expiry added to it would overflow.
                monotonic = min(monotonic + UInt64(min(seconds * 1e9, 4e18).rounded()), 1 << 62)
                return dueSleepers()
            })
    }

    /// Moves both clocks forward to the wall-clock time `date` (no move if it is earlier).
    public func advance(to date: Date) {
        advance(by: max(0, date.timeIntervalSince(now())))
    }

    /// Sets the wall clock alone, as when a person changes the time; a jump forward
    /// wakes the sleepers whose deadline it passes, a jump back wakes none.
    public func setWallClock(_ date: Date) {
        wake(
            lock.withLock {
                wall = date
                return dueSleepers()
            })
    }

    /// Suspends until ``advance(by:)`` or ``setWallClock(_:)`` moves the wall
    /// clock to `deadline` or past it; returns at once if it is there already.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func sleep(until deadline: Date) async throws {
        let number = lock.withLock { () -> UInt64 in
            sleeperCount += 1
            return sleeperCount
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = lock.withLock { () -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if wall >= deadline { return .success(()) }
                    sleepers[number] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: number) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The deadlines of the tasks sleeping on this clock, earliest first.
    public var sleepingDeadlines: [Date] {
        lock.withLock { sleepers.values.map(\.deadline).sorted() }
    }

    /// Removes and returns the sleepers whose deadline the wall clock has reached. Call with `lock` held.
    private func dueSleepers() -> [CheckedContinuation<Void, any Error>] {
        let due = sleepers.filter { $0.value.deadline <= wall }
        for number in due.keys { sleepers[number] = nil }
        return due.values.map(\.continuation)
    }

    /// Resumes sleepers, outside the lock.
    private func wake(_ continuations: [CheckedContinuation<Void, any Error>]) {
        for continuation in continuations { continuation.resume() }
    }

    /// Simulates a reboot: a new boot identifier and a monotonic clock restarted near zero.
    public func reboot() {
        lock.withLock {
            boots += 1
            boot = "boot-\(boots)"
            monotonic = 1_000_000_000
        }
    }
}

/// Milliseconds since 1970, the unit Spool stores times in.
enum Millis {
    /// About ±8000 years around 1970: far inside Int64 milliseconds.
    private static let limit: Double = 250_000_000_000_000

    /// Whether a date can be stored (finite, within years 1 to 9999 or so).
    static func isRepresentable(_ date: Date) -> Bool {
        let value = date.timeIntervalSince1970 * 1000
        return value.isFinite && abs(value) < limit
    }

    /// The latest instant ``isRepresentable(_:)`` accepts, in milliseconds.
    static let latest = Int64(limit) - 1

    /// A date in milliseconds, clamped to the representable range: rounded down (a job is
    /// never due before the millisecond it names), except that a value within a few units in
    /// the last place of a whole millisecond is that millisecond. `Date` keeps seconds since
    /// 2001, so `date(_:)` of a whole millisecond can read back a hair below it (about one
    /// millisecond in 170 after 2038): rounding that down would make the instant the queue
    /// reports as a deadline one millisecond before the deadline it keeps.
    static func from(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970 * 1000
        guard !value.isNaN else { return -Int64(limit) }
        let clamped = min(max(value, -limit), limit)
        let nearest = clamped.rounded()
        if abs(clamped - nearest) <= max(0.001, 4 * clamped.magnitude.ulp) { return Int64(nearest) }
        return Int64(clamped.rounded(.down))
    }
    static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
    /// Seconds in milliseconds, rounded, clamped to ± the representable range (never a trap).
    static func from(seconds: TimeInterval) -> Int64 {
        let value = seconds * 1000
        guard !value.isNaN else { return 0 }
        return Int64(min(max(value, -limit), limit).rounded())
    }
}
