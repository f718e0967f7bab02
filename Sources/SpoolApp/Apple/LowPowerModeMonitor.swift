#if canImport(Darwin)
    import Foundation
    import Spool

    /// ``PowerStateMonitoring`` over `ProcessInfo.isLowPowerModeEnabled` and its change notification.
    public final class LowPowerModeMonitor: PowerStateMonitoring, @unchecked Sendable {
        // @unchecked: `reports` is an OperationQueue, used only to add operations (thread-safe).
        private let observer = Locked<(any NSObjectProtocol)?>(nil)
        /// One serial queue for the first report and every change, each reading the state when it runs: the reports reach the
        /// handler in order, the last one the state as it is.
        private let reports: OperationQueue = {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            return queue
        }()

        /// A monitor of the process's power state.
        public init() {}

        /// Reports the current state before it returns (so a launch knows it before its runner starts), then
        /// each change; every report from one serial queue, in order, reading the state when it runs.
        public func start(_ handler: @escaping @Sendable (Bool) -> Void) {
            let token = NotificationCenter.default.addObserver(
                forName: .NSProcessInfoPowerStateDidChange, object: nil, queue: reports
            ) { _ in
                handler(ProcessInfo.processInfo.isLowPowerModeEnabled)
            }
            observer.withLock { $0 = token }
            let first = BlockOperation { handler(ProcessInfo.processInfo.isLowPowerModeEnabled) }
            reports.addOperations([first], waitUntilFinished: true)
        }

        /// Stops reporting.
        public func cancel() {
            if let token = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(token) }
        }
    }
#endif
