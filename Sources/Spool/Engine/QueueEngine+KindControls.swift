/// Pause, resume and rate limits per kind: each a record of its own, judged by the state's rules
/// (QueueState+KindControls.swift) in the commit's trial. Subscribers are told of each change as of an
/// environment change, so that a runner claims again (or sleeps until the next window) at once.
extension QueueEngine {
    /// Pauses `kind`. - Returns: whether it was not paused yet (a pause of a paused kind writes nothing).
    func pause(kind: String) throws -> Pending<Bool> {
        try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        return try committingControl {
            guard state.kindControls.paused[kind] == nil else { return nil }
            return .pauseKind(kind: kind, at: nowMillis)
        }
    }

    /// Resumes `kind`. - Returns: whether it was paused (a resume of a kind not paused writes nothing).
    func resume(kind: String) throws -> Pending<Bool> {
        try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        return try committingControl {
            guard state.kindControls.paused[kind] != nil else { return nil }
            return .resumeKind(kind: kind, at: nowMillis)
        }
    }

    /// Sets (`nil`: removes) the rate limit of `kind`. - Returns: whether it changed.
    func setRateLimit(_ limit: RateLimit?, kind: String) throws -> Pending<Bool> {
        try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        let stored = try limit.map(Self.stored)
        return try committingControl {
            guard state.kindControls.limits[kind] != stored else { return nil }
            return .setRateLimit(kind: kind, limit: stored, at: nowMillis)
        }
    }

    /// A limit in the log's units, or ``SpoolError/Code/invalidArgument`` out of range.
    static func stored(_ limit: RateLimit) throws -> StoredRateLimit {
        guard (1...JobLimits.maxRateLimitStarts).contains(limit.starts) else {
            throw SpoolError.invalidArgument(
                "a rate limit's starts must be from 1 to \(JobLimits.maxRateLimitStarts), not \(limit.starts)")
        }
        guard limit.interval.isFinite,
            (JobLimits.minimumRateLimitInterval...JobLimits.maximumRateLimitInterval).contains(limit.interval)
        else {
            throw SpoolError.invalidArgument(
                "a rate limit's interval must be from \(JobLimits.minimumRateLimitInterval) to \(JobLimits.maximumRateLimitInterval) s, not \(limit.interval)"
            )
        }
        return StoredRateLimit(
            starts: Int64(limit.starts), intervalMillis: max(1, Millis.from(seconds: limit.interval)))
    }

    /// Commits the control `make` returns (none: nothing to change), and tells the subscribers.
    private func committingControl(_ make: () -> LogOperation?) throws -> Pending<Bool> {
        let pending = try withOpenState { () -> Pending<Bool> in
            guard let operation = make() else { return Pending(false, writer.lastAppendedLSN) }
            return Pending(true, try commit([PlannedOperation(operation)]))
        }
        changes.publishEnvironmentChange()
        return pending
    }

    /// The paused kinds, each with when it was paused.
    func pausedKinds() throws -> [String: Date] {
        try withOpenState { state.kindControls.paused.mapValues(Millis.date) }
    }

    /// The rate limits by kind.
    func rateLimits() throws -> [String: RateLimit] {
        try withOpenState {
            state.kindControls.limits.mapValues {
                RateLimit(starts: Int($0.starts), per: Double($0.intervalMillis) / 1000)
            }
        }
    }
}
