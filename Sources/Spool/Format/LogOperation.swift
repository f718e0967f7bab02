/// One state change. A record's body is a list of these, applied together.
///
/// Times are milliseconds since 1970 UTC. Every value the state change needs
/// (a deadline, a lease token) is decided by the caller and recorded here, so
/// applying an operation reads neither the clock nor the disk.
enum LogOperation: Equatable, Sendable {
    case enqueue(Enqueue)
    case claim(Claim)
    case renewLease(id: String, token: UInt64, expiresAt: Int64, monotonicExpiry: UInt64)
    case complete(id: String, token: UInt64, at: Int64)
    /// `nextRetryAt == nil` ends the job failed; otherwise it goes back to enqueued.
    case fail(id: String, token: UInt64, at: Int64, error: String, nextRetryAt: Int64?)
    case cancel(id: String, at: Int64)
    /// A manual retry: attempts back to 0, deadline cleared, due at `at`.
    case retry(id: String, at: Int64)
    case reschedule(id: String, runAt: Int64, at: Int64)
    case delete(id: String)
    /// A lease ended without a result (orphaned at open, or expired).
    /// `nextRetryAt == nil` ends the job failed (its attempts are spent).
    case reclaim(id: String, at: Int64, reason: String, nextRetryAt: Int64?)
    /// A whole job as a snapshot holds it; its payload lies in the snapshot file.
    case restore(StoredJob)
    /// The first operation of a snapshot file: the queue's summary and where the log goes on.
    case snapshot(SnapshotSummary)
    /// Right after `snapshot`, in the snapshot's first record: the number of records the snapshot holds.
    case snapshotExtent(records: UInt64)
    /// Compaction drops a finished job past the retention period and counts it in the summary.
    case expire(id: String)
    /// Starts job migration `number`: the migration operations up to its commit apply together, or not at all.
    case migrationBegin(number: UInt64, at: Int64)
    /// A job as the pending migration leaves it (replacing the job with its id, or a new one).
    /// Boxed: the image is the largest payload, and migrations are rare.
    indirect case migrateJob(MigratedJob)
    /// The pending migration removes a job (the original of a split).
    case migrationRemove(id: String)
    /// Applies the pending migration `number` and records it as the queue's applied migration.
    case migrationCommit(number: UInt64)
    /// In a snapshot: the number of the last job migration the queue applied.
    case migrationsApplied(number: UInt64)
    /// A job this build cannot run ends failed for good, with the reason.
    case abandon(id: String, at: Int64, reason: String)
    /// A periodic job whose occurrence just ended (succeeded or failed, earlier in the same record)
    /// goes back to enqueued for its next occurrence, due at `runAt`, with a fresh attempt budget.
    case nextOccurrence(id: String, at: Int64, runAt: Int64)
    /// The running job leased under `token` waits for an external completion named `key`, until
    /// `deadline`: it is not reclaimed before then, and its lease's expiry becomes the deadline.
    case park(id: String, token: UInt64, key: String, deadline: Int64)
    /// The running job leased under `token` records a cursor for its next attempt and renews its lease.
    case checkpoint(id: String, token: UInt64, data: [UInt8], expiresAt: Int64, monotonicExpiry: UInt64)
    /// In a snapshot, after the job's restore: the job's last checkpoint.
    case restoreCheckpoint(id: String, data: [UInt8])
    /// A running attempt interrupted by the app or the system (`reason` one of the
    /// ``StopReason/isInterruption`` reasons) is given back: the job goes back to enqueued, due
    /// again at once, with one attempt fewer counted.
    case release(id: String, token: UInt64, at: Int64, reason: StopReason)
    /// A running attempt asks to run again at `runAt`: the job goes back to enqueued, due then,
    /// its attempt given back when `givesBack`, kept otherwise.
    case snooze(id: String, token: UInt64, at: Int64, runAt: Int64, givesBack: Bool)
    /// Sets the job's ``StopReason``: after the operation that ended its attempt in the same record
    /// (when the reason is not the one that operation implies), or after its restore in a snapshot.
    case stopReason(id: String, reason: StopReason)
    /// Claims take no job of `kind` from now on, until a ``resumeKind(kind:at:)`` (`at`: when it was asked).
    case pauseKind(kind: String, at: Int64)
    /// Claims of the paused `kind` go on.
    case resumeKind(kind: String, at: Int64)
    /// Sets the rate limit of `kind` (`nil`: removes it, with its window). A window already open is
    /// kept: its starts count against the new limit.
    case setRateLimit(kind: String, limit: StoredRateLimit?, at: Int64)
    /// In a snapshot, after the `set_rate_limit` of its kind: the kind's current window.
    case rateWindow(kind: String, window: RateWindow)
    /// The owner ingested the producer inbox file `file` (its name in `inbox/`) up to byte `offset`:
    /// the end of the last record of it that this or an earlier record ingested.
    case inboxIngested(file: String, offset: Int64)
    /// The result of the running job's success (``JobLimits/maxResultBytes`` at most), before its
    /// `complete` in the same record; in a snapshot, after the job's restore.
    case result(id: String, data: [UInt8])
    /// In a snapshot, after the restore of job `id`: the result its succeeded prerequisite recorded.
    case prerequisiteResult(id: String, prerequisite: String, data: [UInt8])
    /// The job's tags (distinct, in the order of their UTF-8 bytes): after its enqueue in the same
    /// record, or after its restore in a snapshot.
    case tags(id: String, tags: [String])
    /// A job's own retry schedule (`retry_table`, 47, or `retry_exponential`, 48), after its enqueue or restore.
    case retrySchedule(id: String, RetryPolicy.Schedule)
    /// How often a restored job started in its run, when more than its attempts (`starts`, 49).
    case starts(id: String, count: Int32)
    /// The unfinished job's constraints become `constraints` (`nil`: none), deciding its next claim
    /// (enqueued) or its next attempt (running) (`set_constraints`, 50).
    case setConstraints(id: String, constraints: JobConstraints?)

    struct Enqueue: Equatable, Sendable {
        var id: String
        var kind: String
        var payload: PayloadLocation
        var priority: Int64
        var createdAt: Int64
        var runAt: Int64
        var maxAttempts: Int64
        var uniqueKey: String?
        var options = EnqueueOptions()
    }

    struct Claim: Equatable, Sendable {
        var id: String
        var token: UInt64
        var claimedAt: Int64
        var expiresAt: Int64
        var monotonicExpiry: UInt64
        var bootID: String
    }

    /// Whether the operation adds a job. A record whose first operation does not is a
    /// *transition* record, which the automatic compaction's trigger weighs more than its bytes.
    var enqueuesJob: Bool {
        if case .enqueue = self { return true }
        return false
    }

    /// The id of the job the operation changes.
    var jobID: String {
        switch self {
        case .enqueue(let op): return op.id
        case .claim(let op): return op.id
        case .renewLease(let id, _, _, _), .complete(let id, _, _), .fail(let id, _, _, _, _),
            .cancel(let id, _), .retry(let id, _), .reschedule(let id, _, _), .delete(let id),
            .reclaim(let id, _, _, _), .expire(let id), .migrationRemove(let id), .abandon(let id, _, _),
            .nextOccurrence(let id, _, _), .park(let id, _, _, _), .checkpoint(let id, _, _, _, _),
            .restoreCheckpoint(let id, _), .release(let id, _, _, _), .snooze(let id, _, _, _, _),
            .stopReason(let id, _), .result(let id, _), .prerequisiteResult(let id, _, _), .tags(let id, _),
            .retrySchedule(let id, _), .starts(let id, _), .setConstraints(let id, _):
            return id
        case .restore(let job): return job.id
        case .migrateJob(let job): return job.id
        case .snapshot, .snapshotExtent, .migrationBegin, .migrationCommit, .migrationsApplied: return ""
        case .pauseKind, .resumeKind, .setRateLimit, .rateWindow, .inboxIngested: return ""
        }
    }
}

extension LogOperation {
    /// Whether the operation belongs inside a pending migration (a step or its commit).
    var continuesMigration: Bool {
        switch self {
        case .migrateJob, .migrationRemove, .migrationCommit: return true
        default: return false
        }
    }
}
