/// Why a job's last attempt ended (``Job/lastStopReason``): recorded with the end of every attempt,
/// durable, kept by compaction.
///
/// Three reasons are interruptions by the app or the system: ``runnerStopped`` (when the runner
/// gave the attempt back, ``JobRunner/StopMode/releaseRunning``), ``systemTimeExpired`` and
/// ``constraintsUnmet``. An attempt they end is *released* (``JobQueue/release(_:reason:)-8hql8``): it is
/// given back, so an upload the system interrupted does not spend its retry budget. A crash never
/// gives one back (``orphaned``, ``leaseExpired``): a job that crashes its process spends an attempt
/// each time, so a crash loop ends.
public enum StopReason: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The handler returned: the job succeeded.
    case succeeded
    /// The handler threw (or the app failed the lease): a retryable or terminal failure.
    case failed
    /// The kind's ``JobRunner/KindOptions/timeout`` passed: a retryable failure.
    case timedOut
    /// The job was cancelled (or replaced by a unique key) while it ran.
    case cancelled
    /// The lease expired without a result: reclaimed, the attempt spent.
    case leaseExpired
    /// The process ended while the job ran (found running at open): reclaimed, the attempt spent.
    case orphaned
    /// The runner was stopped while the job ran. Given back by ``JobRunner/StopMode/releaseRunning``;
    /// counted as a failure by ``JobRunner/StopMode/cancelRunning``.
    case runnerStopped
    /// The system's background time ran out (``JobRunner/expire()``, from a background task's
    /// expiration handler): the attempt is given back.
    case systemTimeExpired
    /// The job's ``JobConstraints`` stopped holding while it ran (the network went away): the
    /// attempt is given back, and the job runs again once they hold.
    case constraintsUnmet
    /// The handler asked to run again later (``JobSnooze``).
    case snoozed

    /// Whether an attempt ended for this reason may be given back (``JobQueue/release(_:reason:)-8hql8``):
    /// an interruption by the app or the system, not a result and not a crash.
    public var isInterruption: Bool {
        switch self {
        case .runnerStopped, .systemTimeExpired, .constraintsUnmet: return true
        default: return false
        }
    }

    /// The reason in a few words, as `spool show` prints it ("timed out", "system time expired").
    public var description: String {
        switch self {
        case .succeeded: return "succeeded"
        case .failed: return "failed"
        case .timedOut: return "timed out"
        case .cancelled: return "cancelled"
        case .leaseExpired: return "lease expired"
        case .orphaned: return "orphaned"
        case .runnerStopped: return "runner stopped"
        case .systemTimeExpired: return "system time expired"
        case .constraintsUnmet: return "constraints unmet"
        case .snoozed: return "snoozed"
        }
    }
}

/// What a snooze does with the attempt it ends (``JobSnooze``, ``JobQueue/snooze(_:until:attempt:)-6a5pj``).
public enum SnoozeAttempt: Sendable, Hashable, CaseIterable {
    /// The attempt is given back: it does not count against ``Job/maxAttempts`` (the default,
    /// River's snooze).
    case giveBack
    /// The attempt stays counted, but the snooze never ends the job: it runs again at the time.
    ///
    /// Except on the job's last attempt (``Job/attempts`` equal to ``Job/maxAttempts``): a claim
    /// counts its attempt before the work starts, and never past the budget, so the snooze gives that
    /// attempt back — ``Job/attempts`` reads one less — and the claim that runs the job again counts
    /// it once more: the next run is that last attempt again, and a failure then ends the job. With
    /// `maxAttempts: 2`: claim (1), snooze, claim (2), snooze → 1, claim (2), fail → failed. (Keeping
    /// the count at 2 would make the next claim count a third attempt of two; ending the job is what
    /// ``count`` does.)
    case keep
    /// The attempt stays counted and is judged like a failure's: when it was the job's last, the
    /// job ends ``JobState/failed`` ("snoozed with no attempt left") instead of running again.
    case count
}
