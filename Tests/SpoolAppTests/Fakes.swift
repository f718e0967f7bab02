import Foundation
import Spool
import SpoolApp
import Testing

/// A scheduler that keeps what is pending as `BGTaskScheduler` does (one request per identifier, a
/// submit replacing the pending one) and refuses past iOS's limits, as `BGTaskScheduler` does with
/// `tooManyPendingTaskRequests`.
final class FakeScheduler: BackgroundTaskScheduling, @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [String: @Sendable (any LaunchedTask) -> Void] = [:]
    private var pendingRequests: [String: LaunchRequest] = [:]
    private(set) var submissions = 0
    let permittedIdentifiers: [String]?
    private let refusing: Set<String>

    /// Requests left pending by an earlier process, as the system still holds them; the app's
    /// `Info.plist` permitting `permitted` (`nil`: unknown); registrations of `refusing` refused.
    init(leftPending: [LaunchRequest] = [], permitted: [String]? = nil, refusing: Set<String> = []) {
        for request in leftPending { pendingRequests[request.identifier] = request }
        permittedIdentifiers = permitted
        self.refusing = refusing
    }

    struct TooManyPendingRequests: Error {}

    /// As `BGTaskScheduler`: iOS kills an app that registers an identifier twice, so a second
    /// registration is an issue of the test that made it.
    func register(identifier: String, handler: @escaping @Sendable (any LaunchedTask) -> Void) -> Bool {
        lock.withLock {
            if handlers[identifier] != nil {
                Issue.record("\(identifier) registered twice: iOS kills the app")
                return false
            }
            guard !refusing.contains(identifier) else { return false }
            handlers[identifier] = handler
            return true
        }
    }

    /// The identifiers registered.
    var registered: Set<String> { lock.withLock { Set(handlers.keys) } }

    func submit(_ request: LaunchRequest) throws {
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

    func cancel(identifier: String) { _ = lock.withLock { pendingRequests.removeValue(forKey: identifier) } }

    var pending: [String: LaunchRequest] { lock.withLock { pendingRequests } }
    var submitted: Int { lock.withLock { submissions } }

    /// The system launches the app for `identifier`'s request.
    func launch(_ identifier: String) -> FakeLaunchedTask {
        let task = FakeLaunchedTask(identifier: identifier)
        let handler = lock.withLock { () -> (@Sendable (any LaunchedTask) -> Void)? in
            pendingRequests[identifier] = nil
            return handlers[identifier]
        }
        handler?(task)
        return task
    }
}

/// A launch: records its completions, and runs its expiration handler when told the time is up.
final class FakeLaunchedTask: LaunchedTask, @unchecked Sendable {
    let identifier: String
    private let lock = NSLock()
    private var expirationHandler: (@Sendable () -> Void)?
    private var completions: [Bool] = []
    private var waiters: [CheckedContinuation<Bool, Never>] = []

    init(identifier: String) { self.identifier = identifier }

    func setExpirationHandler(_ handler: (@Sendable () -> Void)?) { lock.withLock { expirationHandler = handler } }

    func setTaskCompleted(success: Bool) {
        let waiting = lock.withLock { () -> [CheckedContinuation<Bool, Never>] in
            completions.append(success)
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: success) }
    }

    /// The system's time for the launch runs out.
    func expire() { lock.withLock { expirationHandler }?() }

    var completed: [Bool] { lock.withLock { completions } }

    /// Returns the first completion's success, once there is one.
    func completion() async -> Bool {
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

/// A background session: transfers start and end when the test says; what the system still holds
/// is `pending` (a finished transfer whose completion was not reported yet stays there).
final class FakeTransferSession: TransferSession, @unchecked Sendable {
    let identifier: String
    let completions: TransferCompletions
    private let lock = NSLock()
    private var pendingSet: Set<String>
    private var starts: [(TransferRequest, String)] = []
    private var cancels: [String] = []

    private let gate: Gate?

    init(identifier: String, completions: TransferCompletions, pending: Set<String> = [], gate: Gate? = nil) {
        self.identifier = identifier
        self.completions = completions
        self.pendingSet = pending
        self.gate = gate
    }

    func start(_ request: TransferRequest, key: String) throws {
        lock.withLock {
            pendingSet.insert(key)
            starts.append((request, key))
        }
    }

    func cancel(key: String) async {
        lock.withLock {
            if pendingSet.remove(key) != nil { cancels.append(key) }
        }
    }

    func pendingKeys() async -> Set<String> {
        await gate?.passed()
        return lock.withLock { pendingSet }
    }

    var started: [String] { lock.withLock { starts.map(\.1) } }
    /// The requests started, in order.
    var requests: [TransferRequest] { lock.withLock { starts.map(\.0) } }
    /// The keys of the running transfers cancelled, in order (their completions are the test's to report).
    var cancelled: [String] { lock.withLock { cancels } }

    /// The transfer `key` ends with `status` (or `error`): reported to the delegate.
    func finish(
        _ key: String, status: Int?, error: String? = nil, headers: [String: String] = [:], body: Data? = nil
    ) {
        lock.withLock { _ = pendingSet.remove(key) }
        completions.transferDidComplete(
            TransferCompletion(key: key, statusCode: status, error: error, headers: headers, body: body))
    }

    /// The transfer `key` moved `bytes` of `expected`.
    func progress(_ key: String, bytes: Int64, of expected: Int64?) {
        completions.transferMadeProgress(key: key, bytes: bytes, expected: expected)
    }

    /// The system reports that it delivered every event of the session.
    func finishEvents() { completions.sessionDidFinishEvents(identifier: identifier) }
}

/// The sessions a `BackgroundWork` makes, by identifier, each with what the system still holds for it.
final class FakeTransferSystem: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [String: FakeTransferSession] = [:]
    private let held: [String: Set<String>]
    private let gate: Gate?

    /// `gate`: the sessions answer `pendingKeys()` only once it opens.
    init(held: [String: Set<String>] = [:], gate: Gate? = nil) {
        self.held = held
        self.gate = gate
    }

    func make(_ identifier: String, _ completions: TransferCompletions) -> any TransferSession {
        lock.withLock {
            let session = FakeTransferSession(
                identifier: identifier, completions: completions, pending: held[identifier] ?? [], gate: gate)
            sessions[identifier] = session
            return session
        }
    }

    func session(_ identifier: String) -> FakeTransferSession? { lock.withLock { sessions[identifier] } }
}

/// A path monitor the test drives. Its first report comes when it starts, or, given a `clock`, from a
/// task of its own `firstReportAfter` seconds later on that clock (as `NWPathMonitor` reports
/// asynchronously).
final class FakePathMonitor: NetworkPathMonitoring, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (NetworkPath) -> Void)?
    private let initial: NetworkPath
    private let delay: (TimeInterval, ManualClock)?

    init(_ initial: NetworkPath, firstReportAfter delay: TimeInterval? = nil, on clock: ManualClock? = nil) {
        self.initial = initial
        self.delay = delay.flatMap { delay in clock.map { (delay, $0) } }
    }

    func start(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
        lock.withLock { self.handler = handler }
        reportLater(delay) { [initial] in handler(initial) }
    }

    func cancel() { lock.withLock { handler = nil } }

    func report(_ path: NetworkPath) { lock.withLock { handler }?(path) }
}

/// A power monitor the test drives; its first report as ``FakePathMonitor``'s.
final class FakePowerMonitor: PowerStateMonitoring, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (Bool) -> Void)?
    private let initial: Bool
    private let delay: (TimeInterval, ManualClock)?

    init(lowPowerMode: Bool, firstReportAfter delay: TimeInterval? = nil, on clock: ManualClock? = nil) {
        initial = lowPowerMode
        self.delay = delay.flatMap { delay in clock.map { (delay, $0) } }
    }

    func start(_ handler: @escaping @Sendable (Bool) -> Void) {
        lock.withLock { self.handler = handler }
        reportLater(delay) { [initial] in handler(initial) }
    }

    func cancel() { lock.withLock { handler = nil } }

    func report(lowPowerMode: Bool) { lock.withLock { handler }?(lowPowerMode) }
}

/// Runs `report` now, or from a task of its own after `delay` on its clock.
private func reportLater(_ delay: (TimeInterval, ManualClock)?, _ report: @escaping @Sendable () -> Void) {
    guard let (seconds, clock) = delay else { return report() }
    let due = clock.now().addingTimeInterval(seconds)
    Task {
        try await clock.sleep(until: due)
        report()
    }
}

/// The app's life cycle, as the test posts it.
final class FakeLifecycle: AppLifecycleMonitoring, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (AppTransition) -> Void)?

    func start(_ handler: @escaping @Sendable (AppTransition) -> Void) { lock.withLock { self.handler = handler } }
    func cancel() { lock.withLock { handler = nil } }

    /// UIKit posts `transition`'s notification.
    func post(_ transition: AppTransition) { lock.withLock { handler }?(transition) }
}

/// Background time as UIKit grants it: each grant must be ended once, and one whose time runs out must be
/// ended by its expiration handler before it returns (UIKit kills the app otherwise: an issue here).
final class FakeBackgroundTime: BackgroundTimeGranting, @unchecked Sendable {
    private let lock = NSLock()
    private var grants: [Grant] = []

    final class Grant: BackgroundTimeGrant, @unchecked Sendable {
        private let lock = NSLock()
        private var ends = 0
        let expiring: @Sendable () -> Void
        init(expiring: @escaping @Sendable () -> Void) { self.expiring = expiring }
        func end() {
            let count = lock.withLock {
                ends += 1
                return ends
            }
            if count > 1 { Issue.record("a background task ended twice") }
        }
        var ended: Bool { lock.withLock { ends > 0 } }
    }

    func begin(_ name: String, expiring: @escaping @Sendable () -> Void) -> (any BackgroundTimeGrant)? {
        let grant = Grant(expiring: expiring)
        lock.withLock { grants.append(grant) }
        return grant
    }

    var begun: Int { lock.withLock { grants.count } }
    var outstanding: Int { lock.withLock { grants.filter { !$0.ended }.count } }

    /// The time of every outstanding grant runs out: their expiration handlers run, and each must have
    /// ended its grant when it returns.
    func expire() {
        for grant in lock.withLock({ grants.filter { !$0.ended } }) {
            grant.expiring()
            if !grant.ended { Issue.record("a background task was not ended by its expiration handler") }
        }
    }
}

/// A log sink that keeps what it was given.
final class RecordingSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var logged: [BackgroundWorkEvent] = []
    func log(_ event: BackgroundWorkEvent) { lock.withLock { logged.append(event) } }
    var events: [BackgroundWorkEvent] { lock.withLock { logged } }
}

/// A queue in a fresh folder of the temporary directory, on a manual clock.
struct AppFolder {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-app-\(UUID().uuidString)")
    var directory: URL { folder.appendingPathComponent("jobs") }
    let clock = ManualClock()

    var configuration: Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.retryPolicy = .table([30], maxAttempts: 5)
        return configuration
    }

    func open(sharing: ProcessSharing = .exclusive) throws -> JobQueue {
        var configuration = configuration
        configuration.sharing = sharing
        return try JobQueue(directory: directory, configuration: configuration)
    }
    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// The identifiers the tests register.
let identifiers = LaunchIdentifiers(refresh: "app.refresh", processing: ["app.process.1", "app.process.2"])

/// Holds whoever waits until the test opens it.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var arrivals = 0
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []

    /// Returns once the gate is open.
    func passed() async {
        await withCheckedContinuation { continuation in
            let (open, arrived) = lock.withLock { () -> (Bool, [CheckedContinuation<Void, Never>]) in
                arrivals += 1
                defer { arrivalWaiters = [] }
                if !isOpen { waiters.append(continuation) }
                return (isOpen, arrivalWaiters)
            }
            for waiter in arrived { waiter.resume() }
            if open { continuation.resume() }
        }
    }

    /// Returns once someone waits at the gate (or passed it).
    func reached() async {
        await withCheckedContinuation { continuation in
            let already = lock.withLock { () -> Bool in
                if arrivals > 0 { return true }
                arrivalWaiters.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }

    func open() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }
}
