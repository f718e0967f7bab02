extension JobQueue {
    // MARK: Pause and rate limits

    /// Pauses `kind`, durably: no claim takes a job of the kind — not ``claim(kind:leaseDuration:)-71nvp``,
    /// not a ``JobRunner`` — until ``resume(kind:)-4ry68``, across restarts and compactions. Jobs of the
    /// kind may still be enqueued, cancelled, retried; running ones run on.
    ///
    /// ```swift
    /// try queue.pause(kind: "upload-photo")   // the user is on a metered plan
    /// ```
    ///
    /// - Returns: Whether the kind was not paused yet (pausing a paused kind writes nothing).
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long kind.
    @discardableResult
    public func pause(kind: String) throws -> Bool {
        try engine.durably { try $0.pause(kind: kind) }
    }

    /// Pauses `kind`, durably. See ``pause(kind:)-b934``.
    @discardableResult
    public func pause(kind: String) async throws -> Bool {
        try await engine.durably { try $0.pause(kind: kind) }
    }

    /// Resumes the paused `kind`, durably: claims take its jobs again (a runner is woken at once).
    ///
    /// - Returns: Whether the kind was paused (resuming a kind not paused writes nothing).
    @discardableResult
    public func resume(kind: String) throws -> Bool {
        try engine.durably { try $0.resume(kind: kind) }
    }

    /// Resumes the paused `kind`, durably. See ``resume(kind:)-4ry68``.
    @discardableResult
    public func resume(kind: String) async throws -> Bool {
        try await engine.durably { try $0.resume(kind: kind) }
    }

    /// The paused kinds, each with when it was paused.
    public func pausedKinds() throws -> [String: Date] {
        try engine.pausedKinds()
    }

    /// Sets the rate limit of `kind` (see ``RateLimit``), durably; `nil` removes it. A window already
    /// open is kept: the starts made in it count against the new limit.
    ///
    /// ```swift
    /// try queue.setRateLimit(RateLimit(starts: 10, per: 60), kind: "send-message")
    /// ```
    ///
    /// - Returns: Whether the limit changed (setting the limit the kind has writes nothing).
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long kind, or a limit out of range.
    @discardableResult
    public func setRateLimit(_ limit: RateLimit?, kind: String) throws -> Bool {
        try engine.durably { try $0.setRateLimit(limit, kind: kind) }
    }

    /// Sets or removes the rate limit of `kind`, durably. See ``setRateLimit(_:kind:)-dc4r``.
    @discardableResult
    public func setRateLimit(_ limit: RateLimit?, kind: String) async throws -> Bool {
        try await engine.durably { try $0.setRateLimit(limit, kind: kind) }
    }

    /// The rate limits by kind.
    public func rateLimits() throws -> [String: RateLimit] {
        try engine.rateLimits()
    }
}
