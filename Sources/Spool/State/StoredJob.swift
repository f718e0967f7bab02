/// A job as the in-memory state holds it: everything but the payload bytes,
/// which stay on disk at ``payload``.
///
/// Laid out for memory: every replayed job lives here, so the fields most jobs
/// never set (unique key, last error, lease) share one optional, immutable box,
/// and optional times use a sentinel instead of an optional's extra byte. The
/// box is replaced, never mutated, so the struct keeps value semantics.
struct StoredJob: Sendable {
    let id: String
    var kind: String
    /// Order of enqueue, counted by replay; breaks ties in the ready order.
    var sequence: UInt64
    var createdAt: Int64
    var runAt: Int64
    private var nextRetryAtOrNone: Int64
    private var finishedAtOrNone: Int64
    var payload: PayloadLocation
    var attempts: Int32
    var maxAttempts: Int32
    var priority: Int32
    /// Bumped whenever the job's place in the ready order changes, so that
    /// stale entries in ``ReadyIndex`` can be recognised.
    var scheduleVersion: UInt32 = 0
    var state: JobState
    private var rare: RareFields?

    /// The value standing for "no time" in the sentinel fields.
    private static let none = Int64.min

    init(id: String, kind: String, state: JobState, attempts: Int32, maxAttempts: Int32, priority: Int32,
         sequence: UInt64, createdAt: Int64, runAt: Int64, nextRetryAt: Int64?, finishedAt: Int64?,
         uniqueKey: String?, lastError: String?, payload: PayloadLocation, lease: StoredLease?) {
        self.id = id
        self.kind = kind
        self.sequence = sequence
        self.createdAt = createdAt
        self.runAt = runAt
        self.nextRetryAtOrNone = nextRetryAt ?? Self.none
        self.finishedAtOrNone = finishedAt ?? Self.none
        self.payload = payload
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.priority = priority
        self.state = state
        self.rare = RareFields.make(uniqueKey: uniqueKey, lastError: lastError, lease: lease)
    }

    var nextRetryAt: Int64? {
        get { nextRetryAtOrNone == Self.none ? nil : nextRetryAtOrNone }
        set { nextRetryAtOrNone = newValue ?? Self.none }
    }

    var finishedAt: Int64? {
        get { finishedAtOrNone == Self.none ? nil : finishedAtOrNone }
        set { finishedAtOrNone = newValue ?? Self.none }
    }

    var uniqueKey: String? {
        get { rare?.uniqueKey }
        set { rare = RareFields.make(uniqueKey: newValue, lastError: lastError, lease: lease) }
    }

    var lastError: String? {
        get { rare?.lastError }
        set { rare = RareFields.make(uniqueKey: uniqueKey, lastError: newValue, lease: lease) }
    }

    var lease: StoredLease? {
        get { rare?.lease }
        set { rare = RareFields.make(uniqueKey: uniqueKey, lastError: lastError, lease: newValue) }
    }

    /// When the job may next run: the later of `runAt` and `nextRetryAt`.
    var dueAt: Int64 { nextRetryAtOrNone == Self.none ? runAt : max(runAt, nextRetryAtOrNone) }
}

extension StoredJob: Equatable {
    static func == (a: StoredJob, b: StoredJob) -> Bool {
        a.id == b.id && a.kind == b.kind && a.sequence == b.sequence && a.createdAt == b.createdAt
            && a.runAt == b.runAt && a.nextRetryAt == b.nextRetryAt && a.finishedAt == b.finishedAt
            && a.payload == b.payload && a.attempts == b.attempts && a.maxAttempts == b.maxAttempts
            && a.priority == b.priority && a.scheduleVersion == b.scheduleVersion && a.state == b.state
            && a.uniqueKey == b.uniqueKey && a.lastError == b.lastError && a.lease == b.lease
    }
}

/// The fields of a job that most jobs never set, boxed together. Immutable:
/// a change makes a new box, so jobs sharing one after a copy stay independent.
final class RareFields: Sendable {
    let uniqueKey: String?
    let lastError: String?
    let lease: StoredLease?

    private init(uniqueKey: String?, lastError: String?, lease: StoredLease?) {
        self.uniqueKey = uniqueKey
        self.lastError = lastError
        self.lease = lease
    }

    /// A box holding the values, or `nil` when every one is absent.
    static func make(uniqueKey: String?, lastError: String?, lease: StoredLease?) -> RareFields? {
        if uniqueKey == nil && lastError == nil && lease == nil { return nil }
        return RareFields(uniqueKey: uniqueKey, lastError: lastError, lease: lease)
    }
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
