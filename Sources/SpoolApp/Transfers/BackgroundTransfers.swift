import Spool

/// Transfers the system carries out for jobs (background uploads and downloads), each job parked
/// while its transfer runs, so that the transfer outlives the app's process and its outcome, whenever
/// it comes, ends the job once.
///
/// A handler starts one with ``start(_:in:for:)``: the job is parked under the transfer's key first,
/// durably, and the transfer starts only then (`JobContext/park(key:for:start:)`), so a completion
/// always finds its job. The session's delegate reports each completion (``transferDidComplete(_:)``),
/// which ``TransferRules`` turn into the job's outcome. At launch, parked jobs whose transfers the
/// system no longer has (the app was killed between the park and the start, or the system dropped the
/// task) are failed by their retry policy, so they run again (``reconcile()``).
///
/// A transfer's key is `transfer:<session identifier>:<job id>:<attempt>`: its task's description carries it
/// (task identifiers start again in every new session), and it names the session, so that a share
/// extension's own session is reconciled with its own tasks only.
public final class BackgroundTransfers: Sendable {
    private let queue: JobQueue
    private let rules: TransferRules
    private let events: EventLog
    /// The app's own session.
    public let session: any TransferSession
    /// Makes the session of an identifier, reporting to ``completions``.
    private let makeSession: @Sendable (String, TransferCompletions) -> any TransferSession
    /// Where every session made here reports.
    private let completions: TransferCompletions

    private struct State {
        /// Sessions made for other identifiers, by identifier.
        var otherSessions: [String: any TransferSession] = [:]
        /// The keys whose completions are being recorded now.
        var recording: [String: Int] = [:]
        /// The system's completion handlers for sessions' events, by session identifier, until called.
        var eventHandlers: [String: [@MainActor @Sendable () -> Void]] = [:]
        /// Sessions that reported all their events, and whose outcomes are durable, with no handler
        /// waiting then: a handler given later is called at once.
        var eventsFinished: Set<String> = []
    }
    private let state = Awaitable(State())

    /// Transfers in the session `identifier`, made by `makeSession`.
    init(
        queue: JobQueue, session identifier: String, rules: TransferRules, events: EventLog,
        makeSession: @escaping @Sendable (String, TransferCompletions) -> any TransferSession
    ) {
        let completions = TransferCompletions()
        self.queue = queue
        self.session = makeSession(identifier, completions)
        self.rules = rules
        self.events = events
        self.makeSession = makeSession
        self.completions = completions
        completions.attach(self)
    }

    /// The key of the transfer of job `id`'s attempt `attempt` in the session `sessionIdentifier` (a share
    /// extension's transfer, made before any attempt, is attempt 0). The attempt is part of it so that a
    /// late report of an earlier attempt's transfer never ends a later attempt.
    public static func key(for id: JobID, attempt: Int, session sessionIdentifier: String) -> String {
        "transfer:\(sessionIdentifier):\(id.rawValue):\(attempt)"
    }

    /// A new identifier for a share extension's background session, under the app's session
    /// `appSession` (each run of an extension makes its own: two processes cannot hold one session).
    public static func extensionSessionIdentifier(_ appSession: String) -> String {
        extensionPrefix(of: appSession) + UUID().uuidString
    }

    /// The prefix of the identifiers of share extensions' sessions under the app's session `identifier`.
    static func extensionPrefix(of identifier: String) -> String { identifier + ".extension." }

    /// The prefix of every key of the session `identifier`.
    static func keyPrefix(session identifier: String) -> String { "transfer:\(identifier):" }

    // MARK: Starting

    /// Parks the handler's job under its transfer's key for at most `duration` seconds, then starts
    /// `request` in the app's session; ends the handler by throwing `JobParked`. The job stays running
    /// (parked) until the transfer's completion is recorded, or until the park's deadline brings it back
    /// (its attempt counted), should no completion ever come.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     try await work.transfers.start(.upload(photo.file, to: photo.destination), in: context, for: 86_400)
    /// }
    /// ```
    ///
    /// - Throws: `JobParked` once parked and started; the park's errors; the session's refusal to start
    ///   the transfer (the job is then failed by its retry policy).
    public func start(_ request: TransferRequest, in context: JobContext, for duration: TimeInterval) async throws
        -> Never
    {
        let key = Self.key(for: context.id, attempt: context.job.attempts, session: session.identifier)
        try await context.park(key: key, for: duration) {
            try session.start(request, key: key)
            events.record(.transferStarted(context.id, key: key))
        }
    }

    // MARK: Completions

    /// The session's delegate reports that the transfer `completion.key` ended: its outcome is
    /// recorded for its parked job (durably, before the session's events are reported handled).
    /// A completion for a key no job is parked under any more is dropped: its outcome was recorded
    /// before, or the park's deadline passed.
    public func transferDidComplete(_ completion: TransferCompletion) {
        state.update { $0.recording[completion.key, default: 0] += 1 }
        Task { await record(completion) }
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
        case .retry(let error): try await queue.failParked(key: key, error: error)
        case .fail(let error): try await queue.failParked(key: key, error: error, terminal: true)
        }
    }

    /// Returns once every completion reported so far is recorded.
    func completionsRecorded() async {
        await state.wait { $0.recording.isEmpty }
    }

    // MARK: The system's background events

    /// The app delegate's `application(_:handleEventsForBackgroundURLSession:completionHandler:)`: the
    /// system launched (or woke) the app for the events of session `identifier`. `completionHandler`
    /// is called, on the main actor, once the session reported all its events and their outcomes are
    /// durable. UIKit's handler is not `Sendable`: pass `{ completionHandler() }`. Returns
    /// whether the session is one of Spool's transfers: the app's own, or a share extension's
    /// (``extensionSessionIdentifier(_:)``); `false` leaves the handler to the app.
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
        if finished { Task { await completionHandler() } }
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
    /// `identifier` reported every event it had. Once their outcomes are durable, the system's
    /// completion handler is called, and a share extension's session is reconciled.
    public func sessionDidFinishEvents(identifier: String) {
        Task {
            await completionsRecorded()
            if let other = state.read({ $0.otherSessions[identifier] }) { _ = await reconcile(other) }
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

    /// Lets every session go (``TransferSession/finish()``).
    func close() {
        session.finish()
        for other in state.read({ Array($0.otherSessions.values) }) { other.finish() }
    }

    // MARK: Reconciliation

    /// Fails, by their retry policy, the jobs parked under a key of the app's session that the session
    /// no longer has: their transfers will never report. Call before the runner starts (``BackgroundWork``
    /// does, at launch), so that no handler parks meanwhile.
    ///
    /// - Returns: The jobs failed.
    @discardableResult
    public func reconcile() async -> [JobID] {
        await reconcile(session)
    }

    /// Reconciles the jobs parked under `session`'s keys with its pending transfers.
    func reconcile(_ session: any TransferSession) async -> [JobID] {
        let prefix = Self.keyPrefix(session: session.identifier)
        do {
            // The parks first, then the session's transfers: a park made after this read is not a candidate,
            // so a transfer started after the session was read is never taken for a dropped one.
            let candidates = try queue.parkedJobs().compactMap(\.parkedKey).filter { $0.hasPrefix(prefix) }
            guard !candidates.isEmpty else { return [] }
            let pending = await session.pendingKeys()
            let recording = state.read { Set($0.recording.keys) }
            var failed: [JobID] = []
            for key in candidates where !pending.contains(key) && !recording.contains(key) {
                do {
                    failed.append(
                        try await queue.failParked(key: key, error: "the system no longer has the transfer").id)
                } catch let error as SpoolError where error.code == .jobNotFound {
                    // Its completion was recorded meanwhile.
                }
            }
            if !failed.isEmpty { events.record(.transfersReconciled(failed: failed)) }
            return failed
        } catch {
            events.record(.transferRecordFailed(key: prefix, error: "reconciliation: \(error)"))
            return []
        }
    }
}
