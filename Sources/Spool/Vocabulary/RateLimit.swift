/// At most ``starts`` claims of a kind's jobs per ``interval``: a durable per-kind limit, set by
/// ``JobQueue/setRateLimit(_:kind:)-dc4r`` and kept in the log (it survives a restart and
/// a compaction, and so does the count of the starts already made in the current window).
///
/// The window is fixed, and opens at a start: the first claim of the kind after the previous window
/// closed opens a window of ``interval`` seconds, in which at most ``starts`` claims of the kind are
/// made (that one included). A claim, by the app or by a ``JobRunner``, takes no job of a kind whose
/// window is full; the runner sleeps until the window closes.
///
/// ```swift
/// try queue.setRateLimit(RateLimit(starts: 10, per: 60), kind: "upload-photo")
/// ```
public struct RateLimit: Sendable, Equatable, Hashable {
    /// Claims allowed per window: 1 to ``JobLimits/maxRateLimitStarts``.
    public var starts: Int
    /// The window's length, in seconds: at least ``JobLimits/minimumRateLimitInterval``, whole milliseconds.
    public var interval: TimeInterval

    /// At most `starts` claims per `interval` seconds.
    public init(starts: Int, per interval: TimeInterval) {
        self.starts = starts
        self.interval = interval
    }
}

extension JobLimits {
    /// The most claims a ``RateLimit`` may allow per window.
    public static let maxRateLimitStarts = Int(Int32.max)
    /// The shortest window of a ``RateLimit``, in seconds (one millisecond).
    public static let minimumRateLimitInterval: TimeInterval = 0.001
    /// The longest window of a ``RateLimit``, in seconds (about 31 years).
    public static let maximumRateLimitInterval: TimeInterval = 1e9
}
