import Foundation
import Testing

@testable import Spool

/// A typed job for the runtime tests.
struct UploadPhoto: JobKind, Equatable {
    static let kind = "upload-photo"
    var path: String
    var size: Int
}

/// A queue on a manual clock with a runner that records its events.
final class RuntimeFixture: Sendable {
    let temp = TemporaryDirectory("spool-runtime")
    let clock: ManualClock
    let queue: JobQueue
    let events = RunnerEvents()
    let runner: JobRunner

    init(
        options: JobRunner.Options = JobRunner.Options(), retryPolicy: RetryPolicy = .default,
        clock: ManualClock = ManualClock(), ingestion: (@Sendable () throws -> Int)? = nil
    ) throws {
        self.clock = clock
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = retryPolicy
        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        runner = try JobRunner(queue: queue, options: options, events: events, ingestion: ingestion)
    }

    /// Stops the runner (cancelling), closes the queue through ``closeChecked(_:replay:sourceLocation:)``
    /// (`replay: false` for a queue whose log the test damaged), removes the directory.
    func tearDown(replay: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        await runner.stop(.cancelRunning)
        try closeChecked(queue, replay: replay, sourceLocation: sourceLocation)
        temp.cleanup()
    }

    /// The job with `id`, which must exist.
    func job(_ id: JobID) throws -> Job {
        try #require(try queue.job(id))
    }

    /// Events recorded so far.
    var eventCount: Int { events.all.count }

    /// Waits for an event matching `matches` recorded after the first `index` events.
    func waitForEvent(after index: Int, _ matches: @escaping @Sendable (RunnerEvents.Event) -> Bool) async {
        await events.wait { $0.dropFirst(index).contains(where: matches) }
    }

    /// Waits until the loop has looked at the queue again (after the first `index` events) and is idle.
    func waitForIdle(after index: Int) async {
        await waitForEvent(after: index) { if case .waiting = $0 { return true } else { return false } }
    }
}

extension RunnerEvents.Event {
    var isSuccess: Bool { if case .succeeded = self { return true } else { return false } }
    var isFailure: Bool { if case .failed = self { return true } else { return false } }
    var isClaim: Bool { if case .claimed = self { return true } else { return false } }
    var isRenewal: Bool { if case .renewed = self { return true } else { return false } }
    var jobID: JobID? {
        switch self {
        case .claimed(let id, _), .succeeded(let id), .failed(let id, _, _), .cancelledHandler(let id, _),
            .discarded(let id), .renewed(let id), .recordFailed(let id, _), .released(let id, _), .snoozed(let id),
            .finished(let id, _), .parked(let id, _):
            return id
        case .waiting, .stopped, .idle:
            return nil
        }
    }
}

/// Something a handler waits for until the test opens it. Waiting observes task cancellation:
/// a cancelled waiter throws `CancellationError`.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var next = 0
    }
    private let state = Locked(State())

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async throws {
        let number = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = state.withLock { state -> Result<Void, any Error>? in
                    if state.isOpen { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[number] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: number) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// Named moments handlers reach, counted, which a test waits for.
final class Checkpoints: Sendable {
    private let reached = Awaitable<[String: Int]>([:])

    func reach(_ name: String) { reached.update { $0[name, default: 0] += 1 } }

    func count(_ name: String) -> Int { reached.read { $0[name, default: 0] } }

    /// Returns once `name` was reached `count` times (or the test's task is cancelled).
    func wait(for name: String, count: Int = 1) async {
        await reached.wait { $0[name, default: 0] >= count }
    }
}
