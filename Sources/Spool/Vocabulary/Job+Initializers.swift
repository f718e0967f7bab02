/// Public initializers for the values a handler and a view see, so that an app can unit-test its
/// handlers and build previews without a queue. Nothing here is checked or stored: a value built
/// this way is a snapshot as a queue would return it, and a queue given one it did not issue (a
/// built ``Lease`` passed to ``JobQueue/complete(_:)-(Lease)``) refuses it as it refuses any
/// lease it does not hold (``SpoolError/Code/leaseLost``).
extension Job {
    /// Builds a job snapshot, as ``JobQueue/job(_:)`` would return it: for an app's tests and previews.
    ///
    /// ```swift
    /// let job = Job(id: "photo-1", kind: UploadPhoto.kind, state: .failed, attempts: 5,
    ///               lastError: "HTTP 503")
    /// ```
    ///
    /// Every argument but `kind` has the value of a job just enqueued with no options: id a random
    /// UUID, state enqueued, no attempts, ``RetryPolicy/default``'s attempts, due at `createdAt`;
    /// `starts` is `attempts` unless given.
    public init(
        id: JobID = JobID(UUID().uuidString.lowercased()), kind: String, state: JobState = .enqueued, attempts: Int = 0,
        maxAttempts: Int = RetryPolicy.default.maxAttempts, priority: Int = 0, createdAt: Date = Date(),
        runAt: Date? = nil, nextRetryAt: Date? = nil, finishedAt: Date? = nil, uniqueKey: String? = nil,
        lastError: String? = nil, payloadSize: Int = 0, leaseExpiresAt: Date? = nil,
        constraints: JobConstraints = .none, blockingPrerequisites: [JobID] = [],
        periodic: PeriodicSchedule? = nil, occurrence: Int = 1, parkedKey: String? = nil, parkDeadline: Date? = nil,
        checkpoint: Data? = nil, lastStopReason: StopReason? = nil, result: Data? = nil, tags: Set<String> = [],
        prerequisiteResults: [JobID: Data] = [:], starts: Int? = nil, retryPolicy: RetryPolicy? = nil
    ) {
        self.id = id
        self.kind = kind
        self.state = state
        self.attempts = attempts
        self.starts = starts ?? attempts
        self.maxAttempts = maxAttempts
        self.retryPolicy = retryPolicy
        self.priority = priority
        self.createdAt = createdAt
        self.runAt = runAt ?? createdAt
        self.nextRetryAt = nextRetryAt
        self.finishedAt = finishedAt
        self.uniqueKey = uniqueKey
        self.lastError = lastError
        self.payloadSize = payloadSize
        self.leaseExpiresAt = leaseExpiresAt
        self.constraints = constraints
        self.blockingPrerequisites = blockingPrerequisites
        self.periodic = periodic
        self.occurrence = occurrence
        self.parkedKey = parkedKey
        self.parkDeadline = parkDeadline
        self.checkpoint = checkpoint
        self.lastStopReason = lastStopReason
        self.result = result
        self.tags = tags
        self.prerequisiteResults = prerequisiteResults
    }
}

extension Lease {
    /// Builds a lease, as ``JobQueue/claim(kind:leaseDuration:)-71nvp`` would
    /// return it: for an app's tests of code that works on a lease.
    ///
    /// The job is taken as given (a claimed job is `running`, with ``Job/attempts`` counting this
    /// attempt); ``Job/leaseExpiresAt`` is set to `expiresAt` and ``Job/payloadSize`` to the
    /// payload's size. A queue refuses a built lease (``SpoolError/Code/leaseLost``): only its own
    /// claims grant leases.
    ///
    /// - Parameters:
    ///   - job: The job as claimed.
    ///   - payload: The job's parameters.
    ///   - token: The lease's token; a random one by default.
    ///   - expiresAt: When the lease runs out; five minutes after now by default.
    public init(
        job: Job, payload: Data = Data(), token: LeaseToken = LeaseToken(rawValue: UInt64.random(in: .min ... .max)),
        expiresAt: Date = Date().addingTimeInterval(300)
    ) {
        var job = job
        job.leaseExpiresAt = expiresAt
        job.payloadSize = payload.count
        self.init(job: job, payload: payload, token: token, expiresAt: expiresAt, monotonicExpiry: 0, bootID: "")
    }
}
