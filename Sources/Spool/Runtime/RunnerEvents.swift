/// What a runner did, in order, for an app's tests to wait on instead of sleeping.
///
/// Give a runner an event log when creating it (``JobRunner/init(queue:options:events:)``), then wait
/// for the events a test expects; with the queue on a ``ManualClock`` nothing depends on time:
///
/// ```swift
/// let events = RunnerEvents()
/// let runner = try JobRunner(queue: queue, events: events)
/// try runner.register(UploadPhoto.self) { photo, context in
///     try await upload(photo.path, idempotencyKey: context.id.rawValue)
/// }
/// runner.start()
/// let id = try await queue.enqueue(UploadPhoto(path: "/p"))
/// await events.wait { $0.contains(.succeeded(id)) }
/// ```
///
/// Every event is recorded when what it names is done: `.succeeded(id)` once the success is durable.
/// The log keeps every event for the runner's life and is meant for tests and demos; a runner created
/// without one (``JobRunner/init(queue:options:)``) records nothing.
public final class RunnerEvents: Sendable {
    /// One thing a runner did.
    ///
    /// Later versions may add cases: a `switch` over events ends with `default:`, or a test matches
    /// the events it expects (`==`, `if case`).
    public enum Event: Sendable, Equatable {
        /// A job was claimed and its handler started (or, for an unknown kind, it is about to be failed).
        case claimed(JobID, attempt: Int)
        /// The job's success was recorded.
        case succeeded(JobID)
        /// A failure was recorded; `terminal` when the handler said so (``TerminalJobFailure``). Whether
        /// the job then ended failed (terminal, or its attempts used up) is `.finished(id, .failed)`.
        case failed(JobID, error: String, terminal: Bool)
        /// The job reached its final state — ``JobState/succeeded``, ``JobState/failed`` (a terminal
        /// failure, or its attempts used up) or ``JobState/cancelled`` (while its handler ran) — by a
        /// record of this runner's, or a cancel this runner noticed. Recorded after the outcome's event.
        case finished(JobID, JobState)
        /// The handler parked its job under `key` (``JobContext/park(key:for:start:)``): it waits, durably,
        /// for the completion of work the system does; its slot is free.
        case parked(JobID, key: String)
        /// Nothing of the runner's kinds runs or is due: ``JobRunner/idle()`` returns. Recorded each
        /// time the runner becomes idle; parked jobs and jobs waiting for conditions do not keep it busy.
        case idle
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
        /// An attempt was given back (``JobQueue/release(_:reason:)-8hql8``) for this reason.
        case released(JobID, StopReason)
        /// A handler's snooze (``JobSnooze``) was recorded.
        case snoozed(JobID)
    }

    private let events = Awaitable<[Event]>([])

    /// An empty log.
    public init() {}

    /// Every event so far.
    public var all: [Event] { events.read { $0 } }

    func record(_ event: Event) { events.update { $0.append(event) } }

    /// Returns once `predicate` holds for the events so far (at once if it does already), or once
    /// the calling task is cancelled (check `Task.isCancelled` where that matters), so a test's time
    /// limit ends a wait for an event that never comes.
    ///
    /// `predicate` runs on the thread recording an event, under the log's lock: keep it short, and
    /// do not call the runner or the queue from it.
    public func wait(until predicate: @escaping @Sendable ([Event]) -> Bool) async {
        await events.wait(until: predicate)
    }

    /// Returns once `count` events match `matches` in total (counting those already recorded).
    public func wait(for count: Int = 1, _ matches: @escaping @Sendable (Event) -> Bool) async {
        await wait { $0.lazy.filter(matches).count >= count }
    }

    /// Returns once `predicate` holds for the events so far, or throws ``TimedOut`` once `seconds` of real
    /// time passed without it: a test that waits for an event that never comes fails, naming what came,
    /// instead of hanging. (The limit is a guard, in real time; what the test waits for stays an event.)
    public func wait(
        until predicate: @escaping @Sendable ([Event]) -> Bool, timeout seconds: TimeInterval
    ) async throws {
        let held = try await withThrowingTaskGroup(of: Bool.self) { group -> Bool in
            group.addTask {
                await self.events.wait(until: predicate)
                return !Task.isCancelled
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 1e9)) * 1e9))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !held, !predicate(all) { throw TimedOut(seconds: seconds, events: all) }
    }

    /// Returns once `count` events match `matches` in total, or throws ``TimedOut`` after `seconds`.
    /// See ``wait(until:timeout:)``.
    public func wait(
        for count: Int = 1, timeout seconds: TimeInterval, _ matches: @escaping @Sendable (Event) -> Bool
    ) async throws {
        try await wait(until: { $0.lazy.filter(matches).count >= count }, timeout: seconds)
    }

    /// Returns once `event` is recorded (at once if it was already), or throws ``TimedOut`` after
    /// `seconds`. See ``wait(until:timeout:)``.
    ///
    /// ```swift
    /// func expectFailedForGood(_ id: JobID, events: RunnerEvents) async throws {
    ///     try await events.wait(for: .finished(id, .failed), timeout: 10)
    /// }
    /// ```
    public func wait(for event: Event, timeout seconds: TimeInterval) async throws {
        try await wait(until: { $0.contains(event) }, timeout: seconds)
    }

    /// What a wait with a time limit throws when the events it waited for did not come in time.
    public struct TimedOut: Error, Sendable, CustomStringConvertible {
        /// The time limit, in seconds.
        public var seconds: TimeInterval
        /// The events recorded when the limit passed.
        public var events: [Event]

        /// "no matching event within N s; events: …".
        public var description: String { "no matching event within \(seconds) s; events: \(events)" }
    }
}
