/// A job's stable identifier: the idempotency key a handler sends with its
/// side effect, so that a retried job is recognised by the server.
///
/// Spool generates a random UUID when the caller does not choose an id.
public struct JobID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The identifier's text.
    public let rawValue: String

    /// Wraps an identifier's text. Validity (1 to 200 UTF-8 bytes) is checked when a job is enqueued.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates an identifier from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The identifier's text.
    public var description: String { rawValue }

    /// Orders identifiers by their text.
    public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a job is in its life.
///
/// ```
/// enqueued ──claim──▶ running ──complete──▶ succeeded
///    ▲                   │ ├──fail (retryable)──▶ enqueued, nextRetryAt set
///    │                   │ └──fail (terminal, or attempts spent)──▶ failed
///    └──retry── failed / cancelled ◀──cancel── enqueued or running
/// ```
public enum JobState: String, Sendable, CaseIterable, Codable {
    /// Waiting to be claimed, possibly until `runAt` or `nextRetryAt`.
    case enqueued
    /// Claimed under a lease; a handler is working on it.
    case running
    /// Completed. Finished: its unique key is free again.
    case succeeded
    /// Failed terminally or out of attempts; waits for a person (see ``JobQueue/retry(_:)-zzu9``). Finished.
    case failed
    /// Cancelled; a late result from its handler is discarded. Finished.
    case cancelled

    /// Whether the job is done: `succeeded`, `failed` or `cancelled`.
    public var isFinished: Bool {
        switch self {
        case .enqueued, .running: return false
        case .succeeded, .failed, .cancelled: return true
        }
    }
}

extension JobState: CustomStringConvertible, CustomDebugStringConvertible {
    /// The state's name, as `spool` prints it: `succeeded`.
    public var description: String { rawValue }
    /// The state's name, so that a collection of states prints `[succeeded, failed]` rather than the
    /// type's full name.
    public var debugDescription: String { rawValue }
}
