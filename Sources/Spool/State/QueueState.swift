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
    private(set) var jobs: [String: StoredJob] = [:]
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

    /// Why an operation did not fit the state.
    struct Inapplicable: Error, Equatable, CustomStringConvertible {
        let jobID: String
        let reason: String
        var description: String { "job \(jobID): \(reason)" }
    }

    // MARK: Applying operations

    /// Applies one operation, or changes nothing and throws when it does not fit.
    mutating func apply(_ operation: Operation) throws(Inapplicable) {
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
            releaseUniqueKey(of: job)
            count(job.state, by: -1)
            if job.state == .running { runningIDs.remove(id) }
            jobs[id] = nil
        }
    }

    private mutating func applyEnqueue(_ op: Operation.Enqueue) throws(Inapplicable) {
        guard jobs[op.id] == nil else { throw Inapplicable(jobID: op.id, reason: "enqueue: the id exists") }
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
        guard jobs[job.id] == nil else { throw Inapplicable(jobID: job.id, reason: "restore: the id exists") }
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

    /// The job a claim at `now` should take, optionally of one kind.
    mutating func bestReadyJob(at now: Int64, kind: String?) -> StoredJob? {
        bestReadyJob(at: now, kinds: KindSet(kind))
    }

    /// The job a claim at `now` should take among the jobs of `kinds`.
    mutating func bestReadyJob(at now: Int64, kinds: KindSet) -> StoredJob? {
        guard !kinds.isEmpty else { return nil }
        let jobs = self.jobs
        guard let entry = ready.best(dueAt: now, kinds: kinds, isCurrent: { entry in
            guard let job = jobs[entry.id] else { return false }
            return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
        }) else { return nil }
        return jobs[entry.id]
    }

    /// The earliest due time of any enqueued job of `kinds`.
    mutating func earliestDue(kinds: KindSet) -> Int64? {
        guard !kinds.isEmpty else { return nil }
        let jobs = self.jobs
        return ready.earliestDue(kinds: kinds) { entry in
            guard let job = jobs[entry.id] else { return false }
            return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
        }
    }

    /// The running jobs.
    var runningJobs: [StoredJob] {
        runningIDs.compactMap { jobs[$0] }
    }
}
