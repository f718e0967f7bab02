/// A kind's rate limit as the log records it: starts per window, the window in milliseconds.
struct StoredRateLimit: Sendable, Equatable, Hashable {
    /// Claims allowed per window (1 … 2^31−1).
    var starts: Int64
    /// The window's length in milliseconds (≥ 1).
    var intervalMillis: Int64
}

/// The current window of a rate-limited kind: when its first start was, and how many starts it holds.
struct RateWindow: Sendable, Equatable, Hashable {
    /// The claim time that opened the window (ms since 1970).
    var start: Int64
    /// Starts made in the window (≥ 1).
    var count: Int64
}
