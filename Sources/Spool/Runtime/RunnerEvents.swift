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
}
