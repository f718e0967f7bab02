/// What to do when a job is enqueued with a unique key that an unfinished job already holds.
public enum UniquePolicy: String, Sendable, CaseIterable {
    /// Keep the existing job; the enqueue writes nothing and returns the existing job's id.
    case keep
    /// Cancel the existing job (a running one's late result is then discarded) and enqueue the new one.
    /// With a chain built by ``append``, every unfinished job carrying the key is cancelled.
    case replace
    /// Chain the new job after the existing one: the new job gets the existing job as a
    /// prerequisite (it runs only after that job succeeded, and is cancelled if it fails or is
    /// cancelled) and holds the key from then on, so the next `append` chains after it.
    /// Without an unfinished holder, the job is enqueued plainly. Not for periodic jobs.
    case append
}

/// A job to enqueue.
///
/// ```swift
/// let id = try await queue.enqueue(NewJob(kind: "upload", payload: Data(path.utf8),
///                                         delay: 30, uniqueKey: "upload:\(path)"))
/// ```
public struct NewJob: Sendable {
    /// What the job does; a worker chooses its handler by kind. 1 to 200 UTF-8 bytes.
    public var kind: String
    /// The job's parameters, opaque to Spool.
    public var payload: Data
    /// The job's id; a random UUID when `nil`.
    public var id: JobID?
    /// Higher runs first among jobs that are due. Must fit in 32 bits.
    public var priority: Int
    /// The earliest time the job may run; `nil` means now.
    public var runAt: Date?
    /// Seconds from now before the job may run; added to `runAt` or to now. Must not be negative.
    public var delay: TimeInterval
    /// Attempts the job gets; `nil` takes its ``retryPolicy``'s, else the queue's ``RetryPolicy/maxAttempts``.
    public var maxAttempts: Int?
    /// At most one unfinished job holds a unique key at a time.
    public var uniqueKey: String?
    /// What happens when ``uniqueKey`` is already held.
    public var uniquePolicy: UniquePolicy
    /// Jobs that must succeed before this one may run (its prerequisites). The rule, as
    /// Android's WorkManager: the job is *blocked* (``Job/isBlocked``) until every prerequisite
    /// succeeded; when one fails for good (terminal failure or attempts spent), is cancelled or
    /// is deleted, the job is cancelled, and so are the jobs that depend on it, transitively
    /// (WorkManager marks them failed after a failure; here failed means "ran, waiting for a person").
    /// A prerequisite that already succeeded is satisfied; one that already failed or was
    /// cancelled makes the new job cancelled at once; an unknown id is an
    /// ``SpoolError/Code/invalidArgument`` error. Earlier jobs of the same batch may be named.
    public var dependencies: [JobID]
    /// What the job needs of the device (network, charging…) before it may start.
    public var constraints: JobConstraints
    /// Makes the job repeat (see ``PeriodicSchedule``); `nil` for a one-off job.
    public var periodic: PeriodicSchedule?
    /// Labels to find the job by (``JobQueue/jobs(tagged:state:)``) and act on it with others
    /// (`JobQueue.cancel(tagged:)`): at most ``JobLimits/maxTags``, each 1 to
    /// ``JobLimits/maxTagBytes`` UTF-8 bytes. Durable with the job.
    public var tags: Set<String>
    /// The job's own retry policy: how long it waits after each failed attempt, and (unless
    /// ``maxAttempts`` is set) how many attempts it gets. Durable with the job, so a restart keeps it;
    /// `nil` takes the kind's (``JobKind/retryPolicy``, for a typed job) or the queue's
    /// ``Configuration/retryPolicy``. A table holds at most 64 delays; delays are kept to the millisecond.
    public var retryPolicy: RetryPolicy?

    /// Describes a job to enqueue. Only `kind` is required.
    public init(
        kind: String, payload: Data = Data(), id: JobID? = nil, priority: Int = 0, runAt: Date? = nil,
        delay: TimeInterval = 0, maxAttempts: Int? = nil, uniqueKey: String? = nil,
        uniquePolicy: UniquePolicy = .keep, dependencies: [JobID] = [], constraints: JobConstraints = .none,
        periodic: PeriodicSchedule? = nil, tags: Set<String> = [], retryPolicy: RetryPolicy? = nil
    ) {
        self.tags = tags
        self.retryPolicy = retryPolicy
        self.dependencies = dependencies
        self.constraints = constraints
        self.periodic = periodic
        self.kind = kind
        self.payload = payload
        self.id = id
        self.priority = priority
        self.runAt = runAt
        self.delay = delay
        self.maxAttempts = maxAttempts
        self.uniqueKey = uniqueKey
        self.uniquePolicy = uniquePolicy
    }
}

/// A snapshot of a job. Its payload is read separately (``JobQueue/payload(of:)``)
/// or comes with a ``Lease``, so that listing many jobs reads no payloads.
public struct Job: Sendable, Equatable, Identifiable {
    /// The job's stable id.
    public var id: JobID
    /// What the job does.
    public var kind: String
    /// Where the job is in its life.
    public var state: JobState
    /// Attempts spent against ``maxAttempts``: counted when the job is claimed, before its handler runs.
    /// An attempt given back — released (``JobRunner/suspend()``, ``JobRunner/expire()``), snoozed with
    /// its attempt returned, interrupted because conditions stopped holding — is uncounted again, so
    /// this is not how often the job started: that is ``starts``.
    public var attempts: Int
    /// Times the job was started in this run (each claim), attempts given back included: at least
    /// ``attempts``. A handler that finds it above 1 knows an earlier start may have done part of the
    /// work. A manual retry and a periodic job's next occurrence start a new run at 0.
    public var starts: Int
    /// The attempts the job gets before it ends failed.
    public var maxAttempts: Int
    /// The job's own retry policy (``NewJob/retryPolicy``, or its kind's ``JobKind/retryPolicy``), with
    /// ``maxAttempts`` as its budget; `nil` when the job has none and the queue's
    /// ``Configuration/retryPolicy`` paces its retries.
    public var retryPolicy: RetryPolicy?
    /// Higher runs first.
    public var priority: Int
    /// When the job was enqueued.
    public var createdAt: Date
    /// The earliest time the job may run.
    public var runAt: Date
    /// After a retryable failure: the earliest time of the next attempt. `nil` otherwise,
    /// and always `nil` once the job is failed: no more attempts are scheduled.
    public var nextRetryAt: Date?
    /// When the job succeeded, failed or was cancelled.
    public var finishedAt: Date?
    /// The job's unique key, if any.
    public var uniqueKey: String?
    /// The message of the last failure, if any. History, not the outcome: a later success keeps it
    /// (``state`` and ``lastStopReason`` say how the job ended), and a manual retry keeps it too.
    public var lastError: String?
    /// The payload's size in bytes.
    public var payloadSize: Int
    /// The current lease's expiry, while the job is running.
    public var leaseExpiresAt: Date?
    /// What the job needs of the device before it may start.
    public var constraints: JobConstraints
    /// The job's prerequisites that have not succeeded (yet). While the job is enqueued and this
    /// is not empty, it is blocked; after a cascade cancelled it, it names the prerequisite that
    /// failed or was cancelled.
    public var blockingPrerequisites: [JobID]
    /// How the job repeats; `nil` for a one-off job.
    public var periodic: PeriodicSchedule?
    /// Which occurrence of a periodic job this is, from 1 (always 1 for a one-off job). With the
    /// id it makes an idempotency key for one run.
    public var occurrence: Int
    /// The key of the external completion a parked job waits for (`JobQueue.park(_:key:deadline:)`);
    /// `nil` unless the job is parked. A parked job is `running`: its attempt is counted once.
    public var parkedKey: String?
    /// Until when a parked job waits: past it, the job is reclaimed by the retry policy; `nil` unless parked.
    public var parkDeadline: Date?
    /// The last cursor a handler recorded with ``JobContext/checkpoint(_:)``, given to the next attempt;
    /// `nil` when none was recorded (or the job succeeded, which clears it).
    public var checkpoint: Data?
    /// Why the job's last attempt ended (succeeded, failed, timed out, stopped, …); `nil` before
    /// the first attempt ended. Durable: it survives a restart and compaction.
    public var lastStopReason: StopReason?
    /// The result the job's last success recorded (`JobQueue.complete(_:result:)`,
    /// `JobContext.setResult(_:)`); `nil` when none was. Kept until retention removes the job.
    public var result: Data?
    /// The job's tags (``NewJob/tags``).
    public var tags: Set<String>
    /// The results its prerequisites recorded when they succeeded, by prerequisite: a prerequisite that
    /// succeeded without a result is not here. What a dependent's handler reads as
    /// `JobContext.prerequisiteResults`.
    public var prerequisiteResults: [JobID: Data]

    /// Whether the job is enqueued but waits for prerequisites to succeed: no claim takes it yet.
    public var isBlocked: Bool { state == .enqueued && !blockingPrerequisites.isEmpty }

    /// When the job may next run: the later of ``runAt`` and ``nextRetryAt``; `nil` unless enqueued.
    public var dueAt: Date? {
        guard state == .enqueued else { return nil }
        return max(runAt, nextRetryAt ?? runAt)
    }

    /// Whether the job is ``JobState/failed``: it failed terminally or spent its attempts, has no
    /// deadline, and waits for a person (``JobQueue/retry(_:)-zzu9`` or ``JobQueue/delete(_:)-2mfds``).
    /// A retryable failure with attempts left is not this: that job is enqueued again, with ``nextRetryAt``.
    public var isFailed: Bool { state == .failed && nextRetryAt == nil }

    /// The former name of ``isFailed``: there is no "temporarily failed" state.
    @available(*, deprecated, renamed: "isFailed")
    public var isPermanentlyFailed: Bool { isFailed }

    init(_ stored: StoredJob) {
        id = JobID(stored.id)
        kind = stored.kind
        state = stored.state
        attempts = Int(stored.attempts)
        starts = Int(stored.starts)
        maxAttempts = Int(stored.maxAttempts)
        retryPolicy = stored.retrySchedule.map { RetryPolicy(schedule: $0, maxAttempts: Int(stored.maxAttempts)) }
        priority = Int(stored.priority)
        createdAt = Millis.date(stored.createdAt)
        runAt = Millis.date(stored.runAt)
        nextRetryAt = stored.nextRetryAt.map(Millis.date)
        finishedAt = stored.finishedAt.map(Millis.date)
        uniqueKey = stored.uniqueKey
        lastError = stored.lastError
        payloadSize = Int(stored.payload.length)
        leaseExpiresAt = stored.lease.map { Millis.date($0.expiresAt) }
        constraints = stored.constraints ?? .none
        blockingPrerequisites = stored.waitingFor.map { JobID($0) }
        periodic = stored.periodic.map {
            PeriodicSchedule(interval: Double($0.interval) / 1000, flex: Double($0.flex) / 1000)
        }
        occurrence = Int(stored.periodic?.occurrence ?? 1)
        parkedKey = stored.park?.key
        parkDeadline = stored.park.map { Millis.date($0.deadline) }
        checkpoint = stored.checkpoint.map { Data($0) }
        lastStopReason = stored.lastStopReason
        result = stored.result.map { Data($0) }
        tags = Set(stored.tags)
        let fromPrerequisites = stored.prerequisiteResults
        prerequisiteResults =
            fromPrerequisites.isEmpty
            ? [:] : Dictionary(uniqueKeysWithValues: fromPrerequisites.map { (JobID($0.key), Data($0.value)) })
    }
}

/// The right to work on a claimed job, until it expires or is given back.
///
/// A lease is durable: it was recorded, with the attempt counted, before
/// ``JobQueue/claim(kind:leaseDuration:)-71nvp`` returned. Finish the work with
/// ``JobQueue/complete(_:)-rpzo`` or ``JobQueue/fail(_:error:terminal:)-5uw4e``; if the job was
/// cancelled or the lease reclaimed meanwhile, those throw ``SpoolError/Code/leaseLost``.
public struct Lease: Sendable, Equatable {
    /// The job as it was claimed (state `running`).
    public var job: Job
    /// The job's parameters.
    public var payload: Data
    /// Identifies this lease; a later claim of the same job gets another.
    public var token: LeaseToken
    /// Which attempt this is against the budget, from 1 (``Job/attempts``; ``Job/starts`` counts every start).
    public var attempt: Int { job.attempts }
    /// The wall-clock time the lease runs out.
    public var expiresAt: Date
    /// The monotonic-clock reading (nanoseconds) at which the lease runs out, valid in ``bootID``:
    /// lease mechanics, for the runner's renewals; not part of the public API.
    var monotonicExpiry: UInt64
    /// The boot the monotonic expiry belongs to; after a reboot the lease has expired.
    var bootID: String
}

/// A lease's token: a random 64-bit number, shown as 16 hex digits.
public struct LeaseToken: Hashable, Sendable, CustomStringConvertible {
    /// The token's value.
    public let rawValue: UInt64
    /// Wraps a token value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Parses 16 hex digits, as printed by ``description``.
    public init?(_ text: String) {
        guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else { return nil }
        rawValue = value
    }
    /// The token as 16 lowercase hex digits.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// How many jobs are in each state.
public struct QueueCounts: Sendable, Equatable {
    /// Jobs per state; states with no jobs are absent.
    public var byState: [JobState: Int]
    /// Builds counts, as ``JobQueue/counts()`` returns them (for an app's tests and previews too):
    /// states given 0 are left out, as the queue leaves them out.
    public init(byState: [JobState: Int]) {
        self.byState = byState.filter { $0.value != 0 }
    }
    /// All jobs.
    public var total: Int { byState.values.reduce(0, +) }
    /// Jobs in `state`.
    public subscript(state: JobState) -> Int { byState[state] ?? 0 }
}
