import Spool

/// Transfers the system carries out for jobs (background uploads and downloads), each job parked
/// while its transfer runs, so that the transfer outlives the app's process and its outcome, whenever
/// it comes, ends the job once.
///
/// A handler starts one with ``start(_:in:for:)``: the job is parked under the transfer's key first,
/// durably, and the transfer starts only then (`JobContext/park(key:for:start:)`), so a completion
/// always finds its job. The session's delegate reports each completion (``transferDidComplete(_:)``),
/// which ``TransferRules`` turn into the job's outcome (a result, a retry at the server's time), and the
/// bytes moved meanwhile (``transferMadeProgress(key:bytes:expected:)``), which are the job's progress.
///
/// The system's tasks follow the parks: when a job stops being parked under a transfer's key — cancelled
/// (by id, tag, kind or unique key, by the app or a producer), its park's deadline passed, a new attempt
/// parked under a new key — the transfer is cancelled in the session that holds it, and a report that still
/// comes for it changes nothing (``BackgroundWorkEvent/transferOutcomeDropped(key:)``).
///
/// Reconciliation (``reconcile()``) fails, by their retry policy, the parked jobs whose transfers the system
/// no longer has (the app was killed between the park and the start, or the system dropped the task), so
/// they run again, and cancels the tasks whose jobs are no longer parked under them. It never leans on a
/// finished task still being listed by the session: at a launch for the session's events it runs after the
/// session delivered them all (`urlSessionDidFinishEvents`), at any other launch ``reconciliationGrace``
/// after the attach (by then a running app's session has delivered what it held), and it leaves alone a
/// park younger than ``reconciliationGrace``, whose task may not be started yet.
///
/// Keys are ``TransferKey``s: no two transfers of a job share one.
public final class BackgroundTransfers: Sendable {
    /// How long after the attach a launch not made for the session's events reconciles, and how old a park
    /// must be to be failed for want of its task: 60 seconds, on the queue's clock.
    public static let reconciliationGrace: TimeInterval = 60
    /// The shortest time between two progress reports of one transfer given to the queue; a report of the
    /// whole total always goes through.
    static let progressInterval: TimeInterval = 0.25

    let queue: JobQueue
    let rules: TransferRules
    let events: EventLog
    /// The app's own session.
    public let session: any TransferSession
    /// Makes the session of an identifier, reporting to ``completions``.
    let makeSession: @Sendable (String, TransferCompletions) -> any TransferSession
    /// Where every session made here reports.
    let completions: TransferCompletions
    /// Where its tasks start.
    let place: TaskPlace

    struct State {
        /// Sessions made for other identifiers, by identifier.
        var otherSessions: [String: any TransferSession] = [:]
        /// The keys whose completions are being recorded now.
        var recording: [String: Int] = [:]
        /// The system's completion handlers for sessions' events, by session identifier, until called.
        var eventHandlers: [String: [@MainActor @Sendable () -> Void]] = [:]
        /// Sessions that reported all their events, and whose outcomes are durable, with no handler
        /// waiting then: a handler given later is called at once.
        var eventsFinished: Set<String> = []
        /// The park of each job parked under a key of one of these sessions, as this process started it or
        /// the queue's changes last showed it.
        var parks: [JobID: Park] = [:]
        /// The keys of the parks above whose transfers reported their completion: their jobs leave the park by
        /// that report, and their tasks are done (nothing to cancel).
        var reported: Set<String> = []
        /// When each transfer's progress was last given to the queue.
        var progressReported: [String: Date] = [:]
        /// The reconciliation at the end of the grace period, until it ran or the transfers closed.
        var graceReconciliation: Task<Void, Never>?
    }
    let state = Awaitable(State())

    /// A job's park under a transfer's key, and the job's `Job.starts` then: a change that shows the
    /// job with fewer starts, or running unparked with as many, was read before the park (the queue's changes
    /// may come late), and says nothing of it.
    struct Park: Equatable {
        var key: String
        var starts: Int

        /// Whether `job`, as a change shows it, was read before this park was made.
        func isOlder(_ job: Job) -> Bool {
            job.starts < starts || (job.starts == starts && job.state == .running && job.parkedKey != key)
        }
    }

    /// Transfers in the session `identifier`, made by `makeSession`. The app's session is reconciled
    /// ``reconciliationGrace`` from now on the queue's clock, or earlier, once it delivered its events.
    init(
        queue: JobQueue, session identifier: String, rules: TransferRules, events: EventLog, place: TaskPlace,
        makeSession: @escaping @Sendable (String, TransferCompletions) -> any TransferSession
    ) {
        self.place = place
        let completions = TransferCompletions()
        self.queue = queue
        self.session = makeSession(identifier, completions)
        self.rules = rules
        self.events = events
        self.makeSession = makeSession
        self.completions = completions
        completions.attach(self)
        let clock = queue.configuration.clock
        let deadline = clock.now().addingTimeInterval(Self.reconciliationGrace)
        let task = place.start { [weak self] in
            guard (try? await clock.sleep(until: deadline)) != nil, let self else { return }
            await self.reconcile()
        }
        state.update { $0.graceReconciliation = task }
    }

    /// A new identifier for a share extension's background session, under the app's session
    /// `appSession` (each run of an extension makes its own: two processes cannot hold one session).
    public static func extensionSessionIdentifier(_ appSession: String) -> String {
        extensionPrefix(of: appSession) + UUID().uuidString
    }

    /// The prefix of the identifiers of share extensions' sessions under the app's session `identifier`.
    static func extensionPrefix(of identifier: String) -> String { identifier + ".extension." }

    /// Whether `key` is a transfer of the app's session or of one of its share extensions' sessions.
    func isOwn(_ key: String) -> Bool {
        key.hasPrefix(TransferKey.prefix(session: session.identifier))
            || key.hasPrefix(TransferKey.prefix(session: Self.extensionPrefix(of: session.identifier)))
    }

    // MARK: Starting

    /// Parks the handler's job under a new transfer's key for at most `duration` seconds, then starts
    /// `request` in the app's session, its networks narrowed by the job's constraints
    /// (``TransferRequest/NetworkAccess/narrowed(by:)``); ends the handler by throwing `JobParked`. The job
    /// stays running (parked) until the transfer's completion is recorded, or until the park's deadline
    /// brings it back (its attempt counted, the transfer cancelled), should no completion come in time.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     try await work.transfers!.start(.upload(photo.file, to: photo.destination), in: context, for: 86_400)
    /// }
    /// ```
    ///
    /// - Throws: `JobParked` once parked and started; the park's errors; the session's refusal to start
    ///   the transfer (the job is then failed by its retry policy).
    public func start(_ request: TransferRequest, in context: JobContext, for duration: TimeInterval) async throws
        -> Never
    {
        let key = TransferKey(session: session.identifier, job: context.id, startedAt: queue.configuration.clock.now())
            .description
        var request = request
        request.network = request.network.narrowed(by: context.job.constraints)
        try await context.park(key: key, for: duration) { [request] in
            parked(context.id, Park(key: key, starts: context.starts))
            try session.start(request, key: key)
            events.record(.transferStarted(context.id, key: key))
        }
    }

    // MARK: Completions and progress

    /// The session's delegate reports that the transfer `completion.key` ended: its outcome is
    /// recorded for its parked job (durably, before the session's events are reported handled).
    /// A completion for a key no job is parked under any more is dropped: its outcome was recorded
    /// before, the job was cancelled, or the park's deadline passed.
    public func transferDidComplete(_ completion: TransferCompletion) {
        state.update { state in
            state.recording[completion.key, default: 0] += 1
            state.progressReported[completion.key] = nil
            if state.parks.values.contains(where: { $0.key == completion.key }) {
                state.reported.insert(completion.key)
            }
        }
        place.start { await self.record(completion) }
    }

    /// Records `completion`'s outcome for its job, and returns once it is durable (or refused).
    func record(_ completion: TransferCompletion) async {
        defer {
            state.update { state in
                state.recording[completion.key, default: 1] -= 1
                if state.recording[completion.key] == 0 { state.recording[completion.key] = nil }
            }
        }
        let outcome = rules.outcome(completion)
        do {
            do {
                try await recordOutcome(outcome, key: completion.key)
            } catch let error as SpoolError where error.code == .jobNotFound {
                // A share extension's job may still wait in its inbox file: ingested, it is parked under the key.
                _ = try await queue.ingestInbox()
                try await recordOutcome(outcome, key: completion.key)
            }
            events.record(.transferFinished(key: completion.key, outcome: outcome))
        } catch let error as SpoolError where error.code == .jobNotFound {
            events.record(.transferOutcomeDropped(key: completion.key))
        } catch {
            events.record(.transferRecordFailed(key: completion.key, error: "\(error)"))
        }
    }

    private func recordOutcome(_ outcome: TransferOutcome, key: String) async throws {
        switch outcome {
        case .success: try await queue.completeParked(key: key)
        case .result(let data): try await queue.completeParked(key: key, result: data)
        case .retry(let error): try await queue.failParked(key: key, error: error)
        case .retryAfter(let error, let seconds):
            let retryAt = queue.configuration.clock.now().addingTimeInterval(max(0, seconds))
            try await queue.failParked(key: key, error: error, retryAt: retryAt)
        case .fail(let error): try await queue.failParked(key: key, error: error, terminal: true)
        }
    }

    /// The session's delegate reports that the transfer `key` moved `bytes` of `expected` (`nil` when the
    /// total is unknown): its parked job's progress (`JobQueue.progress(of:)`,
    /// `JobQueue.progressUpdates(_:)`), at most every a quarter of a second on the queue's clock.
    public func transferMadeProgress(key: String, bytes: Int64, expected: Int64?) {
        let now = queue.configuration.clock.now()
        let complete = expected.map { bytes >= $0 } ?? false
        let due = state.update { state -> Bool in
            if !complete, let last = state.progressReported[key],
                now.timeIntervalSince(last) < Self.progressInterval
            {
                return false
            }
            state.progressReported[key] = now
            return true
        }
        guard due else { return }
        let progress =
            if let expected, expected > 0 {
                JobProgress(completed: Int(clamping: min(bytes, expected)), of: Int(clamping: expected))
            } else {
                JobProgress(completed: Int(clamping: bytes), of: Int(clamping: max(bytes, 1)))
            }
        queue.reportProgress(progress, parkedUnder: key)
    }

    /// Returns once every completion reported so far is recorded.
    func completionsRecorded() async {
        await state.wait { $0.recording.isEmpty }
    }

    // MARK: The system's background events

    /// The app delegate's `application(_:handleEventsForBackgroundURLSession:completionHandler:)`: the
    /// system launched (or woke) the app for the events of session `identifier`. `completionHandler`
    /// is called, on the main actor, once the session reported all its events, their outcomes are
    /// durable and the session is reconciled. UIKit's handler is not `Sendable`: pass
    /// `{ completionHandler() }`. Returns whether the session is one of Spool's transfers: the app's own,
    /// or a share extension's (``extensionSessionIdentifier(_:)``); `false` leaves the handler to the app.
    @discardableResult
    public func handleEvents(
        forSession identifier: String, completionHandler: @escaping @MainActor @Sendable () -> Void
    ) -> Bool {
        guard identifier == session.identifier || identifier.hasPrefix(Self.extensionPrefix(of: session.identifier))
        else { return false }
        let finished = state.update { state -> Bool in
            if state.eventsFinished.remove(identifier) != nil { return true }
            state.eventHandlers[identifier, default: []].append(completionHandler)
            return false
        }
        if finished { place.start { await completionHandler() } }
        if identifier != session.identifier {
            // A share extension's session: made now, once, with the app's delegate, to receive its events.
            state.update { state in
                if state.otherSessions[identifier] == nil {
                    state.otherSessions[identifier] = makeSession(identifier, completions)
                }
            }
        }
        return true
    }

    /// The session's delegate (`urlSessionDidFinishEvents(forBackgroundURLSession:)`): the session
    /// `identifier` reported every event it had. Once their outcomes are durable, the session is
    /// reconciled, then the system's completion handler is called.
    public func sessionDidFinishEvents(identifier: String) {
        place.start { [self] in
            await completionsRecorded()
            if let delivered = identifier == session.identifier ? session : state.read({ $0.otherSessions[identifier] })
            {
                _ = await reconcile(delivered)
            }
            // Taken and removed in one step: each handler is called once.
            let handlers = state.update { state -> [@MainActor @Sendable () -> Void] in
                guard let handlers = state.eventHandlers.removeValue(forKey: identifier) else {
                    state.eventsFinished.insert(identifier)
                    return []
                }
                return handlers
            }
            for handler in handlers { await handler() }
            events.record(.sessionEventsHandled(identifier: identifier))
        }
    }

    /// Lets every session go (``TransferSession/finish()``) and drops the grace period's reconciliation.
    func close() {
        state.update { $0.graceReconciliation }?.cancel()
        session.finish()
        for other in state.read({ Array($0.otherSessions.values) }) { other.finish() }
    }
}
