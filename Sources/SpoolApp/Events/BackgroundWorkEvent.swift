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
    /// A launch's time ran out: its running attempts were given back.
    case launchExpired(identifier: String)
    /// A job's transfer was handed to the system, its job parked under `key`.
    case transferStarted(JobID, key: String)
    /// A transfer ended and its outcome was recorded for its parked job.
    case transferFinished(key: String, outcome: TransferOutcome)
    /// A transfer ended, but no job was parked under its key any more (its outcome was recorded before,
    /// or its park's deadline passed): nothing was recorded.
    case transferOutcomeDropped(key: String)
    /// Recording a transfer's outcome failed; the park's deadline brings the job back.
    case transferRecordFailed(key: String, error: String)
    /// Every event of the background session `identifier` was recorded, and the system's completion
    /// handler for them called.
    case sessionEventsHandled(identifier: String)
    /// At launch, parked jobs whose transfers the system no longer has were failed, to be retried.
    case transfersReconciled(failed: [JobID])
    /// The device's conditions changed and were given to the queue.
    case conditionsChanged(DeviceConditions)
    /// A job changed state.
    case jobChanged(JobID, kind: String, state: JobState)
    /// The app went to the background: the runner gave its running attempts back and stopped.
    case enteredBackground
    /// The app came to the foreground: the runner runs.
    case enteredForeground

    /// Whether the event reports a failure (logged even when logging is quiet).
    public var isFailure: Bool {
        switch self {
        case .requestRefused, .schedulingFailed, .transferRecordFailed: return true
        case .transferFinished(_, let outcome): return outcome != .success
        default: return false
        }
    }
}

extension BackgroundWorkEvent: CustomStringConvertible {
    /// One line for a log.
    public var description: String {
        switch self {
        case .requestSubmitted(let request):
            return "submitted \(request.kind) request \(request.identifier) from \(request.earliestBeginDate)"
                + (request.requiresNetworkConnectivity ? ", network" : "")
                + (request.requiresExternalPower ? ", external power" : "")
        case .requestRefused(let request, let error): return "request \(request.identifier) refused: \(error)"
        case .requestCancelled(let identifier): return "cancelled request \(identifier)"
        case .schedulingFailed(let error): return "scheduling hints failed: \(error)"
        case .launchStarted(let identifier): return "launch \(identifier) started"
        case .launchCompleted(let identifier): return "launch \(identifier) completed"
        case .launchExpired(let identifier): return "launch \(identifier) expired; running attempts given back"
        case .transferStarted(let id, let key): return "job \(id) transfer started, parked under \(key)"
        case .transferFinished(let key, let outcome): return "transfer \(key) finished: \(outcome)"
        case .transferOutcomeDropped(let key): return "transfer \(key) finished; no job parked under it any more"
        case .transferRecordFailed(let key, let error): return "transfer \(key): recording its outcome failed: \(error)"
        case .sessionEventsHandled(let identifier): return "events of session \(identifier) recorded and handled"
        case .transfersReconciled(let failed): return "transfers the system dropped: \(failed.map(\.rawValue))"
        case .conditionsChanged(let conditions): return "device conditions: \(conditions)"
        case .jobChanged(let id, let kind, let state): return "job \(id) (\(kind)) \(state)"
        case .enteredBackground: return "entered background; runner stopped"
        case .enteredForeground: return "entered foreground; runner running"
        }
    }
}
