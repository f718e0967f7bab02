/// Parked jobs (a running job waiting for an external completion, by key) and checkpoints.
extension QueueEngine {
    /// The reason a parked job past its deadline is reclaimed with.
    static let parkDeadlineReason = "park deadline passed: no completion arrived in time"

    /// Whether the lease of running `job` has run out: a parked job's at its park's deadline, by the
    /// wall clock alone (the system's work outlives the process and the boot); any other's as
    /// ``StoredLease/isExpired(wallNow:monotonicNow:bootID:)`` says.
    static func hasRunOut(_ job: StoredJob, wallNow: Int64, monotonicNow: UInt64, bootID: String) -> Bool {
        if let park = job.park { return wallNow >= park.deadline }
        return job.lease?.isExpired(wallNow: wallNow, monotonicNow: monotonicNow, bootID: bootID) ?? true
    }

    /// Records `data` as the checkpoint of job `id`, leased under `token`, and renews its lease by
    /// `duration` seconds (the configuration's lease duration by default), in one record.
    func checkpoint(id: JobID, token: LeaseToken, issued: Bool, data: [UInt8], duration: TimeInterval?) throws
        -> Pending<StoredJob>
    {
        guard data.count <= JobLimits.maxCheckpointBytes else {
            throw SpoolError(
                .checkpointTooLarge,
                "checkpoint: \(data.count) bytes, over the limit of \(JobLimits.maxCheckpointBytes)",
                jobID: id)
        }
        let duration = duration ?? configuration.leaseDuration
        try JobLimits.checkLeaseDuration(duration)
        return try withOpenState {
            _ = try leasedJob(id, token: token, issued: issued, for: .checkpoint)
            let lsn = try commit([
                PlannedOperation(
                    .checkpoint(
                        id: id.rawValue, token: token.rawValue, data: data,
                        expiresAt: nowMillis + Millis.from(seconds: duration),
                        monotonicExpiry: clock.monotonicNanoseconds() + UInt64(duration * 1e9)))
            ])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    /// The parked job holding `key`, or ``SpoolError/Code/jobNotFound``. Call with `lock` held.
    private func parkedJob(_ key: String) throws -> (job: StoredJob, token: LeaseToken) {
        guard let id = state.parkedKeys[key], let job = state.jobs[id], let lease = job.lease else {
            throw SpoolError(.jobNotFound, "no parked job has the key \(key)")
        }
        return (job, LeaseToken(rawValue: lease.token))
    }

    /// Records the success of the parked job holding `key`, with `result` in the same record when given.
    func completeParked(key: String, result: [UInt8]? = nil) throws -> Pending<StoredJob> {
        if let result { try JobLimits.checkResult(result) }
        return try withOpenState {
            let (job, token) = try parkedJob(key)
            let lsn = try commit(completion(of: job, token: token, at: nowMillis, result: result))
            return Pending(state.jobs[job.id]!, lsn)
        }
    }

    /// Publishes `progress` for the parked job holding `key` (memory only, as a handler's report); nothing
    /// when no job is parked under it.
    func reportParkedProgress(key: String, _ progress: JobProgress) {
        _ = try? withOpenState {
            guard let id = state.parkedKeys[key], let job = state.jobs[id] else { return }
            self.progress.report(id, kind: job.kind, tags: job.tags, progress)
        }
    }

    /// Records the failure of the parked job holding `key`: retried by the retry policy unless
    /// `terminal` or its attempts are spent, as any failed attempt.
    /// `retryAt`, when given, replaces the retry policy's delay as the next attempt's time (a server's
    /// `Retry-After`); the attempt budget still holds.
    func failParked(key: String, error: String, terminal: Bool, retryAt: Date? = nil) throws -> Pending<StoredJob> {
        try withOpenState {
            let (job, token) = try parkedJob(key)
            let now = nowMillis
            let lsn = try commit(
                failure(
                    of: job, token: token, error: error, terminal: terminal, at: now,
                    retryAt: retryAt.map { max(Millis.from($0), now) }))
            return Pending(state.jobs[job.id]!, lsn)
        }
    }

    /// The parked jobs, in enqueue order.
    func parkedJobs() throws -> [StoredJob] {
        try withOpenState {
            state.parkedKeys.values.compactMap { state.jobs[$0] }.inEnqueueOrder()
        }
    }

    /// Fails, by the retry policy, every parked job whose key is not in `stillPending`, in one record.
    /// - Returns: Those jobs after the failure, in enqueue order.
    func reconcileParked(stillPending: Set<String>) throws -> Pending<[StoredJob]> {
        try withOpenState {
            let now = nowMillis
            let gone = state.parkedKeys.filter { !stillPending.contains($0.key) }.compactMap { state.jobs[$0.value] }
                .inEnqueueOrder()
            guard !gone.isEmpty else { return Pending([], nil) }
            let operations = gone.flatMap { job in
                failure(
                    of: job, token: LeaseToken(rawValue: job.lease!.token),
                    error: "parked: the system no longer has the work of key \(job.park!.key)", terminal: false, at: now
                )
            }
            let lsn = try commit(operations)
            return Pending(gone.map { state.jobs[$0.id]! }, lsn)
        }
    }
}
