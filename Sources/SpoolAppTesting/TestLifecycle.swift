import Foundation
import Spool
import SpoolApp

/// The app's life cycle, as the test posts it (``post(_:)``).
public final class TestLifecycle: AppLifecycleMonitoring, @unchecked Sendable {
    // @unchecked: `handler` is guarded by `lock`.
    private let lock = NSLock()
    private var handler: (@Sendable (AppTransition) -> Void)?

    /// A life cycle with no transition yet.
    public init() {}

    /// Starts reporting to `handler`.
    public func start(_ handler: @escaping @Sendable (AppTransition) -> Void) {
        lock.withLock { self.handler = handler }
    }
    /// Stops reporting.
    public func cancel() { lock.withLock { handler = nil } }

    /// UIKit posts `transition`'s notification.
    public func post(_ transition: AppTransition) { lock.withLock { handler }?(transition) }
}

/// Background time as UIKit grants it: each grant must be ended once, and one whose time runs out
/// (``expire()``) must be ended by its expiration handler before it returns; UIKit kills the app otherwise,
/// which is a ``violations`` entry here.
public final class TestBackgroundTime: BackgroundTimeGranting, @unchecked Sendable {
    // @unchecked: `grants` and `broken` are guarded by `lock`.
    private let lock = NSLock()
    private var grants: [Grant] = []
    private var broken: [String] = []

    /// No time granted yet.
    public init() {}

    /// One grant of background time.
    final class Grant: BackgroundTimeGrant, @unchecked Sendable {
        // @unchecked: `ends` is guarded by `lock`.
        private let lock = NSLock()
        private var ends = 0
        let expiring: @Sendable () -> Void
        let owner: TestBackgroundTime
        init(expiring: @escaping @Sendable () -> Void, owner: TestBackgroundTime) {
            self.expiring = expiring
            self.owner = owner
        }
        func end() {
            let count = lock.withLock {
                ends += 1
                return ends
            }
            if count > 1 { owner.record("a background task ended twice") }
        }
        var ended: Bool { lock.withLock { ends > 0 } }
    }

    /// Grants time, `expiring` to run when it runs out.
    public func begin(_ name: String, expiring: @escaping @Sendable () -> Void) -> (any BackgroundTimeGrant)? {
        let grant = Grant(expiring: expiring, owner: self)
        lock.withLock { grants.append(grant) }
        return grant
    }

    /// How many grants were made.
    public var begun: Int { lock.withLock { grants.count } }
    /// How many grants are not ended.
    public var outstanding: Int { lock.withLock { grants.filter { !$0.ended }.count } }
    /// What UIKit would have killed the app for, in order; empty when the app kept the rules.
    public var violations: [String] { lock.withLock { broken } }

    /// The time of every outstanding grant runs out: their expiration handlers run, and each must have
    /// ended its grant when it returns.
    public func expire() {
        for grant in lock.withLock({ grants.filter { !$0.ended } }) {
            grant.expiring()
            if !grant.ended { record("a background task was not ended by its expiration handler") }
        }
    }

    fileprivate func record(_ violation: String) { lock.withLock { broken.append(violation) } }
}

/// A log sink that keeps what it was given (``events``).
public final class TestEventSink: EventSink, @unchecked Sendable {
    // @unchecked: `logged` is guarded by `lock`.
    private let lock = NSLock()
    private var logged: [BackgroundWorkEvent] = []

    /// An empty sink.
    public init() {}

    /// Keeps `event`.
    public func log(_ event: BackgroundWorkEvent) { lock.withLock { logged.append(event) } }
    /// The events logged, in order.
    public var events: [BackgroundWorkEvent] { lock.withLock { logged } }
}
