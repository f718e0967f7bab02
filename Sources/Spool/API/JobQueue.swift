import Dispatch

/// A durable job queue stored in one directory.
///
/// Every method that changes a job returns only after the change is on stable
/// storage (`fdatasync` on Linux, `F_FULLFSYNC` on Apple platforms). Each comes
/// in two forms with the same name: an `async` one, which suspends while the
/// log is synced, and a blocking one for callers that cannot await. Concurrent
/// callers share syncs (group commit).
///
/// ```swift
/// let queue = try JobQueue(directory: appSupport + "/jobs")
/// try await queue.enqueue(NewJob(kind: "upload-photo", payload: Data(photoPath.utf8)))
/// if let lease = try await queue.claim(kind: "upload-photo") {
///     do {
///         // The job's id is stable across retries: the server's idempotency key.
///         try await upload(String(decoding: lease.payload, as: UTF8.self), idempotencyKey: lease.job.id.rawValue)
///     } catch {
///         try await queue.fail(lease, error: "\(error)")   // retried after the backoff delay
///         return
///     }
///     try await queue.complete(lease)
/// }
/// ```
///
/// A queue directory is open in at most one `JobQueue` at a time, in any
/// process; a second open throws ``SpoolError/Code/locked``.
public final class JobQueue: Sendable {
    let engine: QueueEngine

    /// The directory holding the queue.
    public var directory: String { engine.path }
    /// The configuration the queue was opened with.
    public var configuration: Configuration { engine.configuration }
    /// What open found: records replayed, a torn tail cut off, records skipped, jobs reclaimed.
    public var recoveryReport: RecoveryReport { engine.recoveryReport }
    /// The number of the last job migration applied to the queue (see ``JobMigration``); 0 before the first.
    public var appliedMigration: Int { engine.appliedMigration }

    /// Opens the queue in `directory`, creating it if the configuration allows.
    ///
    /// Open replays the whole log, verifying every checksum. It cuts off a torn
    /// tail (an unfinished last write) silently. It returns running jobs to
    /// enqueued, or to failed when their attempts are spent (see
    /// ``Configuration/runningJobsAtOpen``), durably, before it returns.
    ///
    /// - Throws: ``SpoolError`` with ``SpoolError/Code/corruption`` (damage before
    ///   intact records; nothing is changed), ``SpoolError/Code/newerFormat``,
    ///   ``SpoolError/Code/notAQueue``, ``SpoolError/Code/queueNotFound``,
    ///   ``SpoolError/Code/locked``, or an I/O error; ``SpoolError/Code/invalidArgument``, before the
    ///   directory is touched, for a configuration out of range (a retry policy that breaks its
    ///   factory's rules, a lease duration or retention out of range, a payload limit over the maximum).
    public init(directory: String, configuration: Configuration = Configuration()) throws {
        engine = try QueueEngine(path: directory, configuration: configuration)
    }

    /// Opens the queue in `directory` without blocking the caller's thread for the replay.
    public static func open(directory: String, configuration: Configuration = Configuration()) async throws -> JobQueue
    {
        try await Self.offload { try JobQueue(directory: directory, configuration: configuration) }
    }

    /// Waits for every change to be durable, then releases the directory.
    ///
    /// Closing a closed queue returns at once, without error. After `close()`, every call that reads
    /// or changes jobs throws ``SpoolError/Code/closed`` — enqueue, claim, renew, complete, fail,
    /// cancel, retry, reschedule, delete, compact, the queries (``job(_:)``, ``jobs(state:kind:)``,
    /// ``counts()``, ``payload(of:)``, ``nextDeadline(kind:)``, ``schedulingHints()``…) and
    /// ``updateDeviceConditions(_:)``; a ``changes(_:)`` sequence ends, and a started ``JobRunner``
    /// stops by itself with ``JobRunner/failure`` `closed`. The properties (``directory``,
    /// ``configuration``, ``recoveryReport``, ``history``, ``deviceConditions``) keep their last values.
    ///
    /// A compaction under way (automatic, or another caller's ``compact()-9yby2``) gives its snapshot up and
    /// throws ``SpoolError/Code/closed``; the directory is released only once it has stopped.
    public func close() throws { try engine.close() }

    // MARK: Enqueue

    /// Adds a job and returns its id once the job is durable.
    ///
    /// With a ``NewJob/uniqueKey`` that an unfinished job holds, ``UniquePolicy/keep``
    /// writes nothing and returns the existing job's id; ``UniquePolicy/replace`` cancels
    /// the existing job and enqueues the new one in one record.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long kind,
    ///   key or id, a payload over the limit, a negative delay, or an id in use;
    ///   an I/O error when the job could not be made durable.
    @discardableResult
    public func enqueue(_ job: NewJob) throws -> JobID {
        try engine.durably { try $0.enqueue(job) }
    }

    /// Adds a job and returns its id once the job is durable. See ``enqueue(_:)-6of7x``.
    @discardableResult
    public func enqueue(_ job: NewJob) async throws -> JobID {
        try await engine.durably { try $0.enqueue(job) }
    }

    /// Adds many jobs at once — one record, one sync — and returns their ids
    /// once all of them are durable. All or nothing: after a crash either every
    /// job of the batch is in the queue or none is.
    ///
    /// Every job is checked before anything is written; one invalid job fails
    /// the whole call and writes nothing. Unique keys are resolved in order, as
    /// if the jobs were enqueued one by one: with ``UniquePolicy/keep`` a job
    /// whose key is held by an unfinished job, or by an earlier job of the same
    /// batch, adds nothing and gets the holder's id; with ``UniquePolicy/replace``
    /// the holder is cancelled in the same record.
    ///
    /// ```swift
    /// let ids = try await queue.enqueue(contentsOf: photos.map {
    ///     NewJob(kind: "upload-photo", payload: Data($0.path.utf8), uniqueKey: "photo:\($0.id)")
    /// })
    /// ```
    ///
    /// - Returns: One id per job, in order.
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an invalid job (the message
    ///   names its index), an id in use or repeated in the batch, or a batch whose
    ///   record would exceed the 32 MiB record limit (split it into several calls);
    ///   an I/O error when the batch could not be made durable.
    @discardableResult
    public func enqueue(contentsOf jobs: [NewJob]) throws -> [JobID] {
        try engine.durably { try $0.enqueue(contentsOf: jobs) }
    }

    /// Adds many jobs in one record, all or nothing. See ``enqueue(contentsOf:)-84e97``.
    @discardableResult
    public func enqueue(contentsOf jobs: [NewJob]) async throws -> [JobID] {
        try await engine.durably { try $0.enqueue(contentsOf: jobs) }
    }

    // MARK: Manual changes

    /// Cancels an enqueued or running job, and by the chain rule every unfinished job that
    /// depends on it, transitively (see ``NewJob/dependencies``). A running job's handler learns it when
    /// its ``complete(_:)-rpzo`` or ``fail(_:error:terminal:)-5uw4e``
    /// throws ``SpoolError/Code/leaseLost``; its result is discarded. Cancelling a
    /// cancelled job changes nothing.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound``; ``SpoolError/Code/invalidState`` for a succeeded or failed job.
    @discardableResult
    public func cancel(_ id: JobID) throws -> Job {
        Job(try engine.durably { try $0.cancel(id) })
    }

    /// Cancels an enqueued or running job. See ``cancel(_:)-2y36e``.
    @discardableResult
    public func cancel(_ id: JobID) async throws -> Job {
        Job(try await engine.durably { try $0.cancel(id) })
    }

    /// A person's retry: the job goes back to enqueued, due now, with its
    /// attempts reset to 0 — a full budget, not "attempt 6 of 5". A job cancelled because a
    /// prerequisite failed can be retried once that prerequisite is unfinished again (retried
    /// itself); it then waits for it. Retrying a prerequisite does not bring back its dependents.
    ///
    /// - Throws: ``SpoolError/Code/invalidState`` for a running or succeeded job, or one whose
    ///   prerequisite failed, was cancelled or is gone;
    ///   ``SpoolError/Code/uniqueKeyConflict`` when another unfinished job holds its unique key.
    @discardableResult
    public func retry(_ id: JobID) throws -> Job {
        Job(try engine.durably { try $0.retry(id) })
    }

    /// A person's retry with a full budget. See ``retry(_:)-zzu9``.
    @discardableResult
    public func retry(_ id: JobID) async throws -> Job {
        Job(try await engine.durably { try $0.retry(id) })
    }

    /// Moves an enqueued job's due time to `runAt`, replacing any retry deadline.
    @discardableResult
    public func reschedule(_ id: JobID, runAt: Date) throws -> Job {
        Job(try engine.durably { try $0.reschedule(id, runAt: runAt) })
    }

    /// Moves an enqueued job's due time. See ``reschedule(_:runAt:)-7y7qm``.
    @discardableResult
    public func reschedule(_ id: JobID, runAt: Date) async throws -> Job {
        Job(try await engine.durably { try $0.reschedule(id, runAt: runAt) })
    }

    /// Removes a job in any state. A running job's lease becomes invalid. The unfinished jobs
    /// depending on it are cancelled, in the same record (see ``NewJob/dependencies``).
    public func delete(_ id: JobID) throws {
        try engine.durably { try $0.delete(id) }
    }

    /// Removes a job in any state, cancelling its dependents. See ``delete(_:)-2mfds``.
    public func delete(_ id: JobID) async throws {
        try await engine.durably { try $0.delete(id) }
    }

    // MARK: Queries

    /// The job with `id`, or `nil`.
    public func job(_ id: JobID) throws -> Job? {
        try engine.job(id).map(Job.init)
    }

    /// A job's payload, read from the log.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound``.
    public func payload(of id: JobID) throws -> Data {
        guard let stored = try engine.job(id) else { throw SpoolError(.jobNotFound, "no such job", jobID: id) }
        return Data(try engine.payload(of: stored))
    }

    /// Jobs in enqueue order, optionally only those in `state` and of `kind`.
    public func jobs(state: JobState? = nil, kind: String? = nil) throws -> [Job] {
        try engine.jobs { (state == nil || $0.state == state) && (kind == nil || $0.kind == kind) }.map(Job.init)
    }

    /// The jobs a claim at `instant` could take, in the order claims take them.
    /// A job whose `runAt` or `nextRetryAt` is after `instant` is not among them, nor is a job of a
    /// paused kind or of a kind whose rate-limit window is full at `instant`.
    public func readyJobs(at instant: Date, kind: String? = nil) throws -> [Job] {
        try engine.readyJobs(at: instant, kind: kind).map(Job.init)
    }

    /// The earliest time an enqueued job (optionally of `kind`) that a claim could take becomes
    /// due, or `nil` when there is none. A time in the past means a job is due now. Jobs
    /// blocked by prerequisites, and jobs whose constraints the current ``deviceConditions``
    /// do not satisfy, do not count (see ``nextDeadlines()`` for those).
    /// A scheduler sleeps until this instant, or until the next change, instead of polling.
    public func nextDeadline(kind: String? = nil) throws -> Date? {
        try engine.earliestDue(kind: kind).map(Millis.date)
    }

    /// The ``JobState/failed`` jobs, in enqueue order: each failed terminally or spent its attempts,
    /// has no deadline, and waits for a person (``retry(_:)-zzu9`` or ``delete(_:)-2mfds``).
    public func failedJobs() throws -> [Job] {
        try engine.jobs { $0.state == .failed }.map(Job.init)
    }

    /// The former name of ``failedJobs()``: there is no "temporarily failed" state.
    @available(*, deprecated, renamed: "failedJobs()")
    public func permanentlyFailedJobs() throws -> [Job] { try failedJobs() }

    /// How many jobs are in each state.
    public func counts() throws -> QueueCounts {
        QueueCounts(byState: try engine.counts())
    }

    // MARK: Compaction

    /// Rewrites the log as a snapshot of the live jobs, then deletes the log
    /// files it replaces. Succeeded and cancelled jobs that finished longer ago
    /// than ``Configuration/retention`` are dropped; every other job is kept
    /// exactly (state, attempts, deadlines, lease, unique key, last error,
    /// payload, order). Other calls go on while the snapshot is written.
    ///
    /// - Throws: ``SpoolError`` when a write or sync fails; the log is then as
    ///   it was, or the snapshot is complete and only old files remain to delete
    ///   (open deletes them).
    public func compact() throws -> CompactionReport { try engine.durably { try $0.compact() }! }

    /// Rewrites the log as a snapshot of the live jobs (see the blocking variant).
    public func compact() async throws -> CompactionReport {
        let engine = self.engine
        return try await Self.offload { try engine.durably { try $0.compact() }! }
    }

    /// What the queue's snapshots remember of its past: when it was created and
    /// how many finished jobs retention dropped. Empty before the first compaction.
    public var history: QueueHistory { engine.history }

    // MARK: Helpers

    /// Runs blocking work (an open, a compaction, a producer's call) off the caller's executor, on a
    /// thread of Spool's own: `queue`, by default a serial queue of its own for this call (a
    /// ``QueueProducer`` passes its own, as its calls take turns anyway), never Swift's cooperative
    /// pool nor the shared global queue, so that the disk work waits on no thread the app's tasks need.
    static func offload<T: Sendable>(
        on queue: DispatchQueue = DispatchQueue(label: "spool.offload", qos: .userInitiated),
        _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
