/// Runs a queue's jobs: one async handler per kind, under concurrency limits,
/// with leases renewed, outcomes recorded, and no polling.
///
/// ```swift
/// let runner = try JobRunner(queue: queue, options: .init(maxConcurrentJobs: 4))
/// try runner.register(UploadPhoto.self, options: .init(maxConcurrentJobs: 2, timeout: 120)) { photo, context in
///     try await upload(photo.path, idempotencyKey: context.id.rawValue)
/// }
/// runner.start()
/// // …
/// await runner.stop(.cancelRunning)
/// ```
///
/// A started runner claims due jobs of the kinds it has handlers for (the best
/// first: priority, then due time, then enqueue order), each under a lease that
/// it renews at half its length while the handler runs. A handler that returns
/// completes its job; one that throws fails the attempt — retryable, so the job
/// comes back after the retry policy's delay, unless it threw
/// ``TerminalJobFailure`` or its payload does not decode, which end it failed
/// for good. Every outcome is durable before the handler's slot is free again.
///
/// When nothing is due the runner sleeps on the queue's clock until the exact
/// next deadline — a due time, a lease renewal, a timeout — or until the queue
/// changes (an enqueue, a cancel, a retry), whichever comes first. It never
/// polls: an idle runner does nothing at all.
///
/// Cancelling a running job (``JobQueue/cancel(_:)-2y36e``) cancels its
/// handler's task; whatever the handler returns afterwards is discarded, and the
/// job stays `cancelled`.
///
/// The runner holds itself while started: call ``stop(_:)`` before letting it go.
public final class JobRunner: Sendable {
    /// The queue the runner takes jobs from.
    public let queue: JobQueue
    /// The options the runner was created with.
    public let options: Options
    /// Records what the runner does, for tests; `nil` unless given at init.
    let events: RunnerEvents?
    /// Guards everything the runner changes.
    let state = Locked(RunnerState())
    /// Wakes the scheduling loop.
    let wakeup = Wakeup()
    /// The inbox watcher and the ingestion each pass runs (``InboxWake``).
    let inbox: InboxWake

    var clock: any SpoolClock { queue.configuration.clock }
    /// The lease each claim takes and each renewal extends by.
    var leaseDuration: TimeInterval { options.leaseDuration ?? queue.configuration.leaseDuration }

    /// Creates a runner for `queue`. It does nothing until ``start()``.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` when `options.maxConcurrentJobs` is below 1 or
    ///   `options.leaseDuration` is not a positive number of seconds below 10⁹ (before this check, a trap).
    public convenience init(queue: JobQueue, options: Options = Options()) throws {
        try self.init(queue: queue, options: options, events: nil)
    }

    /// Creates a runner that records what it does in `events`, for tests to wait on (see ``RunnerEvents``).
    ///
    /// - Throws: As ``init(queue:options:)``.
    public convenience init(queue: JobQueue, options: Options = Options(), events: RunnerEvents?) throws {
        try self.init(queue: queue, options: options, events: events, ingestion: nil)
    }

    /// Creates a runner whose passes run `ingestion` to ingest the inbox (`nil`: the engine's), so that a
    /// test can watch when a pass looks into the inbox.
    init(
        queue: JobQueue, options: Options, events: RunnerEvents?, ingestion: (@Sendable () throws -> Int)?
    ) throws {
        guard options.maxConcurrentJobs >= 1 else {
            throw SpoolError.invalidArgument(
                "a runner's maxConcurrentJobs must be at least 1, not \(options.maxConcurrentJobs)")
        }
        if let lease = options.leaseDuration { try JobLimits.checkLeaseDuration(lease) }
        self.queue = queue
        self.options = options
        self.events = events
        self.inbox = InboxWake(engine: queue.engine, ingestion: ingestion)
    }

    // MARK: Handlers

    /// Registers the handler of the jobs of a ``JobKind``: it receives their decoded
    /// parameters and a ``JobContext``. Registering a kind again replaces its handler
    /// for the attempts that start afterwards. A started runner looks for due jobs of
    /// the kind at once.
    ///
    /// A payload that does not decode as `Parameters` fails its job for good with the
    /// error "undecodable payload: …"; the handler is not called.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument``, nothing registered, when `Parameters.kind` is
    ///   not 1 to 200 UTF-8 bytes, `options.maxConcurrentJobs` is below 1 or `options.timeout` is
    ///   not a positive finite number of seconds (before this check, a trap; `register` throws since).
    public func register<Parameters: JobKind>(
        _ type: Parameters.Type, options: KindOptions = KindOptions(),
        handler: @escaping @Sendable (Parameters, JobContext) async throws -> Void
    ) throws {
        let kind = Parameters.kind
        try register(kind: kind, options: options) { payload, context in
            let parameters: Parameters
            do {
                parameters = try Parameters.decode(payload)
            } catch {
                throw UndecodablePayload(kind: kind, underlying: error)
            }
            try await handler(parameters, context)
        }
    }

    /// Registers the handler of the jobs of `kind`: it receives their payload as stored
    /// and a ``JobContext``. See ``register(_:options:handler:)``.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument``, nothing registered, when `kind` is not 1 to 200
    ///   UTF-8 bytes, `options.maxConcurrentJobs` is below 1 or `options.timeout` is not a positive
    ///   finite number of seconds.
    public func register(
        kind: String, options: KindOptions = KindOptions(),
        handler: @escaping @Sendable (Data, JobContext) async throws -> Void
    ) throws {
        try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        if let limit = options.maxConcurrentJobs, limit < 1 {
            throw SpoolError.invalidArgument("the maxConcurrentJobs of kind \(kind) must be at least 1, not \(limit)")
        }
        if let timeout = options.timeout, !(timeout > 0 && timeout.isFinite) {
            throw SpoolError.invalidArgument(
                "the timeout of kind \(kind) must be a positive finite number of seconds, not \(timeout)")
        }
        state.withLock { $0.registrations[kind] = Registration(options: options, run: handler) }
        wakeup.post { $0.runnerChanged = true }
    }

    /// The enqueued jobs of kinds no handler is registered for, in enqueue order
    /// (with ``UnknownKindPolicy/wait`` these wait for one).
    public func unhandledJobs() throws -> [Job] {
        let known = state.withLock { Set($0.registrations.keys) }
        return try queue.jobs(state: .enqueued).filter { !known.contains($0.kind) }
    }

    // MARK: Starting and stopping

    /// Starts claiming and running jobs, in the background. Does nothing when already started.
    ///
    /// A runner stopped in any way (``stop(_:)``, ``expire()``, ``suspend()``, or by itself) starts
    /// again with this call, as after its creation; ``resume()`` is the same call under the name an
    /// app's lifecycle uses.
    public func start() {
        state.withLock { state in
            guard state.phase == .idle else { return }
            state.phase = .running
            state.cancelOnStop = false
            state.releaseOnStop = nil
            state.failure = nil
            // Subscribed before the first look at the queue, so no change in between is missed.
            let subscription = queue.engine.changes.subscribe()
            state.changeSubscriber = subscription.token
            wakeup.loopRuns(true)
            state.loop = options.place.start { await self.runLoop(subscription) }
        }
        wakeup.post { $0.runnerChanged = true }
    }

    /// Stops claiming, then waits until every running handler has finished and its outcome
    /// is recorded (see ``StopMode``), and the runner's tasks have ended.
    ///
    /// A second call may escalate: `stop(.cancelRunning)` while a `stop(.finishRunning)` waits
    /// cancels the handlers still running. A stopped runner can be started again. Do not await
    /// it from a handler: it waits for that handler to return.
    public func stop(_ mode: StopMode = .finishRunning) async {
        await stop(mode, releasing: mode == .releaseRunning ? .runnerStopped : nil)
    }

    /// Stops as ``stop(_:)``; with `reason`, the running attempts are given back for it.
    func stop(_ mode: StopMode, releasing reason: StopReason?) async {
        let loop = state.withLock { state -> Task<Void, Never>? in
            if state.phase == .running { state.phase = .stopping }
            if mode != .finishRunning, state.phase == .stopping { state.cancelOnStop = true }
            if let reason, state.phase == .stopping, state.releaseOnStop == nil { state.releaseOnStop = reason }
            return state.loop
        }
        wakeup.post { $0.runnerChanged = true }
        await loop?.value
    }

    /// Whether the runner is started (including while it stops).
    public var isRunning: Bool { state.withLock { $0.phase != .idle } }

    /// Why the runner stopped by itself — the queue closed, or refused a write
    /// (``SpoolError/Code/needsReopen``) — or `nil`. A runner that cannot claim or record
    /// stops claiming, lets its handlers finish, and stops.
    public var failure: SpoolError? { state.withLock { $0.failure } }

    /// Scheduling passes, claims tried and handler tasks started so far.
    var statistics: RunnerStatistics { state.withLock { $0.statistics } }

    // MARK: For the context

    func cancellationReason(of token: LeaseToken) -> JobContext.CancellationReason? {
        state.withLock { $0.executions[token]?.cancellation }
    }

    func renewLease(_ token: LeaseToken, for duration: TimeInterval?) async throws {
        guard let lease = state.withLock({ $0.executions[token]?.lease }) else {
            throw SpoolError(.leaseLost, "the attempt is over")
        }
        let length = duration ?? leaseDuration
        let (renewed, lsn) = try await queue.renewRecorded(lease, for: length)
        // The runner's next renewal follows the lease the job holds: this one, unless the loop's
        // renewal recorded a newer one meanwhile.
        state.withLock { $0.executions[token]?.adopt(renewed, term: length, lsn: lsn) }
        events?.record(.renewed(lease.job.id))
        wakeup.post { $0.runnerChanged = true }
    }
}
