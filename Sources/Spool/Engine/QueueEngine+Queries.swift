import Dispatch

/// Reads of the state, payloads and the device conditions.
extension QueueEngine {
    // MARK: Queries

    func job(_ id: JobID) throws -> StoredJob? {
        try withOpenState { state.jobs[id.rawValue] }
    }

    /// Reads the state with `body` and returns, with what it read, the LSN of the last record
    /// appended: the newest record that state reflects. Once that record is durable, nothing
    /// `body` saw can be undone by a crash (observation waits for it before it shows anything).
    func readWithLastLSN<T>(_ body: (QueueState) throws -> T) throws -> (T, lsn: UInt64) {
        try withOpenState { (try body(state), writer.lastAppendedLSN) }
    }

    func jobs(where predicate: (StoredJob) -> Bool) throws -> [StoredJob] {
        try withOpenState { state.jobs.values.filter(predicate) }.inEnqueueOrder()
    }

    /// The jobs a claim at `instant` could take: claimable, of a kind neither paused nor at its rate
    /// limit then (the kinds a claim leaves out, ``KindControls/closedKinds(at:)``).
    func readyJobs(at instant: Date, kind: String?) throws -> [StoredJob] {
        let now = Millis.from(instant)
        let (conditions, closed) = try withOpenState {
            (state.deviceConditions, state.kindControls.closedKinds(at: now))
        }
        return try jobs {
            !closed.contains($0.kind) && QueueState.isClaimable($0, at: now, kind: kind, conditions: conditions)
        }
        .sorted { a, b in
            QueueState.claimPrecedes(
                priority: a.priority, dueAt: a.dueAt, sequence: a.sequence,
                b.priority, b.dueAt, b.sequence)
        }
    }

    func earliestDue(kind: String?) throws -> Int64? {
        try earliestDue(kinds: KindSet(kind))
    }

    /// The earliest due time of an enqueued job of `kinds`.
    func earliestDue(kinds: KindSet) throws -> Int64? {
        try withOpenState { state.earliestDue(kinds: kinds) }
    }

    /// The earliest wall-clock instant, in milliseconds, at which the lease of a running job of
    /// `kinds` expires — by the wall clock, or by the monotonic clock of the same boot, converted to
    /// the wall clock now — leaving out the leases whose token is in `tokens`; `nil` when there is none.
    /// A claim at that instant reclaims the job (see ``expiredLeaseReclaims(now:)``); no record
    /// marks the expiry, so the worker runtime sleeps until it.
    func earliestLeaseExpiry(kinds: KindSet, excludingTokens tokens: Set<UInt64>) throws -> Int64? {
        try withOpenState {
            guard state.runningCount > 0, !kinds.isEmpty else { return nil }
            let now = nowMillis
            let monotonic = clock.monotonicNanoseconds()
            let boot = clock.bootIdentifier()
            var earliest: Int64?
            // A running job always has a lease (replay refuses one without).
            for job in state.runningJobs where kinds.contains(job.kind) {
                guard let lease = job.lease, !tokens.contains(lease.token) else { continue }
                let expiry: Int64
                if let park = job.park {
                    // A parked job is reclaimed at its park's deadline, by the wall clock only.
                    expiry = max(now, park.deadline)
                } else if lease.isExpired(wallNow: now, monotonicNow: monotonic, bootID: boot) {
                    expiry = now
                } else {
                    let remaining = lease.monotonicExpiry - monotonic  // positive: not expired, same boot
                    let byMonotonic = now + Int64(min(remaining / 1_000_000 + 1, UInt64(Int64.max / 4)))
                    expiry = min(lease.expiresAt, byMonotonic)
                }
                earliest = min(earliest ?? expiry, expiry)
            }
            return earliest
        }
    }

    func earliestDue(kind: String?, constraints: JobConstraints) throws -> Int64? {
        try withOpenState { state.earliestDue(kind: kind, constraints: constraints) }
    }

    /// The kinds' pauses and rate limits as the state holds them.
    func kindControls() throws -> KindControls {
        try withOpenState { state.kindControls }
    }

    func earliestDueByConstraints() throws -> [JobConstraints: Int64] {
        try withOpenState { state.earliestDueByConstraints() }
    }

    // MARK: Device conditions

    /// What holds on the device now, as the app last reported it (memory only).
    var deviceConditions: DeviceConditions { lock.withLock { state.deviceConditions } }

    /// Takes the app's report of the device's state; subscribers of ``changes`` are told, since
    /// jobs may have become runnable (or stopped being so).
    func updateDeviceConditions(_ conditions: DeviceConditions) throws {
        let changed = try withOpenState { () -> Bool in
            guard state.deviceConditions != conditions else { return false }
            state.deviceConditions = conditions
            return true
        }
        if changed { changes.publishEnvironmentChange() }
    }

    func counts() throws -> [JobState: Int] {
        try withOpenState { state.countsByState }
    }

    /// Reads the payload of `job` (as the state held it a moment ago). A
    /// compaction may have moved it into a snapshot and deleted the file it was
    /// in since: the read then follows the job's current location, as long as
    /// it is the same job (same enqueue sequence). When the job is gone by then
    /// (expired or deleted), the read throws ``SpoolError/Code/jobNotFound``.
    func payload(of job: StoredJob) throws -> [UInt8] {
        var location = job.payload
        while true {
            do {
                return try payload(at: location)
            } catch let error as SpoolError {
                let current = try withOpenState { () -> PayloadLocation? in
                    guard let now = state.jobs[job.id], now.sequence == job.sequence else { return nil }
                    return now.payload
                }
                // The job is gone (expired or deleted, and its file compacted away): not an I/O failure.
                guard let current else { throw SpoolError(.jobNotFound, "no such job", jobID: JobID(job.id)) }
                guard current != location else { throw error }
                location = current
            }
        }
    }

    /// Reads a payload from the log (or from the write buffer when it is not written yet).
    func payload(at location: PayloadLocation) throws -> [UInt8] {
        let writer = try withOpenState { self.writer }
        let bytes: [UInt8]
        if location.fileSequence == writer.fileSequence {
            bytes = try writer.read(at: location.offset, count: Int(location.length))
        } else if let earlier = writer.unretiredWriter(ofFile: location.fileSequence) {
            // A file before the active one whose records may not be written yet (a roll-over's writer
            // retires the one before it on its first lead).
            bytes = try earlier.read(at: location.offset, count: Int(location.length))
        } else if location.fileSequence < writer.fileSequence {
            bytes = try logFileReaders.read(
                sequence: location.fileSequence, at: location.offset,
                count: Int(location.length))
        } else {
            throw SpoolError(
                .ioFailure, "the payload lies in log file \(location.fileSequence), after the active one",
                path: path, offset: location.offset)
        }
        try location.checkRead(bytes, inQueue: path)
        return bytes
    }

    /// A copy of the whole in-memory state, for invariant checks and tests.
    var stateSnapshot: QueueState { lock.withLock { state } }
}
