import Foundation
import Spool
import SpoolApp

/// Every service a `BackgroundWork` uses, faked, on one `ManualClock`: what an app's test drives, as
/// WorkManager's `TestDriver` drives its workers. Give ``system`` to `BackgroundWork(options:system:)` and
/// ``clock`` to the queue's `Configuration`, then launch an identifier and expire it, deliver a transfer's
/// progress and completion, report a network path or the power state, post the life cycle, and relaunch the
/// app over the same folder (``relaunch()``): the scheduler's pending requests and the sessions' unreported
/// transfers carry over, as the system keeps them.
///
/// ```swift
/// import Foundation
/// import Spool
/// import SpoolApp
/// import SpoolAppTesting
///
/// func uploadTest(folder: URL) async throws {
///     let driver = BackgroundWorkTestDriver()
///     let options = BackgroundWork.Options(
///         launches: LaunchIdentifiers(refresh: "app.refresh", processing: ["app.process"]), transferSession: "app.transfers")
///     let work = try BackgroundWork(options: options, system: driver.system)
///     var configuration = Configuration()
///     configuration.clock = driver.clock
///     let queue = try JobQueue(directory: folder, configuration: configuration)
///     let runner = try JobRunner(queue: queue)
///     try runner.register(kind: "upload") { _, context in
///         try await work.startTransfer(
///             .upload(URL(fileURLWithPath: "/photo.jpg"), to: URL(string: "https://example.com/p")!),
///             in: context, for: 86_400)
///     }
///     try work.attach(queue: queue, runner: runner)
///     try await queue.enqueue(NewJob(kind: "upload", id: "photo-1"))
///     let launch = driver.launch("app.refresh")
///     // … once the transfer started:
///     if let key = driver.transfers.session("app.transfers")?.started.first {
///         driver.progress(key, bytes: 512, of: 1_024)
///         driver.complete(key, status: 201, body: Data(#"{"id":"p1"}"#.utf8))
///     }
///     _ = await launch.completion()
///     assert(driver.violations.isEmpty)
/// }
/// ```
public final class BackgroundWorkTestDriver: Sendable {
    /// The clock every fake and the app's queue read.
    public let clock: ManualClock
    /// The background-task scheduler.
    public let scheduler: TestScheduler
    /// The background sessions.
    public let transfers: TestTransferSystem
    /// The network path monitor.
    public let network: TestPathMonitor
    /// The power state monitor.
    public let power: TestPowerMonitor
    /// The app's life cycle.
    public let lifecycle: TestLifecycle
    /// Background time.
    public let backgroundTime: TestBackgroundTime
    /// The log.
    public let log: TestEventSink

    /// A driver on `clock`, with the device on `network` and in `lowPowerMode` (each reported when the work
    /// starts its monitors), the system holding `pendingRequests` and `heldTransfers` (by session identifier)
    /// from an earlier process, and the app's `Info.plist` permitting `permitted` identifiers (`nil`: unknown).
    public init(
        clock: ManualClock = ManualClock(), network: NetworkPath = NetworkPath(status: .satisfied),
        lowPowerMode: Bool = false, pendingRequests: [LaunchRequest] = [], heldTransfers: [String: Set<String>] = [:],
        permitted: [String]? = nil
    ) {
        self.clock = clock
        scheduler = TestScheduler(leftPending: pendingRequests, permitted: permitted)
        transfers = TestTransferSystem(held: heldTransfers)
        self.network = TestPathMonitor(network)
        power = TestPowerMonitor(lowPowerMode: lowPowerMode)
        lifecycle = TestLifecycle()
        backgroundTime = TestBackgroundTime()
        log = TestEventSink()
    }

    /// The services, for `BackgroundWork(options:system:)`.
    public var system: BackgroundWork.System {
        let transfers = transfers
        return BackgroundWork.System(
            scheduler: scheduler, transferSessions: { transfers.makeSession($0, $1) }, network: network,
            power: power, log: log, lifecycle: lifecycle, backgroundTime: backgroundTime)
    }

    /// The system launches the app for `identifier`'s request.
    public func launch(_ identifier: String) -> TestLaunch { scheduler.launch(identifier) }

    /// The system's time for `launch` runs out.
    public func expire(_ launch: TestLaunch) { launch.expire() }

    /// The session that holds the transfer `key`: the one its ``SpoolApp/TransferKey`` names, or else the
    /// one that started it.
    public func session(holding key: String) -> TestTransferSession? {
        if let named = TransferKey(key).flatMap({ transfers.session($0.session) }) { return named }
        return transfers.sessions.first { $0.started.contains(key) }
    }

    /// The transfer `key` moved `bytes` of `expected`.
    public func progress(_ key: String, bytes: Int64, of expected: Int64?) {
        session(holding: key)?.progress(key, bytes: bytes, of: expected)
    }

    /// The transfer `key` ends with `status` (or `error`), the server's `headers` and `body`.
    public func complete(
        _ key: String, status: Int?, error: String? = nil, headers: [String: String] = [:], body: Data? = nil
    ) {
        session(holding: key)?.complete(key, status: status, error: error, headers: headers, body: body)
    }

    /// The device's network path is now `path`.
    public func report(_ path: NetworkPath) { network.report(path) }

    /// Low Power Mode is now `lowPowerMode`.
    public func report(lowPowerMode: Bool) { power.report(lowPowerMode: lowPowerMode) }

    /// The app enters the background (UIKit's notification).
    public func enterBackground() { lifecycle.post(.enteredBackground) }

    /// The app becomes active (UIKit's notification).
    public func becomeActive() { lifecycle.post(.becameActive) }

    /// A driver for the app's next process, over the same folder: the same clock, the requests the
    /// scheduler holds and the transfers the sessions hold (not reported yet) carry over; the device as it was
    /// reported first.
    public func relaunch(network: NetworkPath = NetworkPath(status: .satisfied), lowPowerMode: Bool = false)
        -> BackgroundWorkTestDriver
    {
        BackgroundWorkTestDriver(
            clock: clock, network: network, lowPowerMode: lowPowerMode,
            pendingRequests: Array(scheduler.pending.values), heldTransfers: transfers.held,
            permitted: scheduler.permittedIdentifiers)
    }

    /// What iOS would have killed the app for (an identifier registered twice, background time not ended by
    /// its expiration handler or ended twice), in order; empty when the app kept the rules.
    public var violations: [String] { scheduler.violations + backgroundTime.violations }
}
