/// How an attempt on a leased job ends: the one vocabulary of the queue's calls
/// (`complete`, `fail`, `release`, `snooze`, `park`), the worker runtime and the engine, which
/// records every one of them through ``QueueEngine/end(id:token:issued:ending:claimingNext:leaseDuration:madeBy:)``.
enum AttemptEnd: Sendable, Equatable {
    /// Succeeded, recording `result` with the success (``JobLimits/maxResultBytes`` at most).
    case succeeded(result: [UInt8]? = nil)
    /// Failed with `error`: retried by the retry policy unless `terminal` or the attempts are spent.
    /// `reason` is why, when it is not the handler's own error (a timeout, a stop that counts).
    case failed(error: String, terminal: Bool, reason: StopReason = .failed)
    /// Given back after an interruption (``StopReason/isInterruption``): due again, the attempt not spent.
    case released(StopReason)
    /// Run again at `until` (milliseconds), the attempt given back, kept or counted as `attempt` says.
    case snoozed(until: Int64, attempt: SnoozeAttempt)
    /// Handed to the system: the job waits, running, for a completion under `key` until `deadline`
    /// (milliseconds). Its attempt goes on; it ends when the completion arrives or the deadline passes.
    case parked(key: String, deadline: Int64)

    /// The action a refusal of this end names.
    var action: Refusal.Action {
        switch self {
        case .succeeded: .complete
        case .failed: .fail
        case .released: .release
        case .snoozed: .snooze
        case .parked: .park
        }
    }
}
