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
    /// Which attempt this is, from 1.
    public var attempt: Int { job.attempts }
    /// The lease this attempt runs under.
    let token: LeaseToken
    let runner: JobRunner

    /// Why the runner cancelled this attempt's task, or `nil` while it has not.
    ///
    /// The handler's task is cancelled too, so `Task.isCancelled`,
    /// `Task.checkCancellation()` and cancellation handlers observe it as well.
    public var cancellationReason: CancellationReason? { runner.cancellationReason(of: token) }

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
        try await runner.renewLease(token, for: duration)
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
        /// ``JobRunner/stop(_:)`` with ``JobRunner/StopMode/cancelRunning``, or the queue closed.
        case runnerStopped

        /// A short description of the reason.
        public var description: String {
            switch self {
            case .jobCancelled: return "job cancelled"
            case .leaseLost: return "lease lost"
            case .timedOut: return "timed out"
            case .runnerStopped: return "runner stopped"
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
