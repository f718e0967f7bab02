#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
}

/// A clock that moves only when told to, for tests and demonstrations.
///
/// ``advance(by:)`` moves both the wall clock and the monotonic clock;
/// ``setWallClock(_:)`` moves the wall clock alone, as a user changing the time
/// would; ``reboot()`` starts a new boot.
public final class ManualClock: SpoolClock, @unchecked Sendable {
    // @unchecked: every stored property is read and written under `lock`.
    private let lock = Lock()
    private var wall: Date
    private var monotonic: UInt64
    private var boot: String
    private var boots = 0

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

    /// Moves both clocks forward by `seconds`.
    public func advance(by seconds: TimeInterval) {
        precondition(seconds >= 0, "a clock advances forward")
        lock.withLock {
            wall = wall.addingTimeInterval(seconds)
            monotonic += UInt64((seconds * 1e9).rounded())
        }
    }

    /// Sets the wall clock alone, as when a person changes the time.
    public func setWallClock(_ date: Date) { lock.withLock { wall = date } }

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

    /// A date in milliseconds, clamped to the representable range.
    static func from(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970 * 1000
        guard value.isFinite else { return value > 0 ? Int64(limit) : -Int64(limit) }
        return Int64(min(max(value, -limit), limit).rounded(.down))
    }
    static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
    static func from(seconds: TimeInterval) -> Int64 {
        Int64((seconds * 1000).rounded())
    }
}
