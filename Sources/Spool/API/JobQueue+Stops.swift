/// Ending an attempt without a result: giving it back after an interruption, or snoozing.
extension JobQueue {
    /// Gives back the leased attempt, interrupted by the app or the system: the job goes back to
    /// enqueued, due again at once, and the attempt does not count against its ``Job/maxAttempts``.
    /// ``Job/lastStopReason`` becomes `reason`.
    ///
    /// Use it when the work stopped for a reason that is not the job's fault: a background task
    /// expired, the network went away, the app is stopping its workers. A crash never gives an
    /// attempt back (the job is reclaimed at open, the attempt spent), so a job that crashes its
    /// process still runs out of attempts.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// task.expirationHandler = { try? queue.release(lease, reason: .systemTimeExpired) }
    /// ```
    ///
    /// - Parameters:
    ///   - lease: The lease of the attempt to give back.
    ///   - reason: An interruption: ``StopReason/runnerStopped``, ``StopReason/systemTimeExpired`` or
    ///     ``StopReason/constraintsUnmet``.
    /// - Returns: The job after the release.
    /// - Throws: ``SpoolError/Code/invalidArgument`` when `reason` is not an interruption
    ///   (``StopReason/isInterruption``); ``SpoolError/Code/leaseLost`` when the job was cancelled,
    ///   reclaimed or claimed again, or no longer exists.
    @discardableResult
    public func release(_ lease: Lease, reason: StopReason) throws -> Job {
        try endAttempt(lease.job.id, token: lease.token, issued: true, .released(reason))
    }

    /// Gives back the leased attempt. See ``release(_:reason:)-8hql8``.
    @discardableResult
    public func release(_ lease: Lease, reason: StopReason) async throws -> Job {
        try await endAttempt(lease.job.id, token: lease.token, issued: true, .released(reason))
    }

    /// Ends the leased attempt without failing: the job goes back to enqueued, due at `date`, with
    /// the attempt given back, kept or counted as `attempt` says (``SnoozeAttempt``).
    /// ``Job/lastStopReason`` becomes ``StopReason/snoozed``.
    ///
    /// ```swift
    /// // The server said "try again in 10 minutes": not a failure.
    /// try await queue.snooze(lease, until: Date().addingTimeInterval(600))
    /// ```
    ///
    /// - Returns: The job after the snooze: enqueued, or failed when `attempt` is
    ///   ``SnoozeAttempt/count`` and this was its last attempt.
    /// - Throws: ``SpoolError/Code/invalidArgument`` when `date` is not a finite date between the
    ///   years 1 and 9999; ``SpoolError/Code/leaseLost`` as ``release(_:reason:)-8hql8``.
    @discardableResult
    public func snooze(_ lease: Lease, until date: Date, attempt: SnoozeAttempt = .giveBack) throws -> Job {
        let until = try QueueEngine.milliseconds(date, of: "snooze")
        return try endAttempt(lease.job.id, token: lease.token, issued: true, .snoozed(until: until, attempt: attempt))
    }

    /// Ends the leased attempt without failing. See ``snooze(_:until:attempt:)-6a5pj``.
    @discardableResult
    public func snooze(_ lease: Lease, until date: Date, attempt: SnoozeAttempt = .giveBack) async throws -> Job {
        let until = try QueueEngine.milliseconds(date, of: "snooze")
        return try await endAttempt(
            lease.job.id, token: lease.token, issued: true, .snoozed(until: until, attempt: attempt))
    }

    /// Ends the attempt on job `id`, leased under `token`, as `ending` says, durably: the one way every
    /// call that ends an attempt records it (see ``QueueEngine/leasedJob(_:token:issued:for:)`` for `issued`).
    func endAttempt(_ id: JobID, token: LeaseToken, issued: Bool, _ ending: AttemptEnd) throws -> Job {
        Job(try engine.durably { try $0.end(id: id, token: token, issued: issued, ending: ending) }.finished)
    }

    /// Ends the attempt on job `id`, leased under `token`, as `ending` says. See `endAttempt(_:token:issued:_:)`.
    func endAttempt(_ id: JobID, token: LeaseToken, issued: Bool, _ ending: AttemptEnd) async throws -> Job {
        Job(try await engine.durably { try $0.end(id: id, token: token, issued: issued, ending: ending) }.finished)
    }
}
