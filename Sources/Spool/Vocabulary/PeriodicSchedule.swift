/// How a periodic job repeats: every ``interval`` seconds, each occurrence
/// allowed to start up to ``flex`` seconds before its boundary.
///
/// A periodic job keeps one id for its whole life (the idempotency key of each
/// run is the id and ``Job/occurrence``). Its first occurrence is due at the
/// job's run time; boundaries follow every `interval` after it. When an
/// occurrence ends — succeeded, or failed for good (terminal failure or attempts
/// spent) — the same record that ends it puts the job back to enqueued, due at
/// the start of the next window (`boundary - flex`) that lies after now, with a
/// fresh attempt budget and the occurrence number + 1. A crash cannot lose or
/// double an occurrence. Missed boundaries are not made up: after a clock jump
/// or a long suspension the overdue occurrence runs once, and the next one is
/// the next window after that run. Only ``JobQueue/cancel(_:)-2y36e`` (or delete) ends a
/// periodic job. Periodic jobs take no part in chains: they can neither have
/// prerequisites nor be one.
public struct PeriodicSchedule: Hashable, Sendable {
    /// Seconds between boundaries; at least ``minimumInterval``.
    public var interval: TimeInterval
    /// Seconds before each boundary from which the occurrence may start; 0 (the
    /// default: due at the boundary) or from ``minimumFlex`` to ``interval``.
    public var flex: TimeInterval

    /// The shortest interval accepted: 15 minutes, as Android's WorkManager (a
    /// background job that repeats more often drains the battery, and neither
    /// platform's scheduler would honour it).
    public static let minimumInterval: TimeInterval = 15 * 60
    /// The shortest non-zero flex window accepted: 5 minutes, as WorkManager.
    public static let minimumFlex: TimeInterval = 5 * 60

    /// Repeats every `interval` seconds, each occurrence allowed to start `flex` seconds early.
    public init(interval: TimeInterval, flex: TimeInterval = 0) {
        self.interval = interval
        self.flex = flex
    }
}
