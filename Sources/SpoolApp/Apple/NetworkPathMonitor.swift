#if canImport(Network)
    import Dispatch
    import Network
    import Spool

    /// ``NetworkPathMonitoring`` over `NWPathMonitor`.
    public final class NetworkPathMonitor: NetworkPathMonitoring, @unchecked Sendable {
        // @unchecked: `monitor` is configured once, in `start`, before it starts; NWPathMonitor is
        // then used from its own queue only.
        private let monitor = NWPathMonitor()
        private let queue = DispatchQueue(label: "spool.network-path")

        /// A monitor of every interface.
        public init() {}

        /// Starts the monitor on a queue of its own; the handler gets each path.
        public func start(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
            monitor.pathUpdateHandler = { path in
                let status: NetworkPath.Status
                switch path.status {
                case .satisfied: status = .satisfied
                case .requiresConnection: status = .requiresConnection
                case .unsatisfied: status = .unsatisfied
                @unknown default: status = .unsatisfied
                }
                handler(NetworkPath(status: status, isExpensive: path.isExpensive, isConstrained: path.isConstrained))
            }
            monitor.start(queue: queue)
        }

        /// Cancels the monitor.
        public func cancel() { monitor.cancel() }
    }
#endif
