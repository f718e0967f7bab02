import Dispatch

/// Claims, lease renewal, completion and failure, and reclaiming leases that ended without a result.
extension QueueEngine {
    // MARK: Leases

    struct Claimed {
        var job: StoredJob
        var lease: StoredLease
    }

    func claim(kind: String?, leaseDuration: TimeInterval?) throws -> Pending<Claimed?> {
        if let kind { try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes) }
        return try claim(kinds: KindSet(kind), leaseDuration: leaseDuration)
    }

    /// Claims the best due job among the jobs of `kinds` — higher priority, then
    /// earlier due, then earlier enqueued, across all of them — after reclaiming
    /// expired leases. The worker runtime claims through this with the kinds it
    /// has a handler and a free slot for.
    func claim(kinds: KindSet, leaseDuration: TimeInterval?) throws -> Pending<Claimed?> {
        let duration = leaseDuration ?? configuration.leaseDuration
        try JobLimits.checkLeaseDuration(duration)
        return try withOpenState {
            let now = nowMillis
            var operations = expiredLeaseReclaims(now: now)
            // Reclaims change what is ready only by putting jobs back with a deadline in the future
            // (or now, for a zero delay), so choose after applying them.
            var reclaimLSN: UInt64?
            if !operations.isEmpty {
                reclaimLSN = try commit(operations)
                operations = []
            }
            guard let job = state.bestReadyJob(at: now, kinds: kinds) else { return Pending(nil, reclaimLSN) }
            let lsn = try commit([claimOperation(of: job, at: now, duration: duration)])
            return Pending(claimed(job.id), lsn)
        }
    }

    /// The claim of `job` at `now` under a new lease of `duration` seconds.
    func claimOperation(of job: StoredJob, at now: Int64, duration: TimeInterval) -> PlannedOperation {
        PlannedOperation(claimOperation(ofJob: job.id, at: now, duration: duration))
    }

    /// The claim of job `id` at `now` under a new lease of `duration` seconds.
    func claimOperation(ofJob id: String, at now: Int64, duration: TimeInterval) -> LogOperation {
        let monotonic = clock.monotonicNanoseconds()
        return .claim(
            LogOperation.Claim(
                id: id, token: RandomPool.shared.nextToken(), claimedAt: now,
                expiresAt: now + Millis.from(seconds: duration),
                monotonicExpiry: monotonic + UInt64(duration * 1e9),
                bootID: clock.bootIdentifier()))
    }

    /// Job `id` as a claim just left it: running, under its lease.
    func claimed(_ id: String) -> Claimed {
        let job = state.jobs[id]!
        return Claimed(job: job, lease: job.lease!)
    }

    /// Extends the lease of job `id` held under `token` (see ``leasedJob(_:token:issued:for:)`` for `issued`).
    func renew(id: JobID, token: LeaseToken, issued: Bool, duration: TimeInterval?) throws -> Pending<StoredJob> {
        let duration = duration ?? configuration.leaseDuration
        try JobLimits.checkLeaseDuration(duration)
        return try withOpenState {
            _ = try leasedJob(id, token: token, issued: issued)
            let lsn = try commit([
                PlannedOperation(
                    .renewLease(
                        id: id.rawValue, token: token.rawValue,
                        expiresAt: nowMillis + Millis.from(seconds: duration),
                        monotonicExpiry: clock.monotonicNanoseconds() + UInt64(duration * 1e9)))
            ])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    /// The operations that record the success of `job`, held under `token`, at `now`: its `result`
    /// first, when it has one, so that the success hands it to the jobs waiting for it.
    func completion(of job: StoredJob, token: LeaseToken, at now: Int64, result: [UInt8]? = nil)
        -> [PlannedOperation]
    {
        (result.map { [PlannedOperation(.result(id: job.id, data: $0))] } ?? [])
            + [PlannedOperation(.complete(id: job.id, token: token.rawValue, at: now))]
            + nextOccurrence(of: job, endingWith: nil, at: now)
    }

    /// The operations that record the failure of `job`, held under `token`, at `now`: a retry
    /// after the retry policy's delay unless `terminal` or its attempts are spent. A `reason` other
    /// than ``StopReason/failed`` (a timeout, a stop) follows the failure as a `stop_reason`. `retryAt`
    /// replaces the policy's delay when the job has an attempt left.
    func failure(
        of job: StoredJob, token: LeaseToken, error: String, terminal: Bool, at now: Int64,
        reason: StopReason = .failed, retryAt: Int64? = nil
    ) -> [PlannedOperation] {
        let policyRetryAt = terminal ? nil : nextRetry(after: job, now: now)
        let nextRetryAt = policyRetryAt.map { retryAt ?? $0 }
        return [
            PlannedOperation(
                .fail(
                    id: job.id, token: token.rawValue, at: now, error: Self.truncated(error), nextRetryAt: nextRetryAt))
        ]
            + stopReasonAnnex(job.id, reason, implied: .failed)
            + nextOccurrence(of: job, endingWith: nextRetryAt, at: now)
    }

    /// For a periodic job whose occurrence ends now — it succeeded, or failed with no retry
    /// left (`nextRetryAt == nil` after a failure) — the operation that schedules the next
    /// occurrence, to go into the same record. Empty for a one-off job or a retry.
    func nextOccurrence(of job: StoredJob, endingWith nextRetryAt: Int64?, at now: Int64) -> [PlannedOperation] {
        guard let periodic = job.periodic, nextRetryAt == nil else { return [] }
        return [PlannedOperation(.nextOccurrence(id: job.id, at: now, runAt: periodic.nextRunAt(after: now)))]
    }

    /// A reclaim of `job`, followed by its next occurrence when it is periodic and out of attempts.
    /// `stopReason` ``StopReason/orphaned`` (found running at open) follows it as a `stop_reason`.
    func reclaim(_ job: StoredJob, reason: String, now: Int64, stopReason: StopReason = .leaseExpired)
        -> [PlannedOperation]
    {
        let nextRetryAt = nextRetry(after: job, now: now)
        return [PlannedOperation(.reclaim(id: job.id, at: now, reason: reason, nextRetryAt: nextRetryAt))]
            + stopReasonAnnex(job.id, stopReason, implied: .leaseExpired)
            + nextOccurrence(of: job, endingWith: nextRetryAt, at: now)
    }

    /// The deadline after the job's current attempt failed, or `nil` when its attempts are spent.
    func nextRetry(after job: StoredJob, now: Int64) -> Int64? {
        guard job.attempts < job.maxAttempts else { return nil }
        let delay = (job.retrySchedule ?? configuration.retryPolicy.schedule).delay(
            afterFailedAttempt: Int(job.attempts),
            unitRandom: Double.random(in: 0..<1))
        return min(now + Millis.from(seconds: delay), Millis.latest)
    }

    /// The running job `id`, if it runs under `token`; otherwise ``SpoolError/Code/leaseLost``.
    ///
    /// A job that no longer exists is a lost lease too when the lease is known to have been
    /// `issued`: the caller holds a ``Lease``, which only a claim of this queue makes, so the job
    /// existed and has since been deleted, expired by retention, or removed (split) by a job
    /// migration. Given a bare id and token, the queue cannot tell an id it never had from one it
    /// no longer has (it keeps nothing of removed jobs): that is ``SpoolError/Code/jobNotFound``.
    func leasedJob(_ id: JobID, token: LeaseToken, issued: Bool, for action: Refusal.Action = .renew) throws
        -> StoredJob
    {
        do {
            return try state.leased(id.rawValue, token: token.rawValue, for: action).job
        } catch {
            throw (issued ? error.forIssuedLease : error).error
        }
    }

    static func truncated(_ text: String) -> String {
        guard text.utf8.count > JobLimits.maxErrorBytes else { return text }
        var cut = String(decoding: text.utf8.prefix(JobLimits.maxErrorBytes), as: UTF8.self)
        while cut.utf8.count > JobLimits.maxErrorBytes { cut.removeLast() }
        return cut
    }

    /// Reclaims for every running job whose lease has expired.
    func expiredLeaseReclaims(now: Int64) -> [PlannedOperation] {
        guard state.runningCount > 0 else { return [] }
        let monotonic = clock.monotonicNanoseconds()
        let boot = clock.bootIdentifier()
        return state.runningJobs
            .filter { Self.hasRunOut($0, wallNow: now, monotonicNow: monotonic, bootID: boot) }
            .inEnqueueOrder()
            .flatMap { reclaim($0, reason: $0.park == nil ? "lease expired" : Self.parkDeadlineReason, now: now) }
    }

    func reclaimExpiredLeases() throws -> Pending<[JobID]> {
        try withOpenState {
            let operations = expiredLeaseReclaims(now: nowMillis)
            return try commitReclaims(operations)
        }
    }

    /// Records reclaims as one transaction; returns the reclaimed ids and the LSN, or none when there is nothing to reclaim.
    /// Call with `lock` held.
    func commitReclaims(_ operations: [PlannedOperation]) throws -> Pending<[JobID]> {
        guard !operations.isEmpty else { return Pending([], nil) }
        let ids = operations.compactMap { planned -> JobID? in
            if case .reclaim(let id, _, _, _) = planned.operation { return JobID(id) }
            return nil
        }
        return Pending(ids, try commit(operations))
    }

    func reclaimRunningJobsAtOpen() throws -> Pending<[JobID]> {
        try lock.withLock {
            let now = nowMillis
            let operations: [PlannedOperation]
            switch configuration.runningJobsAtOpen {
            case .reclaim:
                // A parked job is no orphan: the system does its work; it is reclaimed at its deadline.
                operations = state.runningJobs.inEnqueueOrder().flatMap { job in
                    guard let park = job.park else {
                        return reclaim(
                            job, reason: "orphaned: the process ended while the job was running", now: now,
                            stopReason: .orphaned)
                    }
                    return now >= park.deadline ? reclaim(job, reason: Self.parkDeadlineReason, now: now) : []
                }
            case .keepUnexpiredLeases:
                operations = expiredLeaseReclaims(now: now)
            }
            return try commitReclaims(operations)
        }
    }
}
