/// Attempts that end without a result of their own: released (given back after an interruption),
/// snoozed, or failed for a reason the failure does not imply (FORMAT.md, "Stops").
extension QueueEngine {
    /// The `stop_reason` that follows an operation ending an attempt, when `reason` is not the
    /// one that operation implies (`implied`): nothing for the common case.
    func stopReasonAnnex(_ id: String, _ reason: StopReason, implied: StopReason) -> [PlannedOperation] {
        reason == implied ? [] : [.other(.stopReason(id: id, reason: reason))]
    }

    /// The operations that end the attempt on job `id` under `token` at `now` as `ending` says
    /// (a failure for a reason, a release or a snooze).
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for a release whose reason is not an
    ///   interruption, or a snooze to a time outside the years 1 to 9999; the lease errors of
    ///   ``leasedJob(_:token:issued:for:)``.
    func stopOperations(id: JobID, token: LeaseToken, ending: AttemptEnd, issued: Bool, at now: Int64) throws
        -> [PlannedOperation]
    {
        switch ending {
        case .succeeded(let result):
            if let result { try Self.checkResult(result) }
            let job = try leasedJob(id, token: token, issued: issued, for: .complete)
            return completion(of: job, token: token, at: now, result: result)
        case .failed(let error, let terminal):
            let job = try leasedJob(id, token: token, issued: issued, for: .fail)
            return failure(of: job, token: token, error: error, terminal: terminal, at: now)
        case .failedBecause(let reason, let error, let terminal):
            let job = try leasedJob(id, token: token, issued: issued, for: .fail)
            return failure(of: job, token: token, error: error, terminal: terminal, at: now, reason: reason)
        case .released(let reason):
            guard reason.isInterruption else {
                throw SpoolError.invalidArgument(
                    "release: \(reason) is not an interruption (runner stopped, system time expired, constraints unmet)"
                )
            }
            _ = try leasedJob(id, token: token, issued: issued, for: .release)
            return [.other(.release(id: id.rawValue, token: token.rawValue, at: now, reason: reason))]
        case .snoozed(let until, let attempt):
            let job = try leasedJob(id, token: token, issued: issued, for: .snooze)
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
                .other(.snooze(id: id.rawValue, token: token.rawValue, at: now, runAt: until, givesBack: givesBack))
            ]
        }
    }

    /// Ends the attempt on job `id` under `token` as `ending` says, in a record of its own (see
    /// ``leasedJob(_:token:issued:for:)`` for `issued`).
    func end(id: JobID, token: LeaseToken, issued: Bool, ending: AttemptEnd) throws -> Pending<StoredJob> {
        try withOpenState {
            let lsn = try commit(stopOperations(id: id, token: token, ending: ending, issued: issued, at: nowMillis))
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    /// The instant `date` in milliseconds, for a snooze.
    /// - Throws: ``SpoolError/Code/invalidArgument`` outside the years 1 to 9999.
    static func snoozeTime(_ date: Date) throws -> Int64 {
        guard Millis.isRepresentable(date) else {
            throw SpoolError.invalidArgument("a snooze's time must be a finite date between the years 1 and 9999")
        }
        return Millis.from(date)
    }
}
