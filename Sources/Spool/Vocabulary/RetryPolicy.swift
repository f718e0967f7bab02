/// How long a job waits after a failed attempt, and how many attempts it gets.
///
/// The delay is indexed by the attempt that failed: after the first failure a
/// job waits `delays[0]`, after the second `delays[1]`, and so on (the last
/// entry repeats). Once a job has used `maxAttempts` attempts, a failure ends it
/// in ``JobState/failed`` with no deadline, waiting for a manual retry.
///
/// The factories never trap: a policy built from bad arguments (say, from remote
/// configuration) is refused where it is used — opening a ``JobQueue`` whose
/// ``Configuration/retryPolicy`` it is throws ``SpoolError/Code/invalidArgument``
/// naming the rule, before the directory is touched. ``validate()`` checks one beforehand.
public struct RetryPolicy: Sendable, Equatable {
    enum Schedule: Sendable, Equatable {
        case table([TimeInterval])
        case exponential(base: TimeInterval, factor: Double, maximum: TimeInterval, jitter: Double)
    }

    let schedule: Schedule
    /// The attempts a job gets unless it sets its own maximum (as given to the factory, valid or not).
    public let maxAttempts: Int

    /// 5 attempts, 5 s, 15 s, 45 s and 135 s after the first four failures (the table's fifth step,
    /// 405 s, is never reached: the fifth failure ends the job): short enough that a brief outage
    /// recovers quickly, long enough that a long one does not spin.
    public static let `default` = RetryPolicy(schedule: .table([5, 15, 45, 135, 405]), maxAttempts: 5)

    /// A fixed table of delays in seconds, indexed by the attempt that failed.
    ///
    /// Valid when `delays` holds at least one delay, each finite and not negative, and the attempts
    /// are from 1 to ``JobLimits/maxAttempts``; otherwise the policy is refused where it is used
    /// (see ``validate()``). A delay longer than about 3,000 years is cut to that.
    ///
    /// - Parameters:
    ///   - delays: One or more non-negative delays; the last repeats.
    ///   - maxAttempts: Attempts per job; defaults to the number of delays.
    public static func table(_ delays: [TimeInterval], maxAttempts: Int? = nil) -> RetryPolicy {
        RetryPolicy(schedule: .table(delays), maxAttempts: maxAttempts ?? delays.count)
    }

    /// `base × factor^(attempt − 1)`, capped at `maximum`, then spread by
    /// ± `jitter` (a fraction from 0 to 1) of itself so that many clients do not retry in step.
    ///
    /// Valid when `base` is finite and not negative, `factor` finite and at least 1, `maximum`
    /// at least `base` (infinity: no cap but the longest delay, about 3,000 years), `jitter` from
    /// 0 to 1 and `maxAttempts` from 1 to ``JobLimits/maxAttempts``; otherwise the policy is
    /// refused where it is used (see ``validate()``).
    public static func exponential(
        base: TimeInterval, factor: Double = 2, maximum: TimeInterval = 3600,
        jitter: Double = 0, maxAttempts: Int = 10
    ) -> RetryPolicy {
        RetryPolicy(
            schedule: .exponential(base: base, factor: factor, maximum: maximum, jitter: jitter),
            maxAttempts: maxAttempts)
    }

    /// Checks the policy against the rules of ``table(_:maxAttempts:)`` and
    /// ``exponential(base:factor:maximum:jitter:maxAttempts:)``. Opening a queue calls it.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` naming the first rule the policy breaks.
    public func validate() throws {
        switch schedule {
        case .table(let delays):
            guard !delays.isEmpty else { throw SpoolError.invalidArgument("a retry table needs at least one delay") }
            guard delays.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
                throw SpoolError.invalidArgument(
                    "every delay of a retry table must be a finite number of seconds, not negative")
            }
        case .exponential(let base, let factor, let maximum, let jitter):
            guard base >= 0, base.isFinite else {
                throw SpoolError.invalidArgument(
                    "an exponential retry base must be a finite number of seconds, not negative")
            }
            guard factor >= 1, factor.isFinite else {
                throw SpoolError.invalidArgument("an exponential retry factor must be a finite number, at least 1")
            }
            guard maximum >= base else {
                throw SpoolError.invalidArgument("an exponential retry maximum must be at least its base")
            }
            guard (0...1).contains(jitter) else {
                throw SpoolError.invalidArgument("an exponential retry jitter must be from 0 to 1")
            }
        }
        guard (1...JobLimits.maxAttempts).contains(maxAttempts) else {
            throw SpoolError.invalidArgument("a retry policy's maxAttempts must be from 1 to \(JobLimits.maxAttempts)")
        }
    }

    /// The delay after attempt number `attempt` (1 for the first) failed.
    /// `unitRandom` is a number in 0 ..< 1 used for jitter.
    /// Delays are cut to ``longestDelay``. Only for a policy that passed ``validate()`` (open checks it).
    func delay(afterFailedAttempt attempt: Int, unitRandom: Double) -> TimeInterval {
        schedule.delay(afterFailedAttempt: attempt, unitRandom: unitRandom)
    }

    /// The longest delay a policy gives, in seconds (about 3,000 years, the limit of `NewJob.delay`):
    /// a longer table entry or exponential maximum is cut to it, so that a deadline stays representable.
    static let longestDelay: TimeInterval = 1e11
}

extension RetryPolicy.Schedule {
    /// The delay after attempt number `attempt` (1 for the first) failed; see ``RetryPolicy/delay(afterFailedAttempt:unitRandom:)``.
    func delay(afterFailedAttempt attempt: Int, unitRandom: Double) -> TimeInterval {
        let index = max(attempt, 1) - 1
        switch self {
        case .table(let delays):
            return min(delays[min(index, delays.count - 1)], RetryPolicy.longestDelay)
        case .exponential(let base, let factor, let maximum, let jitter):
            let cap = min(maximum, RetryPolicy.longestDelay)
            // factor^index may overflow to infinity: the cap takes over (and a zero base stays zero).
            let raw = base == 0 ? 0 : min(cap, base * Platform.power(factor, Double(index)))
            let spread = raw * jitter * (2 * unitRandom - 1)
            return min(cap, max(0, raw + spread))
        }
    }
}

/// The limits that arguments are checked against.
public enum JobLimits {
    /// The longest job id, in UTF-8 bytes.
    public static let maxIDBytes = 200
    /// The longest kind, in UTF-8 bytes.
    public static let maxKindBytes = 200
    /// The longest unique key, in UTF-8 bytes.
    public static let maxUniqueKeyBytes = 500
    /// The most attempts a job may be given.
    public static let maxAttempts = 10_000
    /// Error messages longer than this many UTF-8 bytes are cut.
    public static let maxErrorBytes = 4096
    /// The largest payload a queue may be configured to accept.
    public static let maxPayloadBytes = 16 << 20
}
