#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A registered handler, taking the raw payload (typed handlers decode it first).
struct Registration: Sendable {
    let options: JobRunner.KindOptions
    let run: @Sendable (Data, JobContext) async throws -> Void
}

/// A handler's payload that does not decode: a terminal failure.
struct UndecodablePayload: Error, CustomStringConvertible {
    let kind: String
    let underlying: any Error
    var description: String { "undecodable payload: the parameters of kind \(kind) do not decode: \(underlying)" }
}

/// How an attempt ended, as the runner records it.
enum AttemptOutcome: Sendable, Equatable {
    case succeeded
    case failed(String, terminal: Bool)
}

/// A claimed job while the runner works on it.
struct Execution: Sendable {
    /// The lease (renewals move its expiry; the token stays).
    var lease: Lease
    var kind: String
    /// When the runner renews the lease next.
    var renewAt: Date
    /// The kind's timeout when the attempt started, and when the attempt times out.
    var timeout: TimeInterval?
    var timeoutAt: Date?
    /// Set once the attempt's outcome is settled — being recorded, or not to be
    /// recorded at all (job cancelled, lease lost): a result arriving later is discarded.
    var isSettled = false
    /// Why the runner cancelled the handler's task, if it did.
    var cancellation: JobContext.CancellationReason?
    /// The task running the handler (set right after it is created).
    var task: Task<Void, Never>?
}

/// Everything a runner changes while it runs, guarded by one lock.
struct RunnerState: Sendable {
    enum Phase: Sendable { case idle, running, stopping }

    var phase = Phase.idle
    /// Whether the stop under way cancels running handlers.
    var cancelOnStop = false
    var registrations: [String: Registration] = [:]
    /// The attempts under way, by lease token: a job id may be here twice, when a
    /// timed-out handler still runs while its job's next attempt has started.
    var executions: [LeaseToken: Execution] = [:]
    /// Handler tasks whose attempt is over, for the loop to await before it ends.
    var retiredTasks: [Task<Void, Never>] = []
    /// The scheduling loop, while the runner is started.
    var loop: Task<Void, Never>?
    /// Why the runner stopped by itself.
    var failure: SpoolError?
    /// Passes of the scheduling loop (each one a wake-up), for tests.
    var passes = 0
    /// Claims tried, for tests.
    var claimAttempts = 0

    /// Running handlers per kind.
    func runningCount(of kind: String) -> Int {
        executions.values.lazy.filter { $0.kind == kind }.count
    }
}
