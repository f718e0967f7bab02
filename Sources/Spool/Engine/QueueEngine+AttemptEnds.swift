import Dispatch

/// The end of an attempt, whatever it is (``AttemptEnd``), and — for the worker runtime — the
/// claim of the next job for the same slot in the same record: one sync per job instead of two.
extension QueueEngine {
    /// What ending an attempt did.
    struct Handover {
        /// The job whose attempt ended, as the record left it.
        var finished: StoredJob
        /// The job claimed in the same record, under its new lease; `nil` when none was due or
        /// when the claim was not made here (``claimedHere``).
        var next: Claimed?
        /// Whether the record looked for the next job. When it did not, the outcome may itself
        /// have made a job due (a prerequisite succeeded or failed, a retry due at once) or an
        /// expired lease is waiting to be reclaimed: the runtime claims with a call of its own,
        /// against the state the outcome left.
        var claimedHere: Bool
    }

    /// Records the end of the attempt on job `id` held under `token`, as `ending` says, and, with
    /// `claimingNext`, claims in the same record the best due job among those kinds (as
    /// ``claim(kinds:leaseDuration:)`` would right after it) under a lease of `leaseDuration`
    /// seconds. See ``leasedJob(_:token:issued:for:)`` for `issued`.
    ///
    /// The claim is chosen against the state before the outcome applies, which is the state
    /// after it whenever the outcome makes no job due: the job ends finished or due later, no
    /// unfinished job waits for it, and no expired lease is to be reclaimed. Otherwise only the
    /// outcome is recorded (``Handover/claimedHere`` false). Either way one record: a crash
    /// leaves both the outcome and the claim, or neither.
    ///
    /// When the record claims a job, the change feed's subscriber `madeBy` (the runner's) is not
    /// told of it: the record changes the finished job and the claimed one only (no job waits for
    /// the finished one, so nothing cascades), and the runner knows both. Without a claim every
    /// subscriber is told, as for any record: the slot is free.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for a release whose reason is not an
    ///   interruption, a result over its limit, a park key that is empty or too long or a park
    ///   deadline not after now; the lease errors of ``leasedJob(_:token:issued:for:)``.
    func end(
        id: JobID, token: LeaseToken, issued: Bool, ending: AttemptEnd, claimingNext nextKinds: KindSet? = nil,
        leaseDuration: TimeInterval? = nil, madeBy subscriber: UInt64? = nil
    ) throws -> Pending<Handover> {
        let duration = leaseDuration ?? configuration.leaseDuration
        if nextKinds != nil { try JobLimits.checkLeaseDuration(duration) }
        try Self.checkArguments(of: ending)
        return try withOpenState {
            let now = nowMillis
            let job = try leasedJob(id, token: token, issued: issued, for: ending.action)
            var operations = try operations(ending: job, token: token, as: ending, at: now)
            var next: StoredJob?
            let claimsHere =
                nextKinds != nil && !makesDue(operations, now: now)
                && state.unfinishedDirectDependents(of: id.rawValue).isEmpty && expiredLeaseReclaims(now: now).isEmpty
            if claimsHere, let nextKinds, let job = state.bestReadyJob(at: now, kinds: nextKinds) {
                next = job
                operations.append(claimOperation(of: job, at: now, duration: duration))
            }
            let lsn = try commit(operations, madeBy: next == nil ? nil : subscriber)
            return Pending(
                Handover(
                    finished: state.jobs[id.rawValue]!, next: next.map { claimed($0.id) },
                    claimedHere: claimsHere), lsn)
        }
    }

    /// The checks of `ending` that need no state: the same for every caller, before the lock.
    private static func checkArguments(of ending: AttemptEnd) throws {
        switch ending {
        case .succeeded(let result?):
            try JobLimits.checkResult(result)
        case .released(let reason):
            guard reason.isInterruption else {
                throw SpoolError.invalidArgument(
                    "release: \(reason) is not an interruption (runner stopped, system time expired, constraints unmet)"
                )
            }
        case .parked(let key, _):
            try JobLimits.checkText(key, name: "park key", maxBytes: JobLimits.maxParkKeyBytes)
        case .succeeded(nil), .failed, .snoozed:
            break
        }
    }

    /// The operations that end the attempt on running `job`, held under `token`, at `now` as `ending` says.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for a park deadline not after `now`: it would be
    ///   reclaimed at once, spending the attempt for nothing.
    private func operations(ending job: StoredJob, token: LeaseToken, as ending: AttemptEnd, at now: Int64) throws
        -> [PlannedOperation]
    {
        switch ending {
        case .succeeded(let result):
            return completion(of: job, token: token, at: now, result: result)
        case .failed(let error, let terminal, let reason):
            return failure(of: job, token: token, error: error, terminal: terminal, at: now, reason: reason)
        case .released(let reason):
            return [PlannedOperation(.release(id: job.id, token: token.rawValue, at: now, reason: reason))]
        case .snoozed(let until, let attempt):
            if attempt == .count, job.attempts >= job.maxAttempts {
                // Counted and judged like a failure: the last attempt snoozed ends the job.
                return failure(
                    of: job, token: token, error: "snoozed with no attempt left", terminal: true, at: now,
                    reason: .snoozed)
            }
            // Kept: counted, but a snooze never ends the job; on its last attempt (a claim must not count
            // past the budget) the attempt is given back, so the next run is that last attempt again.
            let givesBack = attempt == .giveBack || (attempt == .keep && job.attempts >= job.maxAttempts)
            return [
                PlannedOperation(
                    .snooze(id: job.id, token: token.rawValue, at: now, runAt: until, givesBack: givesBack))
            ]
        case .parked(let key, let deadline):
            guard deadline > now else {
                throw SpoolError(
                    .invalidArgument,
                    "park: the deadline \(deadline) ms is not after now (\(now) ms, by the queue's clock)",
                    jobID: JobID(job.id))
            }
            return [PlannedOperation(.park(id: job.id, token: token.rawValue, key: key, deadline: deadline))]
        }
    }

    /// Whether `operations` (an outcome's) put a job back due at or before `now`.
    private func makesDue(_ operations: [PlannedOperation], now: Int64) -> Bool {
        operations.contains { operation in
            switch operation.operation {
            case .fail(_, _, _, _, let nextRetryAt?): return nextRetryAt <= now
            case .nextOccurrence(_, _, let runAt): return runAt <= now
            case .release: return true
            case .snooze(_, _, _, let runAt, _): return runAt <= now
            default: return false
            }
        }
    }

    /// The `stop_reason` that follows an operation ending an attempt, when `reason` is not the
    /// one that operation implies (`implied`): nothing for the common case.
    func stopReasonAnnex(_ id: String, _ reason: StopReason, implied: StopReason) -> [PlannedOperation] {
        reason == implied ? [] : [PlannedOperation(.stopReason(id: id, reason: reason))]
    }

    /// The instant `date` in milliseconds, for a snooze or a park.
    /// - Throws: ``SpoolError/Code/invalidArgument`` outside the years 1 to 9999.
    static func milliseconds(_ date: Date, of what: String) throws -> Int64 {
        guard Millis.isRepresentable(date) else {
            throw SpoolError.invalidArgument("a \(what)'s time must be a finite date between the years 1 and 9999")
        }
        return Millis.from(date)
    }
}
