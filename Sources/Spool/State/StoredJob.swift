/// A job as the in-memory state holds it: everything but the payload bytes,
/// which stay on disk at ``payload``.
struct StoredJob: Equatable, Sendable {
    let id: String
    var kind: String
    var state: JobState
    var attempts: Int32
    var maxAttempts: Int32
    var priority: Int32
    /// Order of enqueue, counted by replay; breaks ties in the ready order.
    var sequence: UInt64
    var createdAt: Int64
    var runAt: Int64
    var nextRetryAt: Int64?
    var finishedAt: Int64?
    var uniqueKey: String?
    var lastError: String?
    var payload: PayloadLocation
    var lease: StoredLease?
    /// Bumped whenever the job's place in the ready order changes, so that
    /// stale entries in ``ReadyIndex`` can be recognised.
    var scheduleVersion: UInt32 = 0

    /// When the job may next run: the later of `runAt` and `nextRetryAt`.
    var dueAt: Int64 { max(runAt, nextRetryAt ?? runAt) }
}

/// The lease of a running job.
struct StoredLease: Equatable, Sendable {
    var token: UInt64
    var claimedAt: Int64
    var expiresAt: Int64
    var monotonicExpiry: UInt64
    var bootID: String

    /// Whether the lease has run out: the wall clock says so, or the monotonic
    /// clock of the same boot says so, or the machine has rebooted since.
    func isExpired(wallNow: Int64, monotonicNow: UInt64, bootID currentBoot: String) -> Bool {
        if wallNow >= expiresAt { return true }
        if currentBoot != bootID { return true }
        return monotonicNow >= monotonicExpiry
    }
}
