/// Claiming jobs and finishing their attempts by hand: claims, lease renewals, successes and failures, and
/// the reclaim of expired leases. (Releases, snoozes and parks are in JobQueue+Stops.swift and
/// JobQueue+Parking.swift; the runner does all of this for registered kinds.)
extension JobQueue {
    /// Takes the best job that is due now — highest priority, then earliest due,
    /// then earliest enqueued — marks it running under a lease and counts the
    /// attempt, durably, before returning. Returns `nil` when nothing is due.
    ///
    /// Running jobs whose lease has expired are reclaimed first.
    ///
    /// - Parameters:
    ///   - kind: Only claim jobs of this kind.
    ///   - leaseDuration: Seconds the lease lasts; the configuration's by default.
    public func claim(kind: String? = nil, leaseDuration: TimeInterval? = nil) throws -> Lease? {
        try engine.durably { try $0.claim(kind: kind, leaseDuration: leaseDuration) }.map(makeLease)
    }

    /// Takes the best due job under a lease. See ``claim(kind:leaseDuration:)-71nvp``.
    public func claim(kind: String? = nil, leaseDuration: TimeInterval? = nil) async throws -> Lease? {
        try await engine.durably { try $0.claim(kind: kind, leaseDuration: leaseDuration) }.map(makeLease)
    }

    /// Takes the best due job among the jobs of any of `kinds` — highest priority, then earliest due,
    /// then earliest enqueued, across all of them — under a lease, as a ``JobRunner`` claims for the
    /// kinds it has handlers for (the same claim). Returns `nil` when none is due (always, for an empty set).
    ///
    /// ```swift
    /// if let lease = try queue.claim(kinds: ["upload-photo", "send-message"]) {
    ///     try queue.complete(lease)
    /// }
    /// ```
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` when a kind is not 1 to 200 UTF-8 bytes or the
    ///   lease duration is out of range; the errors of ``claim(kind:leaseDuration:)-71nvp``.
    public func claim(kinds: Set<String>, leaseDuration: TimeInterval? = nil) throws -> Lease? {
        let kinds = try Self.claimable(kinds)
        return try engine.durably { try $0.claim(kinds: kinds, leaseDuration: leaseDuration) }.map(makeLease)
    }

    /// Takes the best due job among the jobs of any of `kinds` under a lease.
    /// See ``claim(kinds:leaseDuration:)-(Set<String>,TimeInterval?)``.
    public func claim(kinds: Set<String>, leaseDuration: TimeInterval? = nil) async throws -> Lease? {
        try await claim(kinds: Self.claimable(kinds), leaseDuration: leaseDuration)
    }

    /// The kind set of a public multi-kind claim, each kind checked as a job's kind is.
    private static func claimable(_ kinds: Set<String>) throws -> KindSet {
        for kind in kinds { try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes) }
        return .only(kinds)
    }

    /// Takes the best due job among the jobs of `kinds` under a lease: the worker runtime's one claim.
    func claim(kinds: KindSet, leaseDuration: TimeInterval?) async throws -> Lease? {
        try await engine.durably { try $0.claim(kinds: kinds, leaseDuration: leaseDuration) }.map(makeLease)
    }

    /// The lease of a job a claim took, with its payload read back (and checked).
    func makeLease(_ claimed: QueueEngine.Claimed) throws -> Lease {
        let payload = try engine.payload(of: claimed.job)
        return Lease(
            job: Job(claimed.job), payload: Data(payload), token: LeaseToken(rawValue: claimed.lease.token),
            expiresAt: Millis.date(claimed.lease.expiresAt), monotonicExpiry: claimed.lease.monotonicExpiry,
            bootID: claimed.lease.bootID)
    }

    /// Extends a lease by `duration` seconds from now (the configuration's lease duration by default).
    ///
    /// - Throws: ``SpoolError/Code/leaseLost`` when the job was cancelled, reclaimed or claimed
    ///   again, or no longer exists (deleted, expired by retention, or removed by a job migration:
    ///   a ``Lease`` comes only from a claim, so the job existed).
    @discardableResult
    public func renew(_ lease: Lease, for duration: TimeInterval? = nil) throws -> Lease {
        renewed(
            lease,
            try engine.durably { try $0.renew(id: lease.job.id, token: lease.token, issued: true, duration: duration) })
    }

    /// Extends a lease. See ``renew(_:for:)-7h1s0``.
    @discardableResult
    public func renew(_ lease: Lease, for duration: TimeInterval? = nil) async throws -> Lease {
        try await renewRecorded(lease, for: duration).lease
    }

    /// Extends a lease, as ``renew(_:for:)-7h1s0``, and returns with it the LSN
    /// of the renewal's record: of two renewals of one lease that overlap (the runtime's and a
    /// handler's), the one with the later record is the lease the job holds.
    func renewRecorded(_ lease: Lease, for duration: TimeInterval?) async throws -> (lease: Lease, lsn: UInt64) {
        let (job, lsn) = try await engine.durably {
            try $0.renew(id: lease.job.id, token: lease.token, issued: true, duration: duration).withLSN()
        }
        return (renewed(lease, job), lsn)
    }

    /// `lease` with the job and expiry of its running `job` after a renewal or a checkpoint.
    func renewed(_ lease: Lease, _ job: StoredJob) -> Lease {
        var copy = lease
        copy.job = Job(job)
        copy.expiresAt = Millis.date(job.lease!.expiresAt)
        copy.monotonicExpiry = job.lease!.monotonicExpiry
        return copy
    }

    /// Records that the leased job succeeded.
    ///
    /// - Throws: ``SpoolError/Code/leaseLost`` when the job was cancelled, reclaimed or claimed
    ///   again meanwhile, or no longer exists (deleted, expired by retention, or removed by a job
    ///   migration: a ``Lease`` comes only from a claim, so the job existed): the result is discarded.
    @discardableResult
    public func complete(_ lease: Lease) throws -> Job {
        try endAttempt(lease.job.id, token: lease.token, issued: true, .succeeded())
    }

    /// Records that the leased job succeeded. See ``complete(_:)-rpzo``.
    @discardableResult
    public func complete(_ lease: Lease) async throws -> Job {
        try await endAttempt(lease.job.id, token: lease.token, issued: true, .succeeded())
    }

    /// Records that job `id`, leased under `token`, succeeded.
    ///
    /// - Throws: ``SpoolError/Code/leaseLost`` when the job is not running under `token` (any
    ///   more); ``SpoolError/Code/jobNotFound`` when no job has the id — given an id and a token
    ///   alone, the queue cannot tell an id it never had from a job removed since (deleted, expired
    ///   or migrated away), which ``complete(_:)-rpzo`` reports as `leaseLost`.
    @discardableResult
    public func complete(_ id: JobID, token: LeaseToken) throws -> Job {
        try endAttempt(id, token: token, issued: false, .succeeded())
    }

    /// Records that job `id`, leased under `token`, succeeded. See ``complete(_:token:)-9sowh``.
    @discardableResult
    public func complete(_ id: JobID, token: LeaseToken) async throws -> Job {
        try await endAttempt(id, token: token, issued: false, .succeeded())
    }

    /// Records that the leased attempt failed.
    ///
    /// A retryable failure (the default) sends the job back to enqueued with
    /// ``Job/nextRetryAt`` set by the retry policy, unless its attempts are spent;
    /// a terminal failure, or one after the last attempt, ends it failed with no deadline.
    ///
    /// - Returns: The job after the failure, showing its state and next deadline.
    /// - Throws: ``SpoolError/Code/leaseLost`` when the job was cancelled, reclaimed or claimed
    ///   again, or no longer exists (deleted, expired by retention, or removed by a job migration:
    ///   a ``Lease`` comes only from a claim, so the job existed).
    @discardableResult
    public func fail(_ lease: Lease, error: String, terminal: Bool = false) throws -> Job {
        try endAttempt(lease.job.id, token: lease.token, issued: true, .failed(error: error, terminal: terminal))
    }

    /// Records that the leased attempt failed. See ``fail(_:error:terminal:)-5uw4e``.
    @discardableResult
    public func fail(_ lease: Lease, error: String, terminal: Bool = false) async throws -> Job {
        try await endAttempt(
            lease.job.id, token: lease.token, issued: true, .failed(error: error, terminal: terminal))
    }

    /// Records that the attempt of job `id`, leased under `token`, failed.
    ///
    /// - Throws: ``SpoolError/Code/leaseLost`` when the job is not running under `token` (any
    ///   more); ``SpoolError/Code/jobNotFound`` when no job has the id (an id and a token alone
    ///   cannot show that the job existed; ``fail(_:error:terminal:)-5uw4e`` says `leaseLost`).
    @discardableResult
    public func fail(_ id: JobID, token: LeaseToken, error: String, terminal: Bool = false) throws -> Job {
        try endAttempt(id, token: token, issued: false, .failed(error: error, terminal: terminal))
    }

    /// Records that the attempt of job `id`, leased under `token`, failed. See ``fail(_:token:error:terminal:)-9lkch``.
    @discardableResult
    public func fail(_ id: JobID, token: LeaseToken, error: String, terminal: Bool = false) async throws -> Job {
        try await endAttempt(id, token: token, issued: false, .failed(error: error, terminal: terminal))
    }

    /// Reclaims running jobs whose lease has expired (by the wall clock, or by the
    /// monotonic clock of the same boot, or because the machine rebooted): each goes
    /// back to enqueued after the retry delay, or to failed when its attempts are spent.
    ///
    /// - Returns: The ids of the reclaimed jobs.
    @discardableResult
    public func reclaimExpiredLeases() throws -> [JobID] {
        try engine.durably { try $0.reclaimExpiredLeases() }
    }

    /// Reclaims running jobs whose lease has expired. See ``reclaimExpiredLeases()-6vpkm``.
    @discardableResult
    public func reclaimExpiredLeases() async throws -> [JobID] {
        try await engine.durably { try $0.reclaimExpiredLeases() }
    }
}
