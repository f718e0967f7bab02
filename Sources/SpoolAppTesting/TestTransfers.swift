import Foundation
import Spool
import SpoolApp

/// A background session in an app's tests: transfers start when the app starts them and end when the test
/// says (``complete(_:status:error:headers:body:)``), move bytes when it says (``progress(_:bytes:of:)``),
/// and what the system still holds is ``pending`` (a finished transfer whose completion was not reported
/// yet stays there, as after a relaunch).
public final class TestTransferSession: TransferSession, @unchecked Sendable {
    // @unchecked: every stored property but the constants is guarded by `lock`.
    /// The session's identifier.
    public let identifier: String
    private let completions: TransferCompletions
    private let lock = NSLock()
    private var pendingSet: Set<String>
    private var starts: [(TransferRequest, String)] = []
    private var cancels: [String] = []
    private let beforeListing: (@Sendable () async -> Void)?

    /// The session `identifier`, reporting to `completions`, holding `pending` transfers from an earlier
    /// process; `beforeListing` runs before each ``pendingKeys()`` answers (to hold it in a test).
    public init(
        identifier: String, completions: TransferCompletions, pending: Set<String> = [],
        beforeListing: (@Sendable () async -> Void)? = nil
    ) {
        self.identifier = identifier
        self.completions = completions
        self.pendingSet = pending
        self.beforeListing = beforeListing
    }

    /// Starts `request`: it is pending until the test completes it.
    public func start(_ request: TransferRequest, key: String) throws {
        lock.withLock {
            pendingSet.insert(key)
            starts.append((request, key))
        }
    }

    /// Cancels a pending transfer: it leaves ``pending`` and joins ``cancelled`` (its completion is the
    /// test's to report, as URLSession reports a cancelled task's).
    public func cancel(key: String) async {
        lock.withLock {
            if pendingSet.remove(key) != nil { cancels.append(key) }
        }
    }

    /// The pending transfers' keys.
    public func pendingKeys() async -> Set<String> {
        await beforeListing?()
        return lock.withLock { pendingSet }
    }

    /// The keys of the transfers started, in order.
    public var started: [String] { lock.withLock { starts.map(\.1) } }
    /// The requests started, in order.
    public var requests: [TransferRequest] { lock.withLock { starts.map(\.0) } }
    /// The keys of the pending transfers cancelled, in order.
    public var cancelled: [String] { lock.withLock { cancels } }
    /// The keys the session holds.
    public var pending: Set<String> { lock.withLock { pendingSet } }

    /// The transfer `key` ends with `status` (or `error`), the server's `headers` and `body`: reported to
    /// the session's delegate.
    public func complete(
        _ key: String, status: Int?, error: String? = nil, headers: [String: String] = [:], body: Data? = nil
    ) {
        lock.withLock { _ = pendingSet.remove(key) }
        completions.transferDidComplete(
            TransferCompletion(key: key, statusCode: status, error: error, headers: headers, body: body))
    }

    /// The transfer `key` moved `bytes` of `expected` (`nil`: unknown).
    public func progress(_ key: String, bytes: Int64, of expected: Int64?) {
        completions.transferMadeProgress(key: key, bytes: bytes, expected: expected)
    }

    /// The system reports that it delivered every event of the session.
    public func finishEvents() { completions.sessionDidFinishEvents(identifier: identifier) }
}

/// The sessions a `BackgroundWork` makes in a test, by identifier, each holding what the system still
/// holds for it: give ``makeSession`` as `BackgroundWork.System.transferSessions`.
public final class TestTransferSystem: @unchecked Sendable {
    // @unchecked: `sessions` is guarded by `lock`; the rest is constant.
    private let lock = NSLock()
    private var made: [String: TestTransferSession] = [:]
    private let heldAtStart: [String: Set<String>]
    private let beforeListing: (@Sendable () async -> Void)?

    /// Sessions holding `held` transfers by session identifier (from an earlier process); `beforeListing`
    /// as ``TestTransferSession``'s.
    public init(held: [String: Set<String>] = [:], beforeListing: (@Sendable () async -> Void)? = nil) {
        self.heldAtStart = held
        self.beforeListing = beforeListing
    }

    /// Makes the session `identifier`, reporting to `completions`.
    public func makeSession(_ identifier: String, _ completions: TransferCompletions) -> any TransferSession {
        lock.withLock {
            let session = TestTransferSession(
                identifier: identifier, completions: completions, pending: heldAtStart[identifier] ?? [],
                beforeListing: beforeListing)
            made[identifier] = session
            return session
        }
    }

    /// Every session made, in no order.
    public var sessions: [TestTransferSession] { lock.withLock { Array(made.values) } }

    /// The session `identifier`, once made.
    public func session(_ identifier: String) -> TestTransferSession? { lock.withLock { made[identifier] } }

    /// What every session holds, by identifier: what the system hands a relaunched app.
    public var held: [String: Set<String>] {
        lock.withLock { made.mapValues(\.pending) }.merging(heldAtStart) { current, _ in current }
    }
}
