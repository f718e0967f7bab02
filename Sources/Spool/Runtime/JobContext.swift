/// What a handler knows about the attempt it runs, and what it can ask of the runner.
///
/// ```swift
/// try runner.register(UploadPhoto.self) { photo, context in
///     for chunk in chunks(of: photo.path) {
///         try context.checkCancellation()
///         try await send(chunk, idempotencyKey: context.id.rawValue)
///     }
/// }
/// ```
public struct JobContext: Sendable {
    /// The job as it was claimed (state `running`, this attempt counted).
    public let job: Job
    /// The job's id: stable across retries, the idempotency key to send with the job's side effect.
    public var id: JobID { job.id }
    /// Which attempt this is against the budget, from 1 (``Job/attempts``): an earlier attempt that was
    /// given back (the app left the foreground, the system's time ran out) does not count, so `attempt > 1`
    /// means an earlier attempt failed or ran out its lease.
    public var attempt: Int { job.attempts }
    /// How many times this job was started in this run, this start included, from 1 (``Job/starts``):
    /// every earlier start counts, given back or not, so `starts > 1` means an earlier start may have
    /// done part of the work.
    public var starts: Int { job.starts }
    /// Where the answers come from: the runner running the attempt, or an app's test.
    let source: Source
    /// What ``park(key:deadline:start:)`` and ``checkpoint(_:)`` call in a context built for a test.
    private var detachedParking: DetachedParking?
    /// The clock of a context built for a test (a runner's context reads its queue's).
    private var detachedClock: any SpoolClock = SystemClock()

    private struct DetachedParking: Sendable {
        var park: @Sendable (String, Date) async throws -> Void
        var checkpoint: @Sendable (Data) async throws -> Void
    }

    enum Source: Sendable {
        /// The runner running the attempt under this lease.
        case runner(JobRunner, LeaseToken)
        /// Built by ``JobContext/init(job:cancellationReason:renewLease:park:checkpoint:clock:)``.
        case detached(
            cancellationReason: @Sendable () -> CancellationReason?,
            renewLease: @Sendable (TimeInterval?) async throws -> Void)
    }

    /// The context of an attempt that `runner` runs under the lease `token`.
    init(job: Job, token: LeaseToken, runner: JobRunner) {
        self.job = job
        source = .runner(runner, token)
    }

    /// Builds a context for calling a handler outside a runner: in an app's unit tests and previews.
    ///
    /// ```swift
    /// import Testing
    ///
    /// let job = Job(kind: UploadPhoto.kind, state: .running, attempts: 1)
    /// let context = JobContext(job: job, cancellationReason: { .jobCancelled })
    /// await #expect(throws: CancellationError.self) { try await uploadHandler(UploadPhoto(path: "/p"), context) }
    /// ```
    ///
    /// - Parameters:
    ///   - job: The job as claimed: a runner gives its handler a `running` job with this attempt counted.
    ///   - cancellationReason: Asked each time the handler reads ``cancellationReason``,
    ///     ``isCancelled`` or calls ``checkCancellation()``; never cancelled by default.
    ///   - renewLease: Called by ``renewLease(for:)`` with its argument; succeeds by default. Throw
    ///     ``SpoolError/Code/leaseLost`` from it to test a handler's reaction to a lost lease.
    ///   - park: Called by ``park(key:deadline:start:)`` with its arguments before it throws ``JobParked``;
    ///     succeeds by default.
    ///   - checkpoint: Called by ``checkpoint(_:)`` with its argument; succeeds by default.
    ///   - clock: What ``clock`` gives the handler (a ``ManualClock`` in a test); the system's by default.
    public init(
        job: Job, cancellationReason: @escaping @Sendable () -> CancellationReason? = { nil },
        renewLease: @escaping @Sendable (TimeInterval?) async throws -> Void = { _ in },
        park: @escaping @Sendable (String, Date) async throws -> Void = { _, _ in },
        checkpoint: @escaping @Sendable (Data) async throws -> Void = { _ in },
        clock: any SpoolClock = SystemClock()
    ) {
        self.job = job
        source = .detached(cancellationReason: cancellationReason, renewLease: renewLease)
        detachedParking = DetachedParking(park: park, checkpoint: checkpoint)
        detachedClock = clock
    }

    /// The queue's clock (``Configuration/clock``): build deadlines from it, not from `Date()`, so that
    /// a test that pins the queue's clock pins the handler's too.
    public var clock: any SpoolClock {
        switch source {
        case .runner(let runner, _): return runner.queue.configuration.clock
        case .detached: return detachedClock
        }
    }

    /// Why the runner cancelled this attempt's task, or `nil` while it has not.
    ///
    /// The handler's task is cancelled too, so `Task.isCancelled`,
    /// `Task.checkCancellation()` and cancellation handlers observe it as well.
    public var cancellationReason: CancellationReason? {
        switch source {
        case .runner(let runner, let token): return runner.cancellationReason(of: token)
        case .detached(let reason, _): return reason()
        }
    }

    /// Whether the runner cancelled this attempt, or the handler's task was cancelled otherwise.
    public var isCancelled: Bool { cancellationReason != nil || Task.isCancelled }

    /// Throws `CancellationError` when ``isCancelled``.
    public func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }

    /// Extends the lease now by `duration` seconds (the runner's lease duration by default).
    ///
    /// The runner renews leases by itself at half their length while a handler runs;
    /// a handler calls this only to extend one further, before a long step.
    ///
    /// - Throws: ``SpoolError/Code/leaseLost`` when the job was cancelled or reclaimed.
    public func renewLease(for duration: TimeInterval? = nil) async throws {
        switch source {
        case .runner(let runner, let token): try await runner.renewLease(token, for: duration)
        case .detached(_, let renew): try await renew(duration)
        }
    }

    /// The checkpoint this attempt began with: the last one an earlier attempt recorded
    /// (``checkpoint(_:)``), after any crash, failure or stop; `nil` for none. Resume from it.
    public var lastCheckpoint: Data? { job.checkpoint }

    /// Records `data` as the job's checkpoint and renews the lease, durably, in one record: the next
    /// attempt, after a crash, failure or stop, finds it in ``lastCheckpoint``.
    ///
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     let start = context.lastCheckpoint.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    ///     for (index, chunk) in chunks(of: photo.path).enumerated() where index >= start {
    ///         try await send(chunk, idempotencyKey: "\(context.id):\(index)")
    ///         try await context.checkpoint(Data("\(index + 1)".utf8))
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``SpoolError/Code/checkpointTooLarge`` over ``JobLimits/maxCheckpointBytes``;
    ///   ``SpoolError/Code/leaseLost`` when the job was cancelled or reclaimed.
    public func checkpoint(_ data: Data) async throws {
        switch source {
        case .runner(let runner, let token): try await runner.checkpoint(token, data)
        case .detached: try await detachedParking?.checkpoint(data)
        }
    }

    /// Parks the job, durably, until an external completion named `key` arrives or `duration` seconds
    /// pass on the queue's ``clock`` (`JobQueue.park(_:key:deadline:)`), then ends the handler by throwing
    /// ``JobParked``, which the runner takes as "nothing more to record": the job stays `running`,
    /// its attempt counted once, and a later process completes it with `JobQueue.completeParked(key:)`.
    ///
    /// Hand the work to the system in `start`, which runs once the park is durable: a completion that
    /// arrives for `key` at any time after `start` began finds the job parked. (A completion for a key no
    /// job is parked under is refused with ``SpoolError/Code/jobNotFound`` and writes nothing; starting
    /// the work before parking would race its own completion.)
    ///
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     try await context.park(key: "uploads:\(context.id)", for: 86_400) {
    ///         // Hand the file to a background URLSession here: the system uploads it.
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key a later completion names (``JobLimits/maxParkKeyBytes`` at most).
    ///   - duration: How long the job waits for it, in seconds on the queue's ``clock``.
    ///   - start: Starts the work the job waits for; runs after the park is durable. If it throws, the
    ///     work never began: the parked job fails by key with its error (retried by the retry policy, as
    ///     `JobQueue.failParked(key:error:terminal:)` does) and the handler ends with that error.
    /// - Throws: ``JobParked`` once parked and started; otherwise the errors of the park
    ///   (``SpoolError/Code/parkKeyConflict``, ``SpoolError/Code/leaseLost``, ``SpoolError/Code/invalidArgument``
    ///   for a duration that leaves no time…), the job not parked and `start` not run; or the error of `start`.
    public func park(key: String, for duration: TimeInterval, start: () async throws -> Void = {}) async throws
        -> Never
    {
        try await park(key: key, deadline: clock.now().addingTimeInterval(duration), start: start)
    }

    /// Parks the job until `deadline` (not after now: ``SpoolError/Code/invalidArgument``, nothing spent),
    /// then runs `start`. See ``park(key:for:start:)``, which takes a duration on the queue's clock.
    public func park(key: String, deadline: Date, start: () async throws -> Void = {}) async throws -> Never {
        switch source {
        case .runner(let runner, let token): try await runner.park(token, key: key, deadline: deadline)
        case .detached: try await detachedParking?.park(key, deadline)
        }
        do {
            try await start()
        } catch {
            if case .runner(let runner, _) = source { await runner.parkedWorkDidNotStart(key: key, error: error) }
            throw error
        }
        throw JobParked(key: key, deadline: deadline)
    }

    /// Why a runner cancelled a handler's task.
    public enum CancellationReason: Sendable, Equatable, CustomStringConvertible {
        /// The job was cancelled (``JobQueue/cancel(_:)-2y36e``, a unique key replaced) or
        /// deleted: the job ends `cancelled`, and the handler's result is discarded.
        case jobCancelled
        /// The lease was lost otherwise (reclaimed after expiring): the result is discarded.
        case leaseLost
        /// The kind's ``JobRunner/KindOptions/timeout`` passed; the attempt was recorded as a
        /// retryable failure and the result is discarded.
        case timedOut
        /// ``JobRunner/stop(_:)`` with ``JobRunner/StopMode/cancelRunning`` or
        /// ``JobRunner/StopMode/releaseRunning``, or the queue closed.
        case runnerStopped
        /// ``JobRunner/expire()``: the system's background time ran out; the attempt was given back.
        case systemTimeExpired
        /// The job's constraints stopped holding (``JobQueue/updateDeviceConditions(_:)``); the
        /// attempt was given back and the job runs again once they hold.
        case constraintsUnmet

        /// A short description of the reason.
        public var description: String {
            switch self {
            case .jobCancelled: return "job cancelled"
            case .leaseLost: return "lease lost"
            case .timedOut: return "timed out"
            case .runnerStopped: return "runner stopped"
            case .systemTimeExpired: return "system time expired"
            case .constraintsUnmet: return "constraints unmet"
            }
        }
    }
}

/// The error a handler throws to fail its job for good: the job ends `failed`,
/// with `reason` as its last error, however many attempts it has left.
///
/// Any other error a handler throws is a retryable failure: the job goes back to
/// enqueued with a retry deadline from the retry policy, until its attempts are spent.
///
/// ```swift
/// guard account.isActive else { throw TerminalJobFailure("the account was closed") }
/// ```
public struct TerminalJobFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the job cannot succeed; recorded as the job's ``Job/lastError``.
    public var reason: String

    /// A terminal failure with `reason`.
    public init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}

/// What ``JobContext/park(key:deadline:start:)`` throws once the job is parked: the handler's attempt is over
/// without an outcome (the runner records nothing more); let it propagate.
public struct JobParked: Error, Sendable, Equatable {
    /// The key the job is parked under.
    public var key: String
    /// Until when it waits.
    public var deadline: Date

    /// The error of a job parked under `key` until `deadline`.
    public init(key: String, deadline: Date) {
        self.key = key
        self.deadline = deadline
    }
}
