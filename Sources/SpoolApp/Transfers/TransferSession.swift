import Spool

/// The system's transfer service for one session (on Apple platforms a background `URLSession`),
/// as the product uses it. Tests give a fake.
public protocol TransferSession: Sendable {
    /// The session's identifier (a background session's), part of each of its transfers' keys.
    var identifier: String { get }
    /// Starts `request`, its task described by `key` (``TransferCompletion/key`` reports it back).
    func start(_ request: TransferRequest, key: String) throws
    /// Cancels the session's transfer `key`, if it has one (on Apple platforms the task's `cancel()`; its
    /// completion then reports the cancellation).
    func cancel(key: String) async
    /// The keys of the session's transfers whose completion has not been reported yet (running,
    /// waiting, or finished while the app was not running and to be reported).
    func pendingKeys() async -> Set<String>
    /// Lets the session go once its transfers are handed over (the system carries them on): on Apple
    /// platforms `finishTasksAndInvalidate()`, which releases its delegate.
    func finish()
}

extension TransferSession {
    /// Nothing to let go.
    public func finish() {}
}
