/// Parking a job while the system does its work (a background `URLSession` transfer), completing it by
/// key in a later process, reconciling at launch; and checkpoints.
extension JobQueue {
    /// Parks the leased job: durably, it waits for an external completion named `key` until `deadline`.
    ///
    /// A parked job stays `running`, its attempt counted once. It is not an orphan at open
    /// (``Configuration/runningJobsAtOpen`` leaves it alone) and is not reclaimed while `deadline`
    /// holds; any process completes or fails it by key (`completeParked(key:)`,
    /// `failParked(key:error:terminal:)`). Past `deadline`, a claim or a reclaim
    /// puts it back by the retry policy, as a lease that expired.
    ///
    /// ```swift
    /// // The system's transfer task is started; its key names it in any later launch.
    /// let key = "uploads:\(photoID)"
    /// try queue.park(lease, key: key, for: 24 * 3600)  // a day, on the queue's clock
    /// // Later, in this process or another, when the system reports the transfer finished:
    /// try queue.completeParked(key: key)
    /// ```
    ///
    /// - Throws: ``SpoolError/Code/parkKeyConflict`` when another parked job holds `key`;
    ///   ``SpoolError/Code/invalidState`` when the job is parked already; ``SpoolError/Code/invalidArgument``
    ///   for an empty key or one over ``JobLimits/maxParkKeyBytes``, or a `deadline` not after now by the
    ///   queue's clock (nothing is written: the attempt is not spent); ``SpoolError/Code/leaseLost`` as
    ///   `complete(_:)` does.
    @discardableResult
    public func park(_ lease: Lease, key: String, deadline: Date) throws -> Job {
        try endAttempt(
            lease.job.id, token: lease.token, issued: true, .parked(key: key, deadline: Millis.from(deadline)))
    }

    /// Parks the leased job for `duration` seconds from now, by the queue's clock
    /// (``Configuration/clock``, which a test pins): see `park(_:key:deadline:)`.
    @discardableResult
    public func park(_ lease: Lease, key: String, for duration: TimeInterval) throws -> Job {
        try park(lease, key: key, deadline: configuration.clock.now().addingTimeInterval(duration))
    }

    /// Parks the leased job for `duration` seconds from now. See `park(_:key:for:)`.
    @discardableResult
    public func park(_ lease: Lease, key: String, for duration: TimeInterval) async throws -> Job {
        try await park(lease, key: key, deadline: configuration.clock.now().addingTimeInterval(duration))
    }

    /// Parks the leased job until `deadline`. See `park(_:key:deadline:)`.
    @discardableResult
    public func park(_ lease: Lease, key: String, deadline: Date) async throws -> Job {
        try await endAttempt(
            lease.job.id, token: lease.token, issued: true, .parked(key: key, deadline: Millis.from(deadline)))
    }

    /// Records that the external work of the parked job holding `key` succeeded: the job succeeds.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound`` when no parked job holds `key` (completed or
    ///   reclaimed already, or never parked).
    @discardableResult
    public func completeParked(key: String) throws -> Job {
        Job(try engine.durably { try $0.completeParked(key: key) })
    }

    /// Records that the parked job holding `key` succeeded. See `completeParked(key:)`.
    @discardableResult
    public func completeParked(key: String) async throws -> Job {
        Job(try await engine.durably { try $0.completeParked(key: key) })
    }

    /// Records that the external work of the parked job holding `key` failed: retried by the retry
    /// policy, unless `terminal` or its attempts are spent, as `fail(_:error:terminal:)`.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound`` when no parked job holds `key`.
    @discardableResult
    public func failParked(key: String, error: String, terminal: Bool = false) throws -> Job {
        Job(try engine.durably { try $0.failParked(key: key, error: error, terminal: terminal) })
    }

    /// Records that the parked job holding `key` failed. See `failParked(key:error:terminal:)`.
    @discardableResult
    public func failParked(key: String, error: String, terminal: Bool = false) async throws -> Job {
        Job(try await engine.durably { try $0.failParked(key: key, error: error, terminal: terminal) })
    }

    /// The parked jobs, in enqueue order: at launch, compare their ``Job/parkedKey`` with the
    /// transfers the system still has, then call `reconcileParked(stillPending:)`.
    public func parkedJobs() throws -> [Job] {
        try engine.parkedJobs().map(Job.init)
    }

    /// Fails every parked job whose key is not in `stillPending` (the system no longer has its work,
    /// and no completion will come), by the retry policy, in one record.
    ///
    /// ```swift
    /// let stillRunning: Set<String> = ["uploads:\(photoID)"]  // the keys of the system's tasks
    /// try await queue.reconcileParked(stillPending: stillRunning)
    /// ```
    ///
    /// - Returns: The jobs this failed, after the failure (enqueued again with a retry deadline, or
    ///   failed), in enqueue order.
    @discardableResult
    public func reconcileParked(stillPending: Set<String>) throws -> [Job] {
        try engine.durably { try $0.reconcileParked(stillPending: stillPending) }.map(Job.init)
    }

    /// Fails the parked jobs whose key is not in `stillPending`. See `reconcileParked(stillPending:)`.
    @discardableResult
    public func reconcileParked(stillPending: Set<String>) async throws -> [Job] {
        try await engine.durably { try $0.reconcileParked(stillPending: stillPending) }.map(Job.init)
    }

    /// Records `data` as the leased job's checkpoint and renews its lease by `duration` seconds (the
    /// configuration's lease duration by default), in one record: the job's next attempt, after a
    /// failure, a crash or a stop, finds it in ``Job/checkpoint``. A success clears it.
    ///
    /// - Returns: The lease, renewed.
    /// - Throws: ``SpoolError/Code/checkpointTooLarge`` over ``JobLimits/maxCheckpointBytes``;
    ///   ``SpoolError/Code/leaseLost`` as `renew(_:for:)` does.
    @discardableResult
    public func checkpoint(_ lease: Lease, _ data: Data, renewingFor duration: TimeInterval? = nil) throws -> Lease {
        renewed(
            lease,
            try engine.durably {
                try $0.checkpoint(
                    id: lease.job.id, token: lease.token, issued: true, data: Array(data), duration: duration)
            })
    }

    /// Records a checkpoint and renews the lease. See `checkpoint(_:_:renewingFor:)`.
    @discardableResult
    public func checkpoint(_ lease: Lease, _ data: Data, renewingFor duration: TimeInterval? = nil) async throws
        -> Lease
    {
        renewed(
            lease,
            try await engine.durably {
                try $0.checkpoint(
                    id: lease.job.id, token: lease.token, issued: true, data: Array(data), duration: duration)
            })
    }

    /// Records a checkpoint, as `checkpoint(_:_:renewingFor:)`, and returns with the lease
    /// the LSN of its record (see ``renewRecorded(_:for:)``).
    func checkpointRecorded(_ lease: Lease, _ data: Data, for duration: TimeInterval?) async throws
        -> (lease: Lease, lsn: UInt64)
    {
        let (job, lsn) = try await engine.durably {
            try $0.checkpoint(id: lease.job.id, token: lease.token, issued: true, data: Array(data), duration: duration)
                .withLSN()
        }
        return (renewed(lease, job), lsn)
    }

}
