/// A registered handler, taking the raw payload (typed handlers decode it first).
struct Registration: Sendable {
    let options: JobRunner.KindOptions
    let run: @Sendable (Data, JobContext) async throws -> Void
}

/// A handler's payload that does not decode: a terminal failure.
struct UndecodablePayload: Error, CustomStringConvertible {
    let kind: String
    let underlying: any Error
    var description: String { "undecodable payload: the parameters of kind \(kind) do not decode: \(underlying)" }
}

/// A claimed job while the runner works on it.
struct Execution: Sendable {
    /// The lease (renewals move its expiry; the token stays): the newest term granted, by
    /// ``termLSN``, whichever of the claim, the runner's renewals and the handler's came back last.
    var lease: Lease
    /// How long the lease's current term is, in seconds: what its claim or latest renewal asked for.
    var term: TimeInterval
    /// The LSN of the record that granted the current term (0 for the claim): a renewal with an
    /// older record, returning after a newer one, does not replace it.
    var termLSN: UInt64 = 0
    /// After a renewal the queue refused (it refuses writes), when to try again instead.
    var renewalRetryAt: Date?
    var kind: String
    /// The kind's timeout when the attempt started, and when the attempt times out.
    var timeout: TimeInterval?
    var timeoutAt: Date?
    /// Set once the attempt's outcome is settled — being recorded, or not to be
    /// recorded at all (job cancelled, lease lost): a result arriving later is discarded.
    var isSettled = false
    /// Why the runner cancelled the handler's task, if it did.
    var cancellation: JobContext.CancellationReason?
    /// The task running the handler (set right after it is created).
    var task: Task<Void, Never>?
    /// The result the handler set (``JobContext/setResult(_:)``), recorded with its success.
    var result: [UInt8]?
}

extension Execution {
    /// When the runner renews the lease next, as a wall-clock instant read at `now` (monotonic
    /// reading `monotonic`): half way through the lease's current term, measured from the
    /// lease's own recorded expiries (the term started `term` before them), by the wall clock —
    /// or by the monotonic clock when that comes first (the wall clock was set back), converted
    /// to the wall clock now and rounded up to the millisecond. So never at or after either expiry,
    /// however long the claim or renewal took to return.
    func renewalDue(now: Date, monotonic: UInt64) -> Date {
        if let renewalRetryAt { return renewalRetryAt }
        let halfTerm = term / 2
        let byWall = lease.expiresAt.addingTimeInterval(-halfTerm)
        let monotonicHalf = lease.monotonicExpiry - min(lease.monotonicExpiry, UInt64(halfTerm * 1e9))
        guard monotonic < monotonicHalf else { return min(byWall, now) }
        let remainingMillis = (monotonicHalf - monotonic + 999_999) / 1_000_000
        return min(byWall, now.addingTimeInterval(Double(remainingMillis) / 1000))
    }

    /// The earliest instant the loop must act on this attempt: its lease renewal or its timeout.
    func nextDeadline(now: Date, monotonic: UInt64) -> Date {
        let renewal = renewalDue(now: now, monotonic: monotonic)
        return timeoutAt.map { min($0, renewal) } ?? renewal
    }

    /// Takes a renewed lease of `term` seconds granted by record `lsn`, unless a newer record
    /// granted the lease already held.
    mutating func adopt(_ renewed: Lease, term: TimeInterval, lsn: UInt64) {
        guard lsn > termLSN else { return }
        lease = renewed
        self.term = term
        termLSN = lsn
        renewalRetryAt = nil
    }
}

/// Everything a runner changes while it runs, guarded by one lock.
struct RunnerState: Sendable {
    enum Phase: Sendable { case idle, running, stopping }

    var phase = Phase.idle
    /// Whether the stop under way cancels running handlers.
    var cancelOnStop = false
    /// Set when the stop under way gives the running attempts back, for this reason
    /// (``JobRunner/StopMode/releaseRunning``, ``JobRunner/expire()``).
    var releaseOnStop: StopReason?
    var registrations: [String: Registration] = [:]
    /// The attempts under way, by lease token: a job id may be here twice, when a
    /// timed-out handler still runs while its job's next attempt has started.
    var executions: [LeaseToken: Execution] = [:]
    /// The earliest deadline (lease renewal, timeout) among the attempts the loop saw when it last
    /// chose when to wake: it wakes by then at the latest. `nil` when it saw none (it may sleep
    /// with no deadline). An attempt started without the loop (a handover) wakes it only when its
    /// own deadline is earlier.
    var loopWakeBound: Date?
    /// The runner's subscription to the queue's change feed (``ChangeSubscription/token``), while it runs.
    var changeSubscriber: UInt64?
    /// Handler tasks whose attempt is over, for the loop to await before it ends.
    var retiredTasks: [Task<Void, Never>] = []
    /// The scheduling loop, while the runner is started.
    var loop: Task<Void, Never>?
    /// Why the runner stopped by itself.
    var failure: SpoolError?
    /// Counts of the work done so far.
    var statistics = RunnerStatistics()

    /// Running handlers per kind.
    func runningCount(of kind: String) -> Int {
        executions.values.lazy.filter { $0.kind == kind }.count
    }
}
