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
struct QueueState: Sendable {
    private(set) var jobs = JobTable()
    /// Unique key → id of the unfinished job holding it: the last enqueued of the unfinished jobs carrying the key.
    private(set) var uniqueKeys: [String: String] = [:]
    /// Unique key → the other unfinished jobs carrying it, in enqueue order (only with policy append,
    /// whose new job takes the key over from its prerequisite).
    private(set) var earlierKeyCarriers: [String: [String]] = [:]
    private(set) var ready = ReadyIndex()
    private(set) var enqueuedCount = 0
    private(set) var runningCount = 0
    /// Jobs in state failed (kept until deleted; automatic compaction counts them as live).
    private(set) var failedCount = 0
    /// The ids of the running jobs, so that lease expiry looks at them only.
    private(set) var runningIDs: Set<String> = []
    /// The next enqueue's ``StoredJob/sequence``.
    private(set) var nextSequence: UInt64 = 1
    /// What the last snapshot said about the queue's past (`nil` before the first compaction).
    private(set) var summary: SnapshotSummary?
    /// Jobs expired since that snapshot.
    private(set) var expiredSinceSnapshot: UInt64 = 0
    /// Jobs expired in all compactions.
    var expiredJobs: UInt64 { (summary?.expiredJobs ?? 0) + expiredSinceSnapshot }
    /// The number of the last job migration applied; 0 before the first.
    private(set) var appliedMigration: UInt64 = 0
    /// A migration begun but not committed yet: its operations wait here until its commit applies
    /// them all at once. Any other operation, a new begin or the end of the log abandons it.
    private(set) var pendingMigration: PendingMigration?

    struct PendingMigration: Sendable {
        var number: UInt64
        var steps: [Operation]
    }

    /// Prerequisite id → the jobs whose ``StoredJob/waitingFor`` names it (derived from the jobs).
    private(set) var dependents: [String: [String]] = [:]
    /// Jobs that the last applied operations changed besides the one each names: dependents
    /// unblocked or cancelled by a cascade. The engine publishes and clears them.
    private(set) var cascadedIDs: [String] = []

    /// What holds on the device now. Not durable and not changed by `apply`: the
    /// engine sets it from the app's reports; claims skip jobs whose constraints it does not satisfy.
    var deviceConditions: DeviceConditions {
        get { ready.conditions }
        set { ready.conditions = newValue }
    }

    /// Returns and clears ``cascadedIDs``.
    mutating func takeCascadedIDs() -> [String] {
        defer { cascadedIDs = [] }
        return cascadedIDs
    }

    // MARK: Applying operations

    /// Applies one operation, or changes nothing and throws when it does not fit.
    mutating func apply(_ operation: Operation) throws(Refusal) {
        if pendingMigration != nil, !operation.continuesMigration {
            // Only a crash in the middle of a migration leaves one pending: it never happened.
            pendingMigration = nil
        }
        switch operation {
        case .enqueue(let op):
            try applyEnqueue(op)
        case .claim(let op):
            let (found, position) = try located(op.id, in: Self.claimableStates, for: .claim)
            var job = found
            job.state = .running
            // Saturating: attempts may be anything up to 2^31-1 (a migration may leave more than the
            // maximum), and a claim past it must not trap; no correct writer gets near it.
            job.attempts = job.attempts == .max ? .max : job.attempts + 1
            job.nextRetryAt = nil
            job.lease = StoredLease(token: op.token, claimedAt: op.claimedAt, expiresAt: op.expiresAt,
                                    monotonicExpiry: op.monotonicExpiry, bootID: op.bootID)
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
            store(job, at: position)
        case .fail(let id, let token, let at, let error, let nextRetryAt):
            let (found, position) = try leased(id, token: token, for: .fail)
            var job = found
            job.lastError = error
            endAttempt(&job, nextRetryAt: nextRetryAt, at: at)
            store(job, at: position)
        case .reclaim(let id, let at, let reason, let nextRetryAt):
            var job = try located(id, in: [.running], for: .reclaim).job
            job.lastError = reason
            endAttempt(&job, nextRetryAt: nextRetryAt, at: at)
            store(job)
        case .cancel(let id, let at):
            var job = try located(id, in: Self.cancellableStates, for: .cancel).job
            finish(&job, as: .cancelled, at: at)
            store(job)
        case .retry(let id, let at):
            var job = try checkRetry(id).job
            let wasFinished = job.state.isFinished
            job.state = .enqueued
            job.attempts = 0
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
        case .expire(let id):
            let job = try located(id, in: Self.expirableStates, for: .expire).job
            try checkNotAwaited(id, for: .expire)
            forgetPrerequisites(of: job)
            count(job.state, by: -1)
            jobs[id] = nil
            expiredSinceSnapshot += 1
        case .nextOccurrence(let id, _, let runAt):
            var (job, periodic) = try checkNextOccurrence(id)
            periodic.occurrence += 1
            job.periodic = periodic
            job.state = .enqueued
            job.attempts = 0
            job.nextRetryAt = nil
            job.finishedAt = nil
            job.runAt = runAt
            if let key = job.uniqueKey { takeUniqueKey(key, for: id) }
            store(job)
        case .delete(let id):
            guard let job = jobs[id] else { throw .noSuchJob(id: id, action: .delete) }
            try checkNotAwaited(id, for: .delete)
            remove(job)
        case .abandon(let id, let at, let reason):
            var job = try located(id, in: Self.cancellableStates, for: .abandon).job
            job.lastError = reason
            finish(&job, as: .failed, at: at)
            store(job)
        case .migrationBegin(let number, _):
            guard number > appliedMigration else {
                throw .migrationNotNewer(number: number, applied: appliedMigration)
            }
            pendingMigration = PendingMigration(number: number, steps: [])
        case .migrateJob, .migrationRemove:
            guard pendingMigration != nil else {
                throw .stepOutsideMigration(id: operation.jobID)
            }
            pendingMigration!.steps.append(operation)
        case .migrationCommit(let number):
            guard let pending = pendingMigration, pending.number == number else {
                throw .commitNotBegun(number: number)
            }
            // All or nothing: the steps go to a copy, which replaces the state once every one applied.
            var next = self
            next.pendingMigration = nil
            for step in pending.steps { try next.applyMigrationStep(step) }
            // A step may have given back an unfinished image to a job that an earlier step's cascade
            // cancelled: the chain rule holds again once every step applied.
            // In the order of the prerequisite ids' UTF-8 bytes (FORMAT.md), not Swift's String order, which
            // compares canonically equivalent ids as equal.
            let prerequisites = next.dependents.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for id in prerequisites where [.failed, .cancelled].contains(next.jobs[id]?.state) {
                next.propagate(from: id)
            }
            next.appliedMigration = number
            self = next
        case .migrationsApplied(let number):
            guard summary != nil, jobs.isEmpty, appliedMigration == 0 else {
                throw .migrationsAppliedMisplaced
            }
            appliedMigration = number
        }
    }

    /// The end of the log: a migration still pending was cut short by a crash and never happened.
    mutating func abandonPendingMigration() {
        pendingMigration = nil
    }

    /// One step of a committed migration.
    private mutating func applyMigrationStep(_ step: Operation) throws(Refusal) {
        switch step {
        case .migrationRemove(let id):
            guard let job = jobs[id] else { throw .noSuchJob(id: id, action: .migrationRemove) }
            try checkNotAwaited(id, for: .migrationRemove)
            remove(job)
        case .migrateJob(let image):
            let previous = jobs[image.id]
            guard let payload = image.payload ?? previous?.payload else {
                throw .migratedWithoutPayload(id: image.id)
            }
            guard (image.state == .running) == (image.lease != nil),
                  !(image.state.isFinished && image.nextRetryAt != nil) else {
                throw .migratedInconsistent(id: image.id)
            }
            let keyEffect = try uniqueKeyEffect(ofMigrated: image)
            if var job = previous {
                // The job keeps its place, unique key, constraints, prerequisites and schedule; `store`
                // keeps the indexes in step and cancels its dependents if the migration ended it.
                guard image.uniqueKey == job.uniqueKey, image.createdAt == job.createdAt else {
                    throw .migratedKeyChanged(id: image.id)
                }
                job.kind = image.kind
                job.state = image.state
                job.attempts = image.attempts
                job.maxAttempts = image.maxAttempts
                job.priority = image.priority
                job.runAt = image.runAt
                job.nextRetryAt = image.nextRetryAt
                job.finishedAt = image.finishedAt
                job.lastError = image.lastError
                job.payload = payload
                job.lease = image.lease
                store(job)
                return
            }
            let job = StoredJob(id: image.id, kind: image.kind, state: image.state, attempts: image.attempts,
                                maxAttempts: image.maxAttempts, priority: image.priority,
                                sequence: nextSequence, createdAt: image.createdAt,
                                runAt: image.runAt, nextRetryAt: image.nextRetryAt, finishedAt: image.finishedAt,
                                uniqueKey: image.uniqueKey, lastError: image.lastError, payload: payload,
                                lease: image.lease)
            nextSequence += 1
            if case .takes(let key) = keyEffect { takeUniqueKey(key, for: job.id) }
            count(job.state, by: 1)
            if job.state == .running { runningIDs.insert(job.id) }
            jobs[job.id] = job
            if job.state == .enqueued { ready.insert(job) }
        default:
            throw .notAMigrationStep(id: step.jobID)
        }
    }

    // MARK: Migrations and unique keys

    /// What a `migrate_job` step does with the unique key its image carries.
    enum MigratedKeyEffect: Equatable {
        /// Nothing: the image has no key or is finished, or the job was unfinished and keeps carrying its key.
        case none
        /// A new unfinished job takes its key, which no job holds.
        case takes(key: String)
        /// A finished job given an unfinished image carries its key without taking it, free or held:
        /// a migration never moves a key. The engine writes this only for a job that an earlier
        /// step's cascade cancelled, which the commit's chain rule cancels again.
        case leaves(key: String)
    }

    /// The one rule for a migration's images and unique keys (FORMAT.md, `migrate_job`), judged in the
    /// state as the step finds it: ``applyMigrationStep(_:)`` applies it, and the migration planner's
    /// check reports its refusal. A new unfinished job takes its key when it is free and is refused
    /// when another unfinished job holds it; an existing job's image takes no key (its key must stay the
    /// same; an image that ends the job frees it, as any end does): finished to unfinished, the job
    /// carries its key without holding it.
    /// That is how every earlier build applied these records, so every log they wrote still opens.
    func uniqueKeyEffect(ofMigrated image: MigratedJob) throws(Refusal) -> MigratedKeyEffect {
        guard let key = image.uniqueKey, !image.state.isFinished else { return .none }
        if let previous = jobs[image.id] {
            return previous.state.isFinished ? .leaves(key: key) : .none
        }
        if let holder = uniqueKeys[key] { throw .uniqueKeyHeld(id: image.id, action: .migrateJob, key: key, holder: holder) }
        return .takes(key: key)
    }

    /// Removes a job with its unique key, prerequisites, counts and running index.
    private mutating func remove(_ job: StoredJob) {
        forgetPrerequisites(of: job)
        releaseUniqueKey(of: job)
        count(job.state, by: -1)
        if job.state == .running { runningIDs.remove(job.id) }
        jobs[job.id] = nil
    }

    private mutating func applyEnqueue(_ op: Operation.Enqueue) throws(Refusal) {
        let idHash = JobTable.hash(of: op.id)
        // Prerequisites: a succeeded one is satisfied; an unfinished one blocks the job; a failed or
        // cancelled one cancels it at once (it can never run, as WorkManager does).
        let (waitingFor, cancelledAtBirth) = try checkEnqueue(id: op.id, idHash: idHash, dependencies: op.options.dependencies,
                                                              isPeriodic: op.options.periodic != nil, uniqueKey: op.uniqueKey)
        // In range: decoding refuses others (FieldRanges), and the live path validates them first.
        let priority = Int32(truncatingIfNeeded: op.priority), maxAttempts = Int32(truncatingIfNeeded: op.maxAttempts)
        // One initializer sets the rare fields together (see StoredJob.init): no box for a plain enqueue.
        let job = StoredJob(id: op.id, kind: op.kind, state: cancelledAtBirth ? .cancelled : .enqueued, attempts: 0,
                            maxAttempts: maxAttempts, priority: priority, sequence: nextSequence,
                            createdAt: op.createdAt, runAt: op.runAt, nextRetryAt: nil,
                            finishedAt: cancelledAtBirth ? op.createdAt : nil, uniqueKey: op.uniqueKey, lastError: nil,
                            payload: op.payload, lease: nil, constraints: op.options.constraints,
                            waitingFor: waitingFor,
                            periodic: op.options.periodic.map {
                                StoredPeriodic(interval: $0.interval, flex: $0.flex, anchor: op.runAt, occurrence: 1)
                            })
        nextSequence += 1
        if let key = op.uniqueKey, !cancelledAtBirth { takeUniqueKey(key, for: op.id) }
        for prerequisite in waitingFor { dependents[prerequisite, default: []].append(op.id) }
        count(job.state, by: 1)
        if job.state == .enqueued && waitingFor.isEmpty { ready.insert(job) }
        // Last: the job moves into the table rather than being copied there.
        jobs.insertNew(job, hash: idHash)
    }

    /// Removes a job that is about to disappear from the dependents index.
    private mutating func forgetPrerequisites(of job: StoredJob) {
        for prerequisite in job.waitingFor {
            dependents[prerequisite]?.removeAll { $0 == job.id }
            if dependents[prerequisite]?.isEmpty == true { dependents[prerequisite] = nil }
        }
    }

    /// Recreates a job exactly as a snapshot recorded it.
    private mutating func applyRestore(_ restored: consuming StoredJob) throws(Refusal) {
        var job = restored
        job.scheduleVersion = 0
        let idHash = JobTable.hash(of: job.id)
        guard !jobs.contains(job.id, hash: idHash) else { throw .idExists(id: job.id, action: .restore) }
        guard (job.state == .running) == (job.lease != nil) else {
            throw .restoredLeaseMismatch(id: job.id)
        }
        if let key = job.uniqueKey, !job.state.isFinished {
            // Jobs are restored in enqueue order, so the last unfinished carrier of a key
            // takes it last; an earlier one still holding it must be its prerequisite (policy append).
            if let holder = uniqueKeys[key], !job.waitingFor.contains(holder) {
                throw .uniqueKeyHeld(id: job.id, action: .restore, key: key, holder: holder)
            }
            takeUniqueKey(key, for: job.id)
        }
        nextSequence = max(nextSequence, job.sequence + 1)
        count(job.state, by: 1)
        if job.state == .running { runningIDs.insert(job.id) }
        for prerequisite in job.waitingFor { dependents[prerequisite, default: []].append(job.id) }
        if job.state == .enqueued && !job.isBlocked { ready.insert(job) }
        // Last: the job moves into the table rather than being copied there.
        jobs.insertNew(job, hash: idHash)
    }

    /// Sizes the job index ahead of a replay of `bytes` more log bytes (a job
    /// takes at least ~128 of them in a log written by this build), so that it
    /// does not rehash as it grows.
    mutating func reserveJobs(forLogBytes bytes: Int) {
        jobs.reserveCapacity(jobs.count + bytes / 128)
        ready.reserveCapacity(bytes / 128)
    }

    /// Gives back an index sized for far more jobs than the replay found.
    mutating func finishReplay() {
        jobs.shrinkIndexIfSparse()
        // Cascades replayed are history, not changes for the first live commit to publish.
        cascadedIDs = []
    }

    /// Points the payloads of jobs at their copies in a snapshot, for those
    /// whose payload has not changed since (compaction, once the snapshot is durable).
    mutating func relocatePayloads(_ moves: [String: (from: PayloadLocation, to: PayloadLocation)]) {
        for (id, move) in moves {
            guard var job = jobs[id], job.payload == move.from else { continue }
            job.payload = move.to
            jobs[id] = job
        }
    }

    /// Takes the summary a completed snapshot recorded.
    mutating func adoptSummary(_ summary: SnapshotSummary) {
        self.summary = summary
        expiredSinceSnapshot = 0
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

    private func finish(_ job: inout StoredJob, as state: JobState, at: Int64) {
        job.state = state
        job.lease = nil
        job.nextRetryAt = nil
        job.finishedAt = at
    }

    /// Writes a changed job back, keeping the counts, unique keys and ready index in step,
    /// then carries the change to the jobs that wait for it (see ``propagate(from:)``).
    ///
    /// - Parameter position: The job's ``JobTable/position(of:)`` when the caller has just looked it up.
    private mutating func store(_ job: StoredJob, at position: Int? = nil) {
        let previousState = storeOne(job, at: position)
        if previousState != job.state, job.state.isFinished, dependents[job.id] != nil {
            propagate(from: job.id)
        }
    }

    /// Writes a changed job back (see ``store(_:)``) without the chain rule.
    /// - Returns: The state the job had before.
    @discardableResult
    private mutating func storeOne(_ job: StoredJob, at knownPosition: Int? = nil) -> JobState {
        var job = job
        // One probe (or none) finds the job to compare with and the place to write it back.
        let position = knownPosition ?? jobs.position(of: job.id)!
        let previous = jobs[position: position]
        if previous.state != job.state {
            count(previous.state, by: -1)
            count(job.state, by: 1)
            if previous.state == .running { runningIDs.remove(job.id) }
            if job.state == .running { runningIDs.insert(job.id) }
        }
        if job.state.isFinished { releaseUniqueKey(of: job) }
        let wasReady = previous.state == .enqueued && !previous.isBlocked
        let isReady = job.state == .enqueued && !job.isBlocked
        // The ready index files a job under its kind, priority and constraints: a migration may change them.
        if isReady && (!wasReady || previous.dueAt != job.dueAt || previous.kind != job.kind
                       || previous.priority != job.priority) {
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

    /// The chain rule, applied when a job finished: its success unblocks the jobs
    /// waiting for it (each runs once all its prerequisites succeeded); its failure
    /// or cancellation cancels every unfinished job waiting for it, transitively,
    /// at the same instant. A worklist, not recursion: chains may be long.
    private mutating func propagate(from finishedID: String) {
        var worklist = [finishedID]
        while let id = worklist.popLast() {
            guard let prerequisite = jobs[id], prerequisite.state.isFinished, let waiting = dependents[id] else { continue }
            if prerequisite.state == .succeeded {
                dependents[id] = nil
                for dependentID in waiting {
                    guard var dependent = jobs[dependentID] else { continue }
                    dependent.waitingFor.removeAll { $0 == id }
                    storeOne(dependent)
                    cascadedIDs.append(dependentID)
                }
            } else {
                for dependentID in waiting {
                    guard var dependent = jobs[dependentID], !dependent.state.isFinished else { continue }
                    finish(&dependent, as: .cancelled, at: prerequisite.finishedAt ?? dependent.createdAt)
                    storeOne(dependent)
                    cascadedIDs.append(dependentID)
                    if dependents[dependentID] != nil { worklist.append(dependentID) }
                }
            }
        }
    }

    /// The unfinished jobs that cancelling the jobs `ids` would cancel by the chain rule, transitively.
    func unfinishedDependents(of ids: [String]) -> Set<String> {
        var found = Set<String>()
        var worklist = ids
        while let id = worklist.popLast() {
            for dependentID in dependents[id] ?? [] {
                guard let dependent = jobs[dependentID], !dependent.state.isFinished,
                      found.insert(dependentID).inserted else { continue }
                worklist.append(dependentID)
            }
        }
        return found
    }

    /// Makes `id` the holder of `key`; a previous holder (the prerequisite of a job
    /// enqueued with policy append) stays an earlier carrier.
    private mutating func takeUniqueKey(_ key: String, for id: String) {
        if let holder = uniqueKeys[key], holder != id { earlierKeyCarriers[key, default: []].append(holder) }
        uniqueKeys[key] = id
    }

    /// A finished job gives up its unique key: the latest earlier carrier, if any, holds it next.
    private mutating func releaseUniqueKey(of job: StoredJob) {
        guard let key = job.uniqueKey else { return }
        if uniqueKeys[key] == job.id {
            uniqueKeys[key] = earlierKeyCarriers[key]?.popLast()
        } else {
            earlierKeyCarriers[key]?.removeAll { $0 == job.id }
        }
        if earlierKeyCarriers[key]?.isEmpty == true { earlierKeyCarriers[key] = nil }
    }

    /// Every unfinished job carrying `key`, in enqueue order: with policy append, a chain of
    /// jobs shares a key, the last one holding it.
    func unfinishedCarriers(of key: String) -> [String] {
        guard let holder = uniqueKeys[key] else { return [] }
        return (earlierKeyCarriers[key] ?? []) + [holder]
    }

    private mutating func count(_ state: JobState, by delta: Int) {
        switch state {
        case .enqueued: enqueuedCount += delta
        case .running: runningCount += delta
        case .failed: failedCount += delta
        default: break
        }
    }

    // MARK: Queries

    /// Whether an entry of the ready index still describes its job.
    private static func isCurrent(_ entry: ReadyIndex.Entry, in jobs: JobTable) -> Bool {
        guard let job = jobs[entry.id] else { return false }
        return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
            && !job.isBlocked
    }

    /// The job a claim at `now` should take: due, not blocked, its constraints met by ``deviceConditions``.
    mutating func bestReadyJob(at now: Int64, kind: String?) -> StoredJob? {
        bestReadyJob(at: now, kinds: KindSet(kind))
    }

    /// The job a claim at `now` should take among the jobs of `kinds`.
    mutating func bestReadyJob(at now: Int64, kinds: KindSet) -> StoredJob? {
        guard !kinds.isEmpty else { return nil }
        let jobs = self.jobs
        guard let entry = ready.best(dueAt: now, kinds: kinds, isCurrent: { Self.isCurrent($0, in: jobs) }) else { return nil }
        return jobs[entry.id]
    }

    /// The earliest due time of any job a claim could take once due (not blocked, its
    /// constraints met by ``deviceConditions``), optionally of one kind.
    mutating func earliestDue(kind: String?) -> Int64? {
        earliestDue(kinds: KindSet(kind))
    }

    /// The earliest due time of any job of `kinds` a claim could take once due (not blocked,
    /// its constraints met by ``deviceConditions``).
    mutating func earliestDue(kinds: KindSet) -> Int64? {
        guard !kinds.isEmpty else { return nil }
        let jobs = self.jobs
        let conditions = ready.conditions
        return ready.earliestDue(where: { kinds.contains($0.kind) && ($0.constraints.map(conditions.satisfies) ?? true) },
                                 isCurrent: { Self.isCurrent($0, in: jobs) })
    }

    /// The earliest due time of the unblocked enqueued jobs requiring exactly `constraints`,
    /// whatever the device conditions, optionally of one kind.
    mutating func earliestDue(kind: String?, constraints: JobConstraints) -> Int64? {
        let jobs = self.jobs
        let wanted: JobConstraints? = constraints.isEmpty ? nil : constraints
        return ready.earliestDue(where: { (kind == nil || $0.kind == kind) && $0.constraints == wanted },
                                 isCurrent: { Self.isCurrent($0, in: jobs) })
    }

    /// The earliest due time of the unblocked enqueued jobs, per constraint set, whatever the conditions.
    mutating func earliestDueByConstraints() -> [JobConstraints: Int64] {
        let jobs = self.jobs
        return ready.earliestDueByConstraints(isCurrent: { Self.isCurrent($0, in: jobs) })
    }

    /// The running jobs.
    var runningJobs: [StoredJob] {
        runningIDs.compactMap { jobs[$0] }
    }

    /// How many jobs are in each state.
    var countsByState: [JobState: Int] {
        var counts: [JobState: Int] = [:]
        for job in jobs.values { counts[job.state, default: 0] += 1 }
        return counts
    }
}
