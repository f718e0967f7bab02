import Foundation
import Spool
import SpoolApp

/// A path monitor the test drives (``report(_:)``). Its first report comes when it starts, or, given a
/// clock, from a task of its own `firstReportAfter` seconds later on that clock (as `NWPathMonitor` reports
/// asynchronously).
public final class TestPathMonitor: NetworkPathMonitoring, @unchecked Sendable {
    // @unchecked: `handler` is guarded by `lock`; the rest is constant.
    private let lock = NSLock()
    private var handler: (@Sendable (NetworkPath) -> Void)?
    private let initial: NetworkPath
    private let delay: (TimeInterval, ManualClock)?

    /// A monitor whose first report is `initial`, at once or `delay` seconds after it starts on `clock`.
    public init(_ initial: NetworkPath, firstReportAfter delay: TimeInterval? = nil, on clock: ManualClock? = nil) {
        self.initial = initial
        self.delay = delay.flatMap { delay in clock.map { (delay, $0) } }
    }

    /// Starts reporting to `handler`.
    public func start(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
        lock.withLock { self.handler = handler }
        reportLater(delay) { [initial] in handler(initial) }
    }

    /// Stops reporting.
    public func cancel() { lock.withLock { handler = nil } }

    /// The device's path is now `path`.
    public func report(_ path: NetworkPath) { lock.withLock { handler }?(path) }
}

/// A power monitor the test drives (``report(lowPowerMode:)``); its first report as ``TestPathMonitor``'s.
public final class TestPowerMonitor: PowerStateMonitoring, @unchecked Sendable {
    // @unchecked: `handler` is guarded by `lock`; the rest is constant.
    private let lock = NSLock()
    private var handler: (@Sendable (Bool) -> Void)?
    private let initial: Bool
    private let delay: (TimeInterval, ManualClock)?

    /// A monitor whose first report is `lowPowerMode`, at once or `delay` seconds after it starts on `clock`.
    public init(lowPowerMode: Bool, firstReportAfter delay: TimeInterval? = nil, on clock: ManualClock? = nil) {
        initial = lowPowerMode
        self.delay = delay.flatMap { delay in clock.map { (delay, $0) } }
    }

    /// Starts reporting to `handler`.
    public func start(_ handler: @escaping @Sendable (Bool) -> Void) {
        lock.withLock { self.handler = handler }
        reportLater(delay) { [initial] in handler(initial) }
    }

    /// Stops reporting.
    public func cancel() { lock.withLock { handler = nil } }

    /// Low Power Mode is now `lowPowerMode`.
    public func report(lowPowerMode: Bool) { lock.withLock { handler }?(lowPowerMode) }
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
