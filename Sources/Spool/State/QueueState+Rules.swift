/// The rules of the job state machine, each once: a function of the state that returns what the
/// operation needs or throws the ``Refusal`` naming the rule it breaks. ``QueueState/apply(_:)``
/// calls them before it changes anything (replay), and the engine calls the same ones before it
/// writes anything (the live path), so the two cannot disagree.
extension QueueState {
    // MARK: Existence, state and lease

    /// The job `id` in one of `states`, with its position in ``jobs`` for a write back.
    func located(
        _ id: String, in states: [JobState],
        for action: Refusal.Action
    ) throws(Refusal) -> (job: StoredJob, position: Int) {
        guard let position = jobs.position(of: id) else { throw .noSuchJob(id: id, action: action) }
        let job = jobs[position: position]
        guard states.contains(job.state) else { throw .wrongState(id: id, action: action, state: job.state) }
        return (job, position)
    }

    /// The lease rule: the running job `id`, whose lease is held under `token`.
    func leased(
        _ id: String, token: UInt64,
        for action: Refusal.Action
    ) throws(Refusal) -> (job: StoredJob, position: Int) {
        guard let position = jobs.position(of: id) else { throw .noSuchJob(id: id, action: action) }
        let job = jobs[position: position]
        guard job.state == .running else { throw .notRunning(id: id, action: action, state: job.state) }
        guard job.lease?.token == token else { throw .staleLease(id: id, action: action) }
        return (job, position)
    }

    /// States from which each manual or recorded transition may start.
    static let claimableStates: [JobState] = [.enqueued]
    static let cancellableStates: [JobState] = [.enqueued, .running]
    static let retryableStates: [JobState] = [.enqueued, .failed, .cancelled]
    static let reschedulableStates: [JobState] = [.enqueued]
    static let expirableStates: [JobState] = [.succeeded, .cancelled]
    static let occurrenceEndingStates: [JobState] = [.succeeded, .failed]

    // MARK: Claims and restores

    /// The claim rule: an enqueued job that waits for no prerequisite, of a kind neither paused nor in a
    /// full rate window at `at`.
    func checkClaim(_ id: String, at: Int64) throws(Refusal) -> (job: StoredJob, position: Int) {
        let (job, position) = try located(id, in: Self.claimableStates, for: .claim)
        if let prerequisite = job.waitingFor.first {
            throw .runsBeforePrerequisite(id: id, action: .claim, prerequisite: prerequisite)
        }
        try checkStart(of: id, kind: job.kind, at: at)
        return (job, position)
    }

    // MARK: Retry and next occurrence

    /// The retry rule: an enqueued, failed or cancelled job; a finished one takes its unique key back,
    /// so no other unfinished job may hold it; every prerequisite it still waits for is unfinished.
    func checkRetry(_ id: String) throws(Refusal) -> (job: StoredJob, position: Int) {
        let (job, position) = try located(id, in: Self.retryableStates, for: .retry)
        if job.state.isFinished, let key = job.uniqueKey, let holder = uniqueKeys[key], holder != id {
            throw .uniqueKeyHeld(id: id, action: .retry, key: key, holder: holder)
        }
        if let blocker = job.waitingFor.first(where: { !(jobs[$0]?.state.isFinished == false) }) {
            throw .prerequisiteNotPending(id: id, prerequisite: blocker)
        }
        return (job, position)
    }

    /// The periodic rule: an occurrence that ended (succeeded, or failed for good) of a periodic job is
    /// followed by the next, which takes the job's unique key back.
    func checkNextOccurrence(_ id: String) throws(Refusal) -> (job: StoredJob, periodic: StoredPeriodic) {
        let job = try located(id, in: Self.occurrenceEndingStates, for: .nextOccurrence).job
        guard let periodic = job.periodic else { throw .notPeriodic(id: id) }
        if let key = job.uniqueKey, let holder = uniqueKeys[key], holder != id {
            throw .uniqueKeyHeld(id: id, action: .nextOccurrence, key: key, holder: holder)
        }
        return (job, periodic)
    }

    // MARK: Constraints

    /// The states whose constraints may change: an unfinished job's (for an enqueued one they decide its next
    /// claim, for a running one its next attempt).
    static let constrainableStates: [JobState] = [.enqueued, .running]

    /// The constraints rule (`set_constraints`): an unfinished job; a finished one's constraints decide nothing
    /// any more, so a change of them is refused.
    func checkSetConstraints(_ id: String) throws(Refusal) -> (job: StoredJob, position: Int) {
        try located(id, in: Self.constrainableStates, for: .setConstraints)
    }

    // MARK: Chains

    /// The removal rule (delete, expire, migration remove): no unfinished job waits for the job.
    func checkNotAwaited(_ id: String, for action: Refusal.Action) throws(Refusal) {
        if let waiting = dependents[id]?.first(where: { jobs[$0]?.state.isFinished == false }) {
            throw .awaitedByUnfinished(id: id, action: action, dependent: waiting)
        }
    }

    /// The unfinished jobs waiting for `id` directly, in the order they were enqueued.
    func unfinishedDirectDependents(of id: String) -> [String] {
        (dependents[id] ?? []).filter { jobs[$0]?.state.isFinished == false }
    }

    /// The prerequisite and unique key rules of an enqueue: a new id; each prerequisite exists, is named
    /// once, and neither it nor the new job is periodic; a unique key held by an unfinished job is taken
    /// over only by a job that waits for the holder (policy append).
    ///
    /// - Returns: The prerequisites the job waits for (those that did not succeed), and whether it is
    ///   cancelled at birth (one of them failed or was cancelled).
    func checkEnqueue(
        id: String, idHash: UInt32, dependencies: [String], isPeriodic: Bool,
        uniqueKey: String?
    ) throws(Refusal) -> (waitingFor: [String], cancelledAtBirth: Bool) {
        guard !jobs.contains(id, hash: idHash) else { throw .idExists(id: id, action: .enqueue) }
        var waitingFor: [String] = []
        var cancelledAtBirth = false
        for (index, dependency) in dependencies.enumerated() {
            guard let prerequisite = jobs[dependency] else {
                throw .prerequisiteMissing(id: id, prerequisite: dependency)
            }
            guard prerequisite.periodic == nil, !isPeriodic else { throw .periodicInChain(id: id, other: dependency) }
            guard !dependencies[..<index].contains(dependency) else {
                throw .prerequisiteNamedTwice(id: id, prerequisite: dependency)
            }
            switch prerequisite.state {
            case .succeeded: continue
            case .enqueued, .running: waitingFor.append(dependency)
            case .failed, .cancelled:
                waitingFor.append(dependency)
                cancelledAtBirth = true
            }
        }
        if let key = uniqueKey, let holder = uniqueKeys[key], !dependencies.contains(holder) {
            // Policy append: the new job depends on the holder and takes the key over.
            throw .uniqueKeyHeld(id: id, action: .enqueue, key: key, holder: holder)
        }
        return (waitingFor, cancelledAtBirth)
    }

    // MARK: Parking

    /// The park rule: the running job `id` leased under `token`, not parked yet, and no other parked
    /// job holds `key` (a key names one external completion).
    func checkPark(_ id: String, token: UInt64, key: String) throws(Refusal) -> (job: StoredJob, position: Int) {
        let (job, position) = try leased(id, token: token, for: .park)
        guard job.park == nil else { throw .alreadyParked(id: id) }
        if let holder = parkedKeys[key], holder != id { throw .parkKeyHeld(id: id, key: key, holder: holder) }
        return (job, position)
    }

    /// The reclaim rule: a running job; a parked one only once its park's deadline has passed at `at`
    /// (before it, the external work it waits for may still complete it).
    func checkReclaim(_ id: String, at: Int64) throws(Refusal) -> (job: StoredJob, position: Int) {
        let (job, position) = try located(id, in: [.running], for: .reclaim)
        if let park = job.park, at < park.deadline { throw .parkDeadlineHolds(id: id) }
        return (job, position)
    }

    // MARK: Removal and migrations

    /// The delete rule: the job exists and no unfinished job waits for it.
    func checkDelete(_ id: String) throws(Refusal) -> StoredJob {
        guard let job = jobs[id] else { throw .noSuchJob(id: id, action: .delete) }
        try checkNotAwaited(id, for: .delete)
        return job
    }

    /// The expiry rule: a succeeded or cancelled job for which no unfinished job waits.
    func checkExpire(_ id: String) throws(Refusal) -> StoredJob {
        let job = try located(id, in: Self.expirableStates, for: .expire).job
        try checkNotAwaited(id, for: .expire)
        return job
    }

    /// A migration begins with a number above the last one applied.
    func checkMigrationBegin(_ number: UInt64) throws(Refusal) {
        guard number > appliedMigration else { throw .migrationNotNewer(number: number, applied: appliedMigration) }
    }

    /// A migration step comes inside a begun migration.
    func checkMigrationStep(_ step: LogOperation) throws(Refusal) {
        guard pendingMigration != nil else { throw .stepOutsideMigration(id: step.jobID) }
    }

    /// A commit ends the migration begun; returns it.
    func checkMigrationCommit(_ number: UInt64) throws(Refusal) -> PendingMigration {
        guard let pending = pendingMigration, pending.number == number else { throw .commitNotBegun(number: number) }
        return pending
    }

    // MARK: Any operation

    /// The rule `operation` must meet in the state as it is, without changing it: what
    /// ``apply(_:)`` would refuse it for, or `nil` when apply takes it. The engine checks every
    /// operation of a record with it before the record is written (each later one of a transaction in a
    /// trial of the ones before it, see ``refusal(ofTransaction:)``).
    func refusal(of operation: LogOperation) -> Refusal? {
        do {
            try check(operation)
            return nil
        } catch {
            return error
        }
    }

    private func check(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .enqueue(let op):
            _ = try checkEnqueue(
                id: op.id, idHash: JobTable.hash(of: op.id), dependencies: op.options.dependencies,
                isPeriodic: op.options.periodic != nil, uniqueKey: op.uniqueKey)
        case .claim(let op): _ = try checkClaim(op.id, at: op.claimedAt)
        case .renewLease(let id, let token, _, _): _ = try leased(id, token: token, for: .renew)
        case .complete(let id, let token, _): _ = try leased(id, token: token, for: .complete)
        case .fail(let id, let token, _, _, _): _ = try leased(id, token: token, for: .fail)
        case .reclaim(let id, let at, _, _): _ = try checkReclaim(id, at: at)
        case .cancel(let id, _): _ = try located(id, in: Self.cancellableStates, for: .cancel)
        case .retry(let id, _): _ = try checkRetry(id)
        case .reschedule(let id, _, _): _ = try located(id, in: Self.reschedulableStates, for: .reschedule)
        case .expire(let id): _ = try checkExpire(id)
        case .nextOccurrence(let id, _, _): _ = try checkNextOccurrence(id)
        case .delete(let id): _ = try checkDelete(id)
        case .abandon(let id, _, _): _ = try located(id, in: Self.cancellableStates, for: .abandon)
        case .migrationBegin(let number, _): try checkMigrationBegin(number)
        case .migrateJob, .migrationRemove: try checkMigrationStep(operation)
        case .migrationCommit:
            // Its rule is that of each of its steps, judged as the commit applies them: in a trial.
            var trial = self.trial()
            try trial.apply(operation)
        case .park(let id, let token, let key, _): _ = try checkPark(id, token: token, key: key)
        case .checkpoint(let id, let token, _, _, _): _ = try leased(id, token: token, for: .checkpoint)
        case .inboxIngested:
            // Bookkeeping of the owner's ingestion: it fits any state.
            break
        case .restore, .snapshot, .snapshotExtent, .migrationsApplied, .restoreCheckpoint:
            // Written by compaction into a new snapshot file only, judged by apply there.
            break
        case .release(let id, let token, _, _): _ = try leased(id, token: token, for: .release)
        case .snooze(let id, let token, _, _, _): _ = try leased(id, token: token, for: .snooze)
        case .stopReason(let id, _): _ = try located(id, in: JobState.allCases, for: .stopReason)
        case .pauseKind, .resumeKind, .setRateLimit, .rateWindow:
            try checkKindControl(operation)
        case .result, .prerequisiteResult, .tags:
            try checkResultOrTags(operation)
        case .retrySchedule, .starts:
            try checkRetries(operation)
        case .setConstraints(let id, _): _ = try checkSetConstraints(id)
        }
    }

    // MARK: Claims

    /// Whether a claim at `now` may take `job`: enqueued, not blocked, due, of one of the claimed
    /// kinds, its constraints met by `conditions`. The ready index holds the jobs the first two select.
    static func isClaimable(_ job: StoredJob, at now: Int64, kind: String?, conditions: DeviceConditions) -> Bool {
        job.state == .enqueued && !job.isBlocked && job.dueAt <= now && (kind == nil || job.kind == kind)
            && (job.constraints.map(conditions.satisfies) ?? true)
    }

    /// The claim order: higher priority first, then earlier due, then earlier enqueued.
    @inline(__always)
    static func claimPrecedes(
        priority: Int32, dueAt: Int64, sequence: UInt64,
        _ otherPriority: Int32, _ otherDueAt: Int64, _ otherSequence: UInt64
    ) -> Bool {
        if priority != otherPriority { return priority > otherPriority }
        return dueAt != otherDueAt ? dueAt < otherDueAt : sequence < otherSequence
    }
}
