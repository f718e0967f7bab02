import Spool

/// What the product did, as ``BackgroundWork/events()`` reports it and `os.Logger` logs it.
public enum BackgroundWorkEvent: Sendable, Equatable {
    /// A launch request was submitted to the platform's scheduler (new, or replacing the pending one).
    case requestSubmitted(LaunchRequest)
    /// The platform refused a launch request.
    case requestRefused(LaunchRequest, error: String)
    /// A pending launch request was cancelled: no job needs it any more.
    case requestCancelled(identifier: String)
    /// The requests could not be brought up to date (the queue refused to read its hints).
    case schedulingFailed(error: String)
    /// The system launched the app for a request.
    case launchStarted(identifier: String)
    /// A launch ended with the runner idle.
    case launchCompleted(identifier: String)
    /// A launch's time ran out: it was completed, its running attempts given back (or being given back).
    case launchExpired(identifier: String)
    /// A launch came while no queue could serve it: it was completed at once, for `reason`.
    case launchWithoutQueue(identifier: String, reason: String)
    /// The app's queue could not be opened (``BackgroundWork/attach(opening:)``).
    case queueUnavailable(error: String)
    /// The background time asked for on entering the background ran out before the attempts were
    /// given back: it was ended at once (they are given back when the app runs again).
    case backgroundTimeExpired
    /// A job's transfer was handed to the system, its job parked under `key`.
    case transferStarted(JobID, key: String)
    /// A transfer ended and its outcome was recorded for its parked job.
    case transferFinished(key: String, outcome: TransferOutcome)
    /// A transfer ended, but no job was parked under its key any more (its outcome was recorded before,
    /// the job was cancelled, or its park's deadline passed): nothing was recorded.
    case transferOutcomeDropped(key: String)
    /// A transfer was cancelled in its session: its job is no longer parked under its key (cancelled,
    /// removed, its park's deadline passed, or a new attempt parked under a new key).
    case transferCancelled(key: String)
    /// Recording a transfer's outcome failed; the park's deadline brings the job back.
    case transferRecordFailed(key: String, error: String)
    /// Every event of the background session `identifier` was recorded, and the system's completion
    /// handler for them called.
    case sessionEventsHandled(identifier: String)
    /// The session `session` was reconciled with the parks: the parked jobs whose transfers it no longer
    /// had were failed, to be retried, and its transfers whose jobs were no longer parked under them cancelled.
    case transfersReconciled(session: String, failed: [JobID], cancelled: [String])
    /// The device's conditions changed and were given to the queue.
    case conditionsChanged(DeviceConditions)
    /// A job changed state.
    case jobChanged(JobID, kind: String, state: JobState)
    /// The app went to the background, and its runner gave its running attempts back and stopped (unless a
    /// background launch runs it).
    case enteredBackground
    /// The app came to the foreground, and its runner runs.
    case enteredForeground

    /// Whether the event reports a failure (logged even when logging is quiet).
    public var isFailure: Bool {
        switch self {
        case .requestRefused, .schedulingFailed, .transferRecordFailed, .launchWithoutQueue, .queueUnavailable,
            .backgroundTimeExpired:
            return true
        case .transferFinished(_, let outcome): return !outcome.isSuccess
        default: return false
        }
    }
}

/// An event as a log writes it: what may be shown, and apart from it what may hold a file path, a URL or
/// a server's words (error texts, a transfer's failure), which a log must redact (`os.Logger`'s
/// `privacy: .private`).
public struct EventLogLine: Sendable, Equatable {
    /// What the line shows as is: identifiers, job ids, kinds, keys, states, dates.
    public var shown: String
    /// What the line holds that may be personal, or `nil`: error texts and anything else that can name a
    /// path or a URL.
    public var redacted: String?

    /// A line of `shown` text, and `redacted` text apart.
    public init(shown: String, redacted: String? = nil) {
        self.shown = shown
        self.redacted = redacted
    }
}

extension BackgroundWorkEvent: CustomStringConvertible {
    /// The event as a log writes it: ``EventLogLine/redacted`` holds every error text.
    public var logLine: EventLogLine {
        switch self {
        case .requestSubmitted(let request):
            return EventLogLine(
                shown: "submitted \(request.kind) request \(request.identifier) from \(request.earliestBeginDate)"
                    + (request.requiresNetworkConnectivity ? ", network" : "")
                    + (request.requiresExternalPower ? ", external power" : ""))
        case .requestRefused(let request, let error):
            return EventLogLine(shown: "request \(request.identifier) refused", redacted: error)
        case .requestCancelled(let identifier): return EventLogLine(shown: "cancelled request \(identifier)")
        case .schedulingFailed(let error): return EventLogLine(shown: "scheduling hints failed", redacted: error)
        case .launchStarted(let identifier): return EventLogLine(shown: "launch \(identifier) started")
        case .launchCompleted(let identifier): return EventLogLine(shown: "launch \(identifier) completed")
        case .launchExpired(let identifier):
            return EventLogLine(shown: "launch \(identifier) expired; completed, running attempts given back")
        case .launchWithoutQueue(let identifier, let reason):
            return EventLogLine(shown: "launch \(identifier) completed at once: no queue", redacted: reason)
        case .queueUnavailable(let error): return EventLogLine(shown: "the queue could not be opened", redacted: error)
        case .backgroundTimeExpired:
            return EventLogLine(shown: "background time ran out before the attempts were given back; ended")
        case .transferStarted(let id, let key):
            return EventLogLine(shown: "job \(id) transfer started, parked under \(key)")
        case .transferFinished(let key, let outcome):
            switch outcome {
            case .success: return EventLogLine(shown: "transfer \(key) finished: success")
            case .result(let data):
                return EventLogLine(shown: "transfer \(key) finished: success with a result of \(data.count) bytes")
            case .retry(let error): return EventLogLine(shown: "transfer \(key) finished: retry", redacted: error)
            case .retryAfter(let error, let seconds):
                return EventLogLine(shown: "transfer \(key) finished: retry in \(seconds) s", redacted: error)
            case .fail(let error): return EventLogLine(shown: "transfer \(key) finished: fail", redacted: error)
            }
        case .transferOutcomeDropped(let key):
            return EventLogLine(shown: "transfer \(key) finished; no job parked under it any more")
        case .transferCancelled(let key): return EventLogLine(shown: "transfer \(key) cancelled: its job left the park")
        case .transferRecordFailed(let key, let error):
            return EventLogLine(shown: "transfer \(key): recording its outcome failed", redacted: error)
        case .sessionEventsHandled(let identifier):
            return EventLogLine(shown: "events of session \(identifier) recorded and handled")
        case .transfersReconciled(let session, let failed, let cancelled):
            return EventLogLine(
                shown:
                    "session \(session) reconciled: jobs failed for want of their transfer \(failed.map(\.rawValue)), "
                    + "transfers cancelled \(cancelled)")
        case .conditionsChanged(let conditions): return EventLogLine(shown: "device conditions: \(conditions)")
        case .jobChanged(let id, let kind, let state): return EventLogLine(shown: "job \(id) (\(kind)) \(state)")
        case .enteredBackground: return EventLogLine(shown: "entered background; runner stopped")
        case .enteredForeground: return EventLogLine(shown: "entered foreground; runner running")
        }
    }

    /// One line: ``logLine``'s shown text, then its redacted text (for the app's own streams; `os.Logger`
    /// gets the two apart).
    public var description: String {
        let line = logLine
        return line.redacted.map { line.shown + ": " + $0 } ?? line.shown
    }
}
