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
    /// Why the last attempt ended; `nil` before the first ended. Declared beside `state`, not at
    /// the end, so that it takes the padding after it and the struct does not grow.
    var lastStopReason: StopReason?
    /// Times the job was started in this run (claims, given-back attempts included; ``attempts`` counts
    /// those spent against ``maxAttempts``): at least `attempts`. Declared here, in the padding before
    /// `rare`, so that the struct does not grow.
    var starts: Int32
    private var rare: RareFields?

    /// The value standing for "no time" in the sentinel fields.
    private static let none = Int64.min

    init(
        id: String, kind: String, state: JobState, attempts: Int32, maxAttempts: Int32, priority: Int32,
        sequence: UInt64, createdAt: Int64, runAt: Int64, nextRetryAt: Int64?, finishedAt: Int64?,
        uniqueKey: String?, lastError: String?, payload: PayloadLocation, lease: StoredLease?,
        constraints: JobConstraints? = nil, waitingFor: [String] = [], periodic: StoredPeriodic? = nil,
        lastStopReason: StopReason? = nil, starts: Int32? = nil
    ) {
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
        self.lastStopReason = lastStopReason
        self.starts = starts ?? attempts
        let constraints = constraints.flatMap { $0.isEmpty ? nil : $0 }
        // Most jobs set none of the rare fields: no box, and no RareValues built to find that out
        // (replay makes every job here, and three setters each building one cost a tenth of an open).
        if uniqueKey == nil && lastError == nil && lease == nil && constraints == nil && waitingFor.isEmpty
            && periodic == nil
        {
            self.rare = nil
        } else {
            self.rare = RareFields.make(
                RareValues(
                    uniqueKey: uniqueKey, lastError: lastError, lease: lease,
                    constraints: constraints, waitingFor: waitingFor,
                    periodic: periodic))
        }
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
        get { rare?.values.uniqueKey }
        set { updateRare { $0.uniqueKey = newValue } }
    }

    var lastError: String? {
        get { rare?.values.lastError }
        set { updateRare { $0.lastError = newValue } }
    }

    var lease: StoredLease? {
        get { rare?.values.lease }
        set { updateRare { $0.lease = newValue } }
    }

    /// What the job needs of the device; `nil` for none.
    var constraints: JobConstraints? {
        get { rare?.values.constraints }
        set { updateRare { $0.constraints = newValue.flatMap { $0.isEmpty ? nil : $0 } } }
    }

    /// The prerequisites that have not succeeded (yet): while the job is enqueued
    /// and this is not empty, it is blocked. Kept after a cascade cancelled the
    /// job, naming the prerequisite that failed.
    var waitingFor: [String] {
        get { rare?.values.waitingFor ?? [] }
        set { updateRare { $0.waitingFor = newValue } }
    }

    /// How the job repeats, and which occurrence it is in; `nil` for a one-off job.
    var periodic: StoredPeriodic? {
        get { rare?.values.periodic }
        set { updateRare { $0.periodic = newValue } }
    }

    /// The external completion the running job waits for (`JobQueue.park(_:key:deadline:)`);
    /// `nil` unless parked. Lives with the lease: a job without a lease is not parked.
    var park: StoredPark? {
        get { rare?.values.park }
        set { updateRare { $0.park = newValue } }
    }

    /// The last cursor a handler recorded (``JobContext/checkpoint(_:)``); `nil` for none.
    var checkpoint: [UInt8]? {
        get { rare?.values.checkpoint }
        set { updateRare { $0.checkpoint = newValue } }
    }

    /// The result the job's last success recorded (``JobLimits/maxResultBytes`` at most); `nil` for none.
    var result: [UInt8]? {
        get { rare?.values.result }
        set { updateRare { $0.result = newValue } }
    }

    /// The job's tags, distinct and in the order of their UTF-8 bytes; empty for none.
    var tags: [String] {
        get { rare?.values.tags ?? [] }
        set { updateRare { $0.tags = newValue } }
    }

    /// Prerequisite id → the result it recorded when it succeeded: copied into the job when the
    /// prerequisite's success reached it (or at its enqueue, for one that had succeeded before).
    var prerequisiteResults: [String: [UInt8]] {
        get { rare?.values.prerequisiteResults ?? [:] }
        set { updateRare { $0.prerequisiteResults = newValue } }
    }

    /// The job's own retry schedule (``NewJob/retryPolicy``); `nil`: the queue's ``Configuration/retryPolicy``.
    var retrySchedule: RetryPolicy.Schedule? {
        get { rare?.values.retrySchedule }
        set { updateRare { $0.retrySchedule = newValue } }
    }

    /// Whether the job carries a field of body version 3: constraints, prerequisites or a schedule.
    var hasOptions: Bool {
        guard let values = rare?.values else { return false }
        return values.constraints != nil || !values.waitingFor.isEmpty || values.periodic != nil
    }

    /// Whether the job is enqueued but waits for prerequisites.
    var isBlocked: Bool { state == .enqueued && !(rare?.values.waitingFor.isEmpty ?? true) }

    private mutating func updateRare(_ change: (inout RareValues) -> Void) {
        var values = rare?.values ?? RareValues()
        change(&values)
        rare = RareFields.make(values)
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
            && a.rare?.values == b.rare?.values && a.lastStopReason == b.lastStopReason && a.starts == b.starts
    }
}

/// The values of a job that most jobs never set.
struct RareValues: Equatable, Sendable {
    var uniqueKey: String?
    var lastError: String?
    var lease: StoredLease?
    var constraints: JobConstraints?
    var waitingFor: [String] = []
    var periodic: StoredPeriodic?
    var park: StoredPark?
    var checkpoint: [UInt8]?
    var result: [UInt8]?
    var tags: [String] = []
    var prerequisiteResults: [String: [UInt8]] = [:]
    var retrySchedule: RetryPolicy.Schedule?

    var isEmpty: Bool {
        uniqueKey == nil && lastError == nil && lease == nil && constraints == nil && waitingFor.isEmpty
            && periodic == nil && park == nil && checkpoint == nil && result == nil && tags.isEmpty
            && prerequisiteResults.isEmpty && retrySchedule == nil
    }
}

/// The fields of a job that most jobs never set, boxed together. Immutable:
/// a change makes a new box, so jobs sharing one after a copy stay independent.
final class RareFields: Sendable {
    let values: RareValues

    private init(_ values: RareValues) { self.values = values }

    /// A box holding the values, or `nil` when every one is absent.
    static func make(_ values: RareValues) -> RareFields? {
        values.isEmpty ? nil : RareFields(values)
    }
}

/// A periodic job's schedule, in milliseconds, and where it is in it.
struct StoredPeriodic: Equatable, Sendable {
    /// Milliseconds between boundaries.
    var interval: Int64
    /// Milliseconds before a boundary from which an occurrence may start.
    var flex: Int64
    /// The first occurrence's run time; boundaries are `anchor + k × interval`.
    var anchor: Int64
    /// The current occurrence, from 1.
    var occurrence: Int64

    /// When the next occurrence may start, for an occurrence that ended at `now`:
    /// the first window start (`anchor + k × interval - flex`, k ≥ 1) after `now`.
    /// Missed windows are skipped, so a clock jump gives at most one late run.
    /// A window past the range of `Int64` (an anchor or interval far from now) gives `Int64.max / 2`.
    func nextRunAt(after now: Int64) -> Int64 {
        let far = Int64.max / 2
        let (shifted, overShift) = now.addingReportingOverflow(flex)
        let (elapsed, overElapsed) = shifted.subtractingReportingOverflow(anchor)
        let (k, overK) = elapsed < 0 ? (1, false) : (elapsed / interval).addingReportingOverflow(1)
        guard !overShift, !overElapsed, !overK else { return far }
        let (product, overProduct) = k.multipliedReportingOverflow(by: interval)
        let (boundary, overBoundary) = anchor.addingReportingOverflow(product)
        let (start, overStart) = boundary.subtractingReportingOverflow(flex)
        guard !overProduct, !overBoundary, !overStart else { return far }
        return start
    }
}

/// What a parked job waits for: the app's key for the external work, and until when (ms since 1970 UTC).
struct StoredPark: Equatable, Sendable {
    var key: String
    var deadline: Int64
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

extension Sequence where Element == StoredJob {
    /// The jobs in the order they were enqueued (their ``StoredJob/sequence``): the order every
    /// listing, snapshot and batch of operations over many jobs uses, written once (and sorted by
    /// one specialization of `sorted`, not one per call site).
    func inEnqueueOrder() -> [StoredJob] { sorted { $0.sequence < $1.sequence } }
}
