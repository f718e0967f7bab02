/// The queue's whole state in memory, rebuilt from the log on open and kept
/// current by the live path, both through ``apply(_:)``.
///
/// `apply` is the one place where a recorded operation changes state. It reads
/// neither the clock nor the disk: every time and token it needs is in the
/// operation. It checks that the operation fits the state (the job exists, is
/// in the right state, the lease token matches) and changes nothing when it does
/// not; the live path checks the same before it writes, so a refusal here means
/// a damaged or hand-edited log.
///
/// Chains are derived here, deterministically, so replay and the live path agree
/// without extra operations: a job that succeeds unblocks the jobs waiting for
/// it; a job that fails for good or is cancelled cancels every unfinished job
/// waiting for it, transitively, at its own `finishedAt` (see ``propagate(from:)``).
/// The ids a cascade changed are kept in ``cascadedIDs`` for the engine to publish.
///
/// This file holds the stored state, `apply` and the write-back every operation shares; the files
/// next to it hold the rules (`+Rules`), chains (`+Chains`), unique keys (`+UniqueKeys`), migration
/// steps (`+Migrations`), look-ups (`+Queries`) and the engine's calls outside `apply` (`+Housekeeping`).
struct QueueState: Sendable {
    // The properties without `private(set)` are written by those extensions too (a stored property
    // cannot live in an extension); outside `State/` they are only read.
    var jobs = JobTable()
    /// Unique key → id of the unfinished job holding it: the last enqueued of the unfinished jobs carrying the key.
    var uniqueKeys: [String: String] = [:]
    /// Unique key → the other unfinished jobs carrying it, in enqueue order (only with policy append,
    /// whose new job takes the key over from its prerequisite).
    var earlierKeyCarriers: [String: [String]] = [:]
    var ready = ReadyIndex()
    private(set) var enqueuedCount = 0
    private(set) var runningCount = 0
    /// Jobs in state failed (kept until deleted; automatic compaction counts them as live).
    private(set) var failedCount = 0
    /// The ids of the running jobs, so that lease expiry looks at them only.
    var runningIDs: Set<String> = []
    /// The next enqueue's ``StoredJob/sequence``.
    var nextSequence: UInt64 = 1
    /// The highest ``StoredJob/sequence`` of a job applied so far (0 before the first): a restore's lies
    /// above it (a snapshot restores in enqueue order), so that no two jobs share one.
    var highestSequence: UInt64 = 0
    /// What the last snapshot said about the queue's past (`nil` before the first compaction).
    var summary: SnapshotSummary?
    /// How many records the snapshot replay started from says it holds (`snapshot_extent`); `nil` for a
    /// snapshot written before it, or none.
    var snapshotExtent: UInt64?
    /// Jobs expired since that snapshot.
    var expiredSinceSnapshot: UInt64 = 0
    /// Jobs expired in all compactions.
    var expiredJobs: UInt64 { (summary?.expiredJobs ?? 0) + expiredSinceSnapshot }
    /// The number of the last job migration applied; 0 before the first.
    private(set) var appliedMigration: UInt64 = 0
    /// A migration begun but not committed yet: its operations wait here until its commit applies
    /// them all at once. Any other operation, a new begin or the end of the log abandons it.
    var pendingMigration: PendingMigration?
    /// Park key → id of the parked job holding it (derived from the jobs' ``StoredJob/park``).
    var parkedKeys: [String: String] = [:]

    struct PendingMigration: Sendable {
        var number: UInt64
        var steps: [LogOperation]
    }

    /// Prerequisite id → the jobs whose ``StoredJob/waitingFor`` names it (derived from the jobs).
    var dependents: [String: [String]] = [:]
    /// Jobs that the last applied operations changed besides the one each names: dependents
    /// unblocked or cancelled by a cascade. The engine publishes and clears them.
    var cascadedIDs: [String] = []
    /// Paused kinds, rate limits and their windows (durable: QueueState+KindControls.swift).
    var kindControls = KindControls()
    /// Producer inbox file name → the offset up to which its records are ingested (`inbox_ingested`).
    /// A file not named here is ingested from the end of its header. Compaction keeps the entries of the
    /// files that still exist.
    var inboxOffsets: [String: Int64] = [:]

    /// What holds on the device now. Not durable and not changed by `apply`: the
    /// engine sets it from the app's reports; claims skip jobs whose constraints it does not satisfy.
    var deviceConditions: DeviceConditions {
        get { ready.conditions }
        set { ready.conditions = newValue }
    }

    // MARK: Applying operations

    /// Applies one operation, or changes nothing and throws when it does not fit.
    mutating func apply(_ operation: LogOperation) throws(Refusal) {
        if pendingMigration != nil, !operation.continuesMigration {
            // Only a crash in the middle of a migration leaves one pending: it never happened.
            pendingMigration = nil
        }
        switch operation {
        case .enqueue(let op):
            try applyEnqueue(op)
        case .claim(let op):
            let (found, position) = try checkClaim(op.id, at: op.claimedAt)
            var job = found
            job.state = .running
            // Saturating: attempts may be anything up to 2^31-1 (a migration may leave more than the
            // maximum), and a claim past it must not trap; no correct writer gets near it.
            job.attempts = job.attempts == .max ? .max : job.attempts + 1
            job.starts = job.starts == .max ? .max : job.starts + 1
            job.nextRetryAt = nil
            job.lease = StoredLease(
                token: op.token, claimedAt: op.claimedAt, expiresAt: op.expiresAt,
                monotonicExpiry: op.monotonicExpiry, bootID: op.bootID)
            kindControls.countStart(of: job.kind, at: op.claimedAt)
            store(job, at: position)
        case .renewLease(let id, let token, let expiresAt, let monotonicExpiry):
            let (found, position) = try leased(id, token: token, for: .renew)
            var job = found
            job.lease?.expiresAt = expiresAt
            job.lease?.monotonicExpiry = monotonicExpiry
            store(job, at: position)
        case .complete(let id, let token, let at):
            let (found, position) = try leased(id, token: token, for: .complete)
            var job = found
            finish(&job, as: .succeeded, at: at)
            // Its cursor is spent: a success ends the work it pointed into.
            job.checkpoint = nil
            job.lastStopReason = .succeeded
            store(job, at: position)
        case .fail(let id, let token, let at, let error, let nextRetryAt):
            let (found, position) = try leased(id, token: token, for: .fail)
            var job = found
            job.lastError = error
            job.lastStopReason = .failed
            endAttempt(&job, nextRetryAt: nextRetryAt, at: at)
            store(job, at: position)
        case .reclaim(let id, let at, let reason, let nextRetryAt):
            var job = try checkReclaim(id, at: at).job
            job.lastError = reason
            job.lastStopReason = .leaseExpired
            endAttempt(&job, nextRetryAt: nextRetryAt, at: at)
            store(job)
        case .cancel(let id, let at):
            var job = try located(id, in: Self.cancellableStates, for: .cancel).job
            if job.state == .running { job.lastStopReason = .cancelled }
            finish(&job, as: .cancelled, at: at)
            store(job)
        case .retry(let id, let at):
            var job = try checkRetry(id).job
            let wasFinished = job.state.isFinished
            job.state = .enqueued
            job.attempts = 0
            job.starts = 0
            job.nextRetryAt = nil
            job.finishedAt = nil
            job.runAt = at
            if wasFinished, let key = job.uniqueKey { takeUniqueKey(key, for: id) }
            store(job)
        case .reschedule(let id, let runAt, _):
            var job = try located(id, in: Self.reschedulableStates, for: .reschedule).job
            job.runAt = runAt
            job.nextRetryAt = nil
            store(job)
        case .restore(let job):
            try applyRestore(job)
        case .snapshot(let summary):
            guard jobs.isEmpty, nextSequence == 1, self.summary == nil else {
                throw .snapshotNotFirst
            }
            self.summary = summary
            nextSequence = summary.nextSequence
        case .snapshotExtent(let records):
            guard summary != nil, snapshotExtent == nil, jobs.isEmpty, appliedMigration == 0, records >= 1 else {
                throw .snapshotExtentMisplaced
            }
            snapshotExtent = records
        case .expire(let id):
            let job = try checkExpire(id)
            forgetPrerequisites(of: job)
            count(job.state, by: -1)
            jobs[id] = nil
            expiredSinceSnapshot += 1
        case .nextOccurrence(let id, _, let runAt):
            var (job, periodic) = try checkNextOccurrence(id)
            periodic.occurrence += 1
            job.periodic = periodic
            job.checkpoint = nil
            job.state = .enqueued
            job.attempts = 0
            job.starts = 0
            job.nextRetryAt = nil
            job.finishedAt = nil
            job.runAt = runAt
            if let key = job.uniqueKey { takeUniqueKey(key, for: id) }
            store(job)
        case .delete(let id):
            remove(try checkDelete(id))
        case .abandon(let id, let at, let reason):
            var job = try located(id, in: Self.cancellableStates, for: .abandon).job
            job.lastError = reason
            // A running job's attempt ends here, as a failure (FORMAT.md, *Stops*).
            if job.state == .running { job.lastStopReason = .failed }
            finish(&job, as: .failed, at: at)
            store(job)
        case .migrationBegin(let number, _):
            try checkMigrationBegin(number)
            pendingMigration = PendingMigration(number: number, steps: [])
        case .migrateJob, .migrationRemove:
            try checkMigrationStep(operation)
            pendingMigration!.steps.append(operation)
        case .migrationCommit(let number):
            let pending = try checkMigrationCommit(number)
            // All or nothing: the steps go to a copy, which replaces the state once every one applied.
            var next = self
            next.pendingMigration = nil
            var revived: [String] = []
            for step in pending.steps {
                if let id = try next.applyMigrationStep(step) { revived.append(id) }
            }
            // A step may have given back an unfinished image to a job that an earlier step's cascade
            // cancelled: the chain rule holds again once every step applied.
            // In the order of the prerequisite ids' UTF-8 bytes (FORMAT.md), not Swift's String order, which
            // compares canonically equivalent ids as equal.
            let prerequisites = next.dependents.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for id in prerequisites where [.failed, .cancelled].contains(next.jobs[id]?.state) {
                next.propagate(from: id)
            }
            next.dropKeysOfRevivedJobs(revived)
            try next.checkMigratedChains(pending.steps.map(\.jobID))
            next.appliedMigration = number
            self = next
        case .park(let id, let token, let key, let deadline):
            var job = try checkPark(id, token: token, key: key).job
            job.park = StoredPark(key: key, deadline: deadline)
            job.lease?.expiresAt = deadline
            store(job)
        case .checkpoint(let id, let token, let data, let expiresAt, let monotonicExpiry):
            let (found, position) = try leased(id, token: token, for: .checkpoint)
            var job = found
            job.checkpoint = data
            job.lease?.expiresAt = expiresAt
            job.lease?.monotonicExpiry = monotonicExpiry
            store(job, at: position)
        case .restoreCheckpoint(let id, let data):
            guard var job = jobs[id] else { throw .noSuchJob(id: id, action: .restoreCheckpoint) }
            job.checkpoint = data
            store(job)
        case .inboxIngested(let file, let offset):
            inboxOffsets[file] = offset
        case .migrationsApplied(let number):
            guard summary != nil, jobs.isEmpty, appliedMigration == 0 else {
                throw .migrationsAppliedMisplaced
            }
            appliedMigration = number
        case .release, .snooze, .stopReason:
            try applyStop(operation)
        case .pauseKind, .resumeKind, .setRateLimit, .rateWindow:
            try applyKindControl(operation)
        case .result, .prerequisiteResult, .tags:
            try applyResultOrTags(operation)
        case .retrySchedule, .starts:
            try applyRetries(operation)
        case .setConstraints(let id, let constraints):
            let (found, position) = try checkSetConstraints(id)
            var job = found
            job.constraints = constraints
            storeOne(job, at: position)
        }
    }

    /// Removes a job with its unique key, prerequisites, counts and running index.
    mutating func remove(_ job: StoredJob) {
        forgetPrerequisites(of: job)
        releaseUniqueKey(of: job)
        if let park = job.park { parkedKeys[park.key] = nil }
        count(job.state, by: -1)
        if job.state == .running { runningIDs.remove(job.id) }
        jobs[job.id] = nil
    }

    private mutating func applyEnqueue(_ op: LogOperation.Enqueue) throws(Refusal) {
        let idHash = JobTable.hash(of: op.id)
        // Prerequisites: a succeeded one is satisfied; an unfinished one blocks the job; a failed or
        // cancelled one cancels it at once (it can never run, as WorkManager does).
        let (waitingFor, cancelledAtBirth) = try checkEnqueue(
            id: op.id, idHash: idHash, dependencies: op.options.dependencies,
            isPeriodic: op.options.periodic != nil, uniqueKey: op.uniqueKey)
        // In range: decoding refuses others (FieldRanges), and the live path validates them first.
        let priority = Int32(truncatingIfNeeded: op.priority)
        let maxAttempts = Int32(truncatingIfNeeded: op.maxAttempts)
        // One initializer sets the rare fields together (see StoredJob.init): no box for a plain enqueue.
        var job = StoredJob(
            id: op.id, kind: op.kind, state: cancelledAtBirth ? .cancelled : .enqueued, attempts: 0,
            maxAttempts: maxAttempts, priority: priority, sequence: nextSequence,
            createdAt: op.createdAt, runAt: op.runAt, nextRetryAt: nil,
            finishedAt: cancelledAtBirth ? op.createdAt : nil, uniqueKey: op.uniqueKey, lastError: nil,
            payload: op.payload, lease: nil, constraints: op.options.constraints,
            waitingFor: waitingFor,
            periodic: op.options.periodic.map {
                StoredPeriodic(interval: $0.interval, flex: $0.flex, anchor: op.runAt, occurrence: 1)
            })
        // The results of prerequisites that succeeded before it (the chain rule hands over the others).
        if !op.options.dependencies.isEmpty {
            let results = resultsOfSucceeded(op.options.dependencies)
            if !results.isEmpty { job.prerequisiteResults = results }
        }
        highestSequence = max(highestSequence, nextSequence)
        nextSequence += 1
        if let key = op.uniqueKey, !cancelledAtBirth { takeUniqueKey(key, for: op.id) }
        for prerequisite in waitingFor { dependents[prerequisite, default: []].append(op.id) }
        count(job.state, by: 1)
        if job.state == .enqueued && waitingFor.isEmpty { ready.insert(job) }
        // Last: the job moves into the table rather than being copied there.
        jobs.insertNew(job, hash: idHash)
    }

    /// Ends a running attempt: back to enqueued with a deadline, or failed when there is none.
    private func endAttempt(_ job: inout StoredJob, nextRetryAt: Int64?, at: Int64) {
        job.lease = nil
        if let nextRetryAt {
            job.state = .enqueued
            job.nextRetryAt = nextRetryAt
        } else {
            finish(&job, as: .failed, at: at)
        }
    }

    func finish(_ job: inout StoredJob, as state: JobState, at: Int64) {
        job.state = state
        job.lease = nil
        job.nextRetryAt = nil
        job.finishedAt = at
    }

    /// Writes a changed job back, keeping the counts, unique keys and ready index in step,
    /// then carries the change to the jobs that wait for it (see ``propagate(from:)``).
    ///
    /// - Parameter position: The job's ``JobTable/position(of:)`` when the caller has just looked it up.
    mutating func store(_ job: StoredJob, at position: Int? = nil) {
        let previousState = storeOne(job, at: position)
        if previousState != job.state, job.state.isFinished, dependents[job.id] != nil {
            propagate(from: job.id)
        }
    }

    /// Writes a changed job back (see ``store(_:at:)``) without the chain rule.
    /// - Returns: The state the job had before.
    @discardableResult
    mutating func storeOne(_ job: StoredJob, at knownPosition: Int? = nil) -> JobState {
        var job = job
        // One probe (or none) finds the job to compare with and the place to write it back.
        let position = knownPosition ?? jobs.position(of: job.id)!
        let previous = jobs[position: position]
        // A park lives with its lease: an attempt that ends (any way) ends the park.
        if job.lease == nil, job.park != nil { job.park = nil }
        if previous.park != job.park {
            if let park = previous.park { parkedKeys[park.key] = nil }
            if let park = job.park { parkedKeys[park.key] = job.id }
        }
        if previous.state != job.state {
            count(previous.state, by: -1)
            count(job.state, by: 1)
            if previous.state == .running { runningIDs.remove(job.id) }
            if job.state == .running { runningIDs.insert(job.id) }
        }
        if job.state.isFinished { releaseUniqueKey(of: job) }
        let wasReady = previous.state == .enqueued && !previous.isBlocked
        let isReady = job.state == .enqueued && !job.isBlocked
        // The ready index files a job under its kind, priority and constraints: a migration may change the
        // first two, `set_constraints` the last.
        if isReady
            && (!wasReady || previous.dueAt != job.dueAt || previous.kind != job.kind
                || previous.priority != job.priority || previous.constraints != job.constraints)
        {
            job.scheduleVersion &+= 1
            ready.insert(job)
        } else if wasReady && !isReady {
            job.scheduleVersion &+= 1
        }
        jobs.replace(at: position, with: job)
        let live = enqueuedCount
        let snapshot = jobs
        ready.compactIfNeeded(liveCount: live) { snapshot.values.filter { $0.state == .enqueued && !$0.isBlocked } }
        return previous.state
    }

    mutating func count(_ state: JobState, by delta: Int) {
        switch state {
        case .enqueued: enqueuedCount += delta
        case .running: runningCount += delta
        case .failed: failedCount += delta
        default: break
        }
    }
}
