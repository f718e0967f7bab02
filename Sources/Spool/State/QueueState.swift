/// The queue's whole state in memory, rebuilt from the log on open and kept
/// current by the live path, both through ``apply(_:)``.
///
/// `apply` is the one place where a recorded operation changes state. It reads
/// neither the clock nor the disk: every time and token it needs is in the
/// operation. It checks that the operation fits the state (the job exists, is
/// in the right state, the lease token matches) and changes nothing when it does
/// not; the live path checks the same before it writes, so a refusal here means
/// a damaged or hand-edited log.
struct QueueState: Sendable {
    private(set) var jobs = JobTable()
    /// Unique key → id of the unfinished job holding it.
    private(set) var uniqueKeys: [String: String] = [:]
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

    /// Why an operation did not fit the state.
    struct Inapplicable: Error, Equatable, CustomStringConvertible {
        let jobID: String
        let reason: String
        var description: String { "job \(jobID): \(reason)" }
    }

    // MARK: Applying operations

    /// Applies one operation, or changes nothing and throws when it does not fit.
    mutating func apply(_ operation: Operation) throws(Inapplicable) {
        if pendingMigration != nil, !operation.continuesMigration {
            // Only a crash in the middle of a migration leaves one pending: it never happened.
            pendingMigration = nil
        }
        switch operation {
        case .enqueue(let op):
            try applyEnqueue(op)
        case .claim(let op):
            var job = try existing(op.id, in: [.enqueued], for: "claim")
            job.state = .running
            job.attempts += 1
            job.nextRetryAt = nil
            job.lease = StoredLease(token: op.token, claimedAt: op.claimedAt, expiresAt: op.expiresAt,
                                    monotonicExpiry: op.monotonicExpiry, bootID: op.bootID)
            store(job)
        case .renewLease(let id, let token, let expiresAt, let monotonicExpiry):
            var job = try leased(id, token: token, for: "renew")
            job.lease?.expiresAt = expiresAt
            job.lease?.monotonicExpiry = monotonicExpiry
            store(job)
        case .complete(let id, let token, let at):
            var job = try leased(id, token: token, for: "complete")
            finish(&job, as: .succeeded, at: at)
            store(job)
        case .fail(let id, let token, let at, let error, let nextRetryAt):
            var job = try leased(id, token: token, for: "fail")
            job.lastError = error
            endAttempt(&job, nextRetryAt: nextRetryAt, at: at)
            store(job)
        case .reclaim(let id, let at, let reason, let nextRetryAt):
            var job = try existing(id, in: [.running], for: "reclaim")
            job.lastError = reason
            endAttempt(&job, nextRetryAt: nextRetryAt, at: at)
            store(job)
        case .cancel(let id, let at):
            var job = try existing(id, in: [.enqueued, .running], for: "cancel")
            finish(&job, as: .cancelled, at: at)
            store(job)
        case .retry(let id, let at):
            var job = try existing(id, in: [.enqueued, .failed, .cancelled], for: "retry")
            if let key = job.uniqueKey, let holder = uniqueKeys[key], holder != id {
                throw Inapplicable(jobID: id, reason: "retry: unique key \(key) is held by job \(holder)")
            }
            job.state = .enqueued
            job.attempts = 0
            job.nextRetryAt = nil
            job.finishedAt = nil
            job.runAt = at
            if let key = job.uniqueKey { uniqueKeys[key] = id }
            store(job)
        case .reschedule(let id, let runAt, _):
            var job = try existing(id, in: [.enqueued], for: "reschedule")
            job.runAt = runAt
            job.nextRetryAt = nil
            store(job)
        case .restore(let job):
            try applyRestore(job)
        case .snapshot(let summary):
            guard jobs.isEmpty, nextSequence == 1, self.summary == nil else {
                throw Inapplicable(jobID: "", reason: "snapshot: the state is not empty (a snapshot starts a replay)")
            }
            self.summary = summary
            nextSequence = summary.nextSequence
        case .expire(let id):
            let job = try existing(id, in: [.succeeded, .cancelled], for: "expire")
            count(job.state, by: -1)
            jobs[id] = nil
            expiredSinceSnapshot += 1
        case .delete(let id):
            guard let job = jobs[id] else { throw Inapplicable(jobID: id, reason: "delete: no such job") }
            remove(job)
        case .abandon(let id, let at, let reason):
            var job = try existing(id, in: [.enqueued, .running], for: "abandon")
            job.lastError = reason
            finish(&job, as: .failed, at: at)
            store(job)
        case .migrationBegin(let number, _):
            guard number > appliedMigration else {
                throw Inapplicable(jobID: "", reason: "migration \(number) begins after migration \(appliedMigration) was applied")
            }
            pendingMigration = PendingMigration(number: number, steps: [])
        case .migrateJob, .migrationRemove:
            guard pendingMigration != nil else {
                throw Inapplicable(jobID: operation.jobID, reason: "a migration step outside a migration")
            }
            pendingMigration!.steps.append(operation)
        case .migrationCommit(let number):
            guard let pending = pendingMigration, pending.number == number else {
                throw Inapplicable(jobID: "", reason: "commit of migration \(number), which is not the one begun")
            }
            // All or nothing: the steps go to a copy, which replaces the state once every one applied.
            var next = self
            next.pendingMigration = nil
            for step in pending.steps { try next.applyMigrationStep(step) }
            next.appliedMigration = number
            self = next
        case .migrationsApplied(let number):
            guard summary != nil, jobs.isEmpty, appliedMigration == 0 else {
                throw Inapplicable(jobID: "", reason: "migrations applied: only at the start of a snapshot")
            }
            appliedMigration = number
        }
    }

    /// The end of the log: a migration still pending was cut short by a crash and never happened.
    mutating func abandonPendingMigration() {
        pendingMigration = nil
    }

    /// One step of a committed migration.
    private mutating func applyMigrationStep(_ step: Operation) throws(Inapplicable) {
        switch step {
        case .migrationRemove(let id):
            guard let job = jobs[id] else { throw Inapplicable(jobID: id, reason: "migration remove: no such job") }
            remove(job)
        case .migrateJob(let image):
            let previous = jobs[image.id]
            guard let payload = image.payload ?? previous?.payload else {
                throw Inapplicable(jobID: image.id, reason: "migrated job: a new job without a payload")
            }
            guard (image.state == .running) == (image.lease != nil), image.maxAttempts >= 1,
                  !(image.state.isFinished && image.nextRetryAt != nil) else {
                throw Inapplicable(jobID: image.id, reason: "migrated job: inconsistent state, lease or deadline")
            }
            if let previous { remove(previous) }
            if let key = image.uniqueKey, !image.state.isFinished, let holder = uniqueKeys[key] {
                throw Inapplicable(jobID: image.id, reason: "migrated job: unique key \(key) is held by job \(holder)")
            }
            var job = StoredJob(id: image.id, kind: image.kind, state: image.state, attempts: image.attempts,
                                maxAttempts: image.maxAttempts, priority: image.priority,
                                sequence: previous?.sequence ?? nextSequence, createdAt: image.createdAt,
                                runAt: image.runAt, nextRetryAt: image.nextRetryAt, finishedAt: image.finishedAt,
                                uniqueKey: image.uniqueKey, lastError: image.lastError, payload: payload,
                                lease: image.lease)
            if previous == nil { nextSequence += 1 }
            // Entries of the ready index for the job's previous image must not match the new one.
            job.scheduleVersion = (previous?.scheduleVersion ?? 0) &+ 1
            if let key = job.uniqueKey, !job.state.isFinished { uniqueKeys[key] = job.id }
            count(job.state, by: 1)
            if job.state == .running { runningIDs.insert(job.id) }
            jobs[job.id] = job
            if job.state == .enqueued { ready.insert(job) }
        default:
            throw Inapplicable(jobID: step.jobID, reason: "not a migration step")
        }
    }

    /// Removes a job with its unique key, counts and running index.
    private mutating func remove(_ job: StoredJob) {
        releaseUniqueKey(of: job)
        count(job.state, by: -1)
        if job.state == .running { runningIDs.remove(job.id) }
        jobs[job.id] = nil
    }

    private mutating func applyEnqueue(_ op: Operation.Enqueue) throws(Inapplicable) {
        guard !jobs.contains(op.id) else { throw Inapplicable(jobID: op.id, reason: "enqueue: the id exists") }
        if let key = op.uniqueKey, let holder = uniqueKeys[key] {
            throw Inapplicable(jobID: op.id, reason: "enqueue: unique key \(key) is held by job \(holder)")
        }
        guard let priority = Int32(exactly: op.priority), let maxAttempts = Int32(exactly: op.maxAttempts),
              maxAttempts >= 1 else {
            throw Inapplicable(jobID: op.id, reason: "enqueue: priority or maximum attempts out of range")
        }
        let job = StoredJob(id: op.id, kind: op.kind, state: .enqueued, attempts: 0, maxAttempts: maxAttempts,
                            priority: priority, sequence: nextSequence, createdAt: op.createdAt, runAt: op.runAt,
                            nextRetryAt: nil, finishedAt: nil, uniqueKey: op.uniqueKey, lastError: nil,
                            payload: op.payload, lease: nil)
        nextSequence += 1
        if let key = op.uniqueKey { uniqueKeys[key] = op.id }
        count(.enqueued, by: 1)
        jobs[op.id] = job
        ready.insert(job)
    }

    /// Recreates a job exactly as a snapshot recorded it.
    private mutating func applyRestore(_ restored: StoredJob) throws(Inapplicable) {
        var job = restored
        job.scheduleVersion = 0
        guard !jobs.contains(job.id) else { throw Inapplicable(jobID: job.id, reason: "restore: the id exists") }
        guard (job.state == .running) == (job.lease != nil), job.maxAttempts >= 1 else {
            throw Inapplicable(jobID: job.id, reason: "restore: a lease without running, or running without a lease")
        }
        if let key = job.uniqueKey, !job.state.isFinished {
            if let holder = uniqueKeys[key] {
                throw Inapplicable(jobID: job.id, reason: "restore: unique key \(key) is held by job \(holder)")
            }
            uniqueKeys[key] = job.id
        }
        nextSequence = max(nextSequence, job.sequence + 1)
        count(job.state, by: 1)
        if job.state == .running { runningIDs.insert(job.id) }
        jobs[job.id] = job
        if job.state == .enqueued { ready.insert(job) }
    }

    /// Sizes the job index ahead of a replay of `bytes` more log bytes (a job
    /// takes at least ~128 of them in a log written by this build), so that it
    /// does not rehash as it grows.
    mutating func reserveJobs(forLogBytes bytes: Int) {
        jobs.reserveIndexCapacity(jobs.count + bytes / 128)
    }

    /// Gives back an index sized for far more jobs than the replay found.
    mutating func finishReplay() {
        jobs.shrinkIndexIfSparse()
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

    /// Writes a changed job back, keeping the counts, unique keys and ready index in step.
    private mutating func store(_ job: StoredJob) {
        var job = job
        let previous = jobs[job.id]!
        if previous.state != job.state {
            count(previous.state, by: -1)
            count(job.state, by: 1)
            if previous.state == .running { runningIDs.remove(job.id) }
            if job.state == .running { runningIDs.insert(job.id) }
        }
        if job.state.isFinished { releaseUniqueKey(of: job) }
        if job.state == .enqueued && (previous.state != .enqueued || previous.dueAt != job.dueAt) {
            job.scheduleVersion &+= 1
            ready.insert(job)
        } else if previous.state == .enqueued && job.state != .enqueued {
            job.scheduleVersion &+= 1
        }
        jobs[job.id] = job
        let live = enqueuedCount
        let snapshot = jobs
        ready.compactIfNeeded(liveCount: live) { snapshot.values.filter { $0.state == .enqueued } }
    }

    private mutating func releaseUniqueKey(of job: StoredJob) {
        if let key = job.uniqueKey, uniqueKeys[key] == job.id { uniqueKeys[key] = nil }
    }

    private mutating func count(_ state: JobState, by delta: Int) {
        switch state {
        case .enqueued: enqueuedCount += delta
        case .running: runningCount += delta
        case .failed: failedCount += delta
        default: break
        }
    }

    private func existing(_ id: String, in states: [JobState], for action: String) throws(Inapplicable) -> StoredJob {
        guard let job = jobs[id] else { throw Inapplicable(jobID: id, reason: "\(action): no such job") }
        guard states.contains(job.state) else {
            throw Inapplicable(jobID: id, reason: "\(action): job is \(job.state.rawValue)")
        }
        return job
    }

    private func leased(_ id: String, token: UInt64, for action: String) throws(Inapplicable) -> StoredJob {
        let job = try existing(id, in: [.running], for: action)
        guard job.lease?.token == token else { throw Inapplicable(jobID: id, reason: "\(action): stale lease token") }
        return job
    }

    // MARK: Queries

    /// The job a claim at `now` should take.
    mutating func bestReadyJob(at now: Int64, kind: String?) -> StoredJob? {
        let jobs = self.jobs
        guard let entry = ready.best(dueAt: now, kind: kind, isCurrent: { entry in
            guard let job = jobs[entry.id] else { return false }
            return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
        }) else { return nil }
        return jobs[entry.id]
    }

    /// The earliest due time of any enqueued job, optionally of one kind.
    mutating func earliestDue(kind: String?) -> Int64? {
        let jobs = self.jobs
        return ready.earliestDue(kind: kind) { entry in
            guard let job = jobs[entry.id] else { return false }
            return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
        }
    }

    /// The running jobs.
    var runningJobs: [StoredJob] {
        runningIDs.compactMap { jobs[$0] }
    }
}
