#if canImport(Darwin)
    import Foundation
    import Spool

    /// ``PowerStateMonitoring`` over `ProcessInfo.isLowPowerModeEnabled` and its change notification.
    public final class LowPowerModeMonitor: PowerStateMonitoring, Sendable {
        private let observer = Locked<(any NSObjectProtocol)?>(nil)

        /// A monitor of the process's power state.
        public init() {}

        /// Reports the current state, then each change.
        public func start(_ handler: @escaping @Sendable (Bool) -> Void) {
            handler(ProcessInfo.processInfo.isLowPowerModeEnabled)
            let token = NotificationCenter.default.addObserver(
                forName: .NSProcessInfoPowerStateDidChange, object: nil, queue: nil
            ) { _ in
                handler(ProcessInfo.processInfo.isLowPowerModeEnabled)
            }
            observer.withLock { $0 = token }
        }

        /// Stops reporting.
        public func cancel() {
            if let token = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(token) }
        }
    }
#endif
