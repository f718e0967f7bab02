extension JobQueue {
    /// What holds on the device now, as the app last reported it with
    /// ``updateDeviceConditions(_:)``; ``DeviceConditions/unknown`` (nothing holds) until then.
    /// Kept in memory only: after a reopen the app reports again.
    public var deviceConditions: DeviceConditions { engine.deviceConditions }

    /// Reports what holds on the device now: network, power, idleness, battery and the
    /// app's own named conditions. Claims take only jobs whose ``JobConstraints`` these
    /// satisfy; a job whose constraints are unmet waits, however overdue. Call it whenever
    /// a condition changes (from a network path monitor, a battery notification…):
    /// a waiting worker wakes up to look again.
    ///
    /// - Throws: ``SpoolError/Code/closed``.
    public func updateDeviceConditions(_ conditions: DeviceConditions) throws {
        try engine.updateDeviceConditions(conditions)
    }

    /// Reports every value of `conditions` as it arrives, until the sequence ends or the
    /// calling task is cancelled: the `AsyncSequence` form of ``updateDeviceConditions(_:)``,
    /// for a source such as a stream fed by `NWPathMonitor` and battery notifications.
    ///
    /// ```swift
    /// Task { try await queue.follow(deviceConditions) }
    /// ```
    ///
    /// A closed queue is noticed when the next value arrives: a source that stays silent keeps
    /// the calling task waiting, so cancel that task when you close the queue (the source then
    /// ends, if it honours cancellation as `AsyncStream` does).
    ///
    /// - Throws: ``SpoolError/Code/closed`` for the first value after the queue closed, or what
    ///   the sequence throws.
    public func follow<Conditions: AsyncSequence>(_ conditions: Conditions) async throws
    where Conditions.Element == DeviceConditions {
        for try await current in conditions {
            try updateDeviceConditions(current)
        }
    }

    /// The earliest time an enqueued, unblocked job requiring exactly `constraints` (optionally of
    /// `kind`) can start, whatever the device conditions; `nil` when there is none. As for claims, a
    /// paused kind's jobs do not count, and a kind whose rate-limit window is full starts at the
    /// window's end if later than the job's due time.
    public func nextDeadline(kind: String? = nil, constraints: JobConstraints) throws -> Date? {
        try engine.earliestDue(kind: kind, constraints: constraints).map(Millis.date)
    }

    /// The earliest time the enqueued, unblocked jobs can start, per constraint set
    /// (``JobConstraints/none`` for unconstrained jobs), whatever the device conditions; pauses and
    /// rate limits apply as in ``nextDeadline(kind:constraints:)``.
    /// A scheduler waiting for a condition to come back reads here when work would be due.
    public func nextDeadlines() throws -> [JobConstraints: Date] {
        try engine.earliestDueByConstraints().mapValues(Millis.date)
    }
}
