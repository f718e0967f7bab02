import Foundation
import Spool
import SpoolApp

/// A stand-in for `BGTaskScheduler` in an app's tests: it keeps the handlers it was given, so the test can
/// launch the app for an identifier (``launch(_:)``), keeps what is pending as the system does (one request
/// per identifier, a submit replacing the pending one), and refuses past iOS's limits
/// (`SchedulingLimits.iOS`), as `BGTaskScheduler` does with `tooManyPendingTaskRequests`.
///
/// What iOS would kill the app for (an identifier registered twice) is a ``violations`` entry.
public final class TestScheduler: BackgroundTaskScheduling, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var handlers: [String: @Sendable (any LaunchedTask) -> Void] = [:]
    private var pendingRequests: [String: LaunchRequest] = [:]
    private var submissions = 0
    private var broken: [String] = []
    /// The identifiers the app's `Info.plist` permits (`BGTaskSchedulerPermittedIdentifiers`); `nil`: unknown.
    public let permittedIdentifiers: [String]?
    private let refusing: Set<String>

    /// The error ``submit(_:)`` throws past iOS's limits of pending requests.
    public struct TooManyPendingRequests: Error {}

    /// A scheduler holding `leftPending` (requests an earlier process submitted, as the system still holds
    /// them), whose app permits `permitted` identifiers (`nil`: unknown), and that refuses to register the
    /// identifiers in `refusing`.
    public init(leftPending: [LaunchRequest] = [], permitted: [String]? = nil, refusing: Set<String> = []) {
        for request in leftPending { pendingRequests[request.identifier] = request }
        permittedIdentifiers = permitted
        self.refusing = refusing
    }

    /// Registers `handler` for `identifier`; a second registration is a violation (iOS kills the app).
    public func register(identifier: String, handler: @escaping @Sendable (any LaunchedTask) -> Void) -> Bool {
        lock.withLock {
            if handlers[identifier] != nil {
                broken.append("\(identifier) registered twice: iOS kills the app")
                return false
            }
            guard !refusing.contains(identifier) else { return false }
            handlers[identifier] = handler
            return true
        }
    }

    /// Keeps `request` pending, replacing the identifier's pending one; throws ``TooManyPendingRequests``
    /// past iOS's limits.
    public func submit(_ request: LaunchRequest) throws {
        try lock.withLock {
            var next = pendingRequests
            next[request.identifier] = request
            let refresh = next.values.filter { $0.kind == .refresh }.count
            let processing = next.values.filter { $0.kind == .processing }.count
            guard refresh <= SchedulingLimits.iOS.refreshRequests, processing <= SchedulingLimits.iOS.processingRequests
            else { throw TooManyPendingRequests() }
            pendingRequests = next
            submissions += 1
        }
    }

    /// Drops the pending request of `identifier`.
    public func cancel(identifier: String) { _ = lock.withLock { pendingRequests.removeValue(forKey: identifier) } }

    /// The identifiers registered.
    public var registered: Set<String> { lock.withLock { Set(handlers.keys) } }
    /// The pending requests, by identifier.
    public var pending: [String: LaunchRequest] { lock.withLock { pendingRequests } }
    /// How many requests were submitted.
    public var submitted: Int { lock.withLock { submissions } }
    /// What iOS would have killed the app for, in order; empty when the app kept the rules.
    public var violations: [String] { lock.withLock { broken } }

    /// The system launches the app for `identifier`'s request (dropping it, as the system does) and hands
    /// the launch to the registered handler.
    public func launch(_ identifier: String) -> TestLaunch {
        let task = TestLaunch(identifier: identifier)
        let handler = lock.withLock { () -> (@Sendable (any LaunchedTask) -> Void)? in
            pendingRequests[identifier] = nil
            return handlers[identifier]
        }
        handler?(task)
        return task
    }
}

/// A launch the test made (``TestScheduler/launch(_:)``): records its completions, and runs its expiration
/// handler when the test says the time is up (``expire()``).
public final class TestLaunch: LaunchedTask, @unchecked Sendable {
    // @unchecked: every stored property but the constant identifier is guarded by `lock`.
    /// The identifier the launch is for.
    public let identifier: String
    private let lock = NSLock()
    private var expirationHandler: (@Sendable () -> Void)?
    private var completions: [Bool] = []
    private var waiters: [CheckedContinuation<Bool, Never>] = []

    /// A launch for `identifier`.
    public init(identifier: String) { self.identifier = identifier }

    /// Keeps the handler ``expire()`` runs.
    public func setExpirationHandler(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { expirationHandler = handler }
    }

    /// Records a completion.
    public func setTaskCompleted(success: Bool) {
        let waiting = lock.withLock { () -> [CheckedContinuation<Bool, Never>] in
            completions.append(success)
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: success) }
    }

    /// The system's time for the launch runs out: its expiration handler runs.
    public func expire() { lock.withLock { expirationHandler }?() }

    /// Every completion, in order (more than one is a defect: the system kills an app that completes twice).
    public var completed: [Bool] { lock.withLock { completions } }

    /// Returns the first completion's success, once there is one.
    public func completion() async -> Bool {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Bool? in
                if let first = completions.first { return first }
                waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
