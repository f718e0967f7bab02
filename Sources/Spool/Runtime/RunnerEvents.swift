/// What a runner did, in order: tests and the `spool demo` wait on these instead of sleeping.
///
/// Recording is off unless a runner is created with a ``RunnerEvents``
/// (``JobRunner/init(queue:options:events:)``, SPI), so a production runner keeps no history.
@_spi(RunnerEvents)
public final class RunnerEvents: Sendable {
    /// One thing a runner did.
    public enum Event: Sendable, Equatable {
        /// A job was claimed and its handler started (or, for an unknown kind, it is about to be failed).
        case claimed(JobID, attempt: Int)
        /// The job's success was recorded.
        case succeeded(JobID)
        /// A failure was recorded.
        case failed(JobID, error: String, terminal: Bool)
        /// The runner cancelled a handler's task.
        case cancelledHandler(JobID, JobContext.CancellationReason)
        /// A handler's result arrived after its attempt was settled otherwise, and was not recorded.
        case discarded(JobID)
        /// The runner renewed a lease.
        case renewed(JobID)
        /// Recording a result failed (the queue refuses writes, or closed).
        case recordFailed(JobID, String)
        /// The loop has nothing to do and waits for a change, or for this deadline.
        case waiting(until: Date?)
        /// The loop ended; every handler has finished.
        case stopped
    }

    private struct State {
        var events: [Event] = []
        var waiters: [(predicate: @Sendable ([Event]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// An empty log.
    public init() {}

    /// Every event so far.
    public var all: [Event] { state.withLock { $0.events } }

    func record(_ event: Event) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            let events = state.events
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(events) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `predicate` holds for the events so far (at once if it does already).
    public func wait(until predicate: @escaping @Sendable ([Event]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = state.withLock { state -> Bool in
                if predicate(state.events) { return true }
                state.waiters.append((predicate, continuation))
                return false
            }
            if holds { continuation.resume() }
        }
    }

    /// Returns once `count` events match `matches` in total (counting those already recorded).
    public func wait(for count: Int = 1, _ matches: @escaping @Sendable (Event) -> Bool) async {
        await wait { $0.lazy.filter(matches).count >= count }
    }
}
