#if canImport(BackgroundTasks) && !os(macOS)
    import BackgroundTasks
    import Spool

    /// ``BackgroundTaskScheduling`` over `BGTaskScheduler.shared`.
    public struct AppleTaskScheduler: BackgroundTaskScheduling {
        /// The app's scheduler.
        public init() {}

        /// `BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`, the handler run on a
        /// queue of the system's.
        public func register(identifier: String, handler: @escaping @Sendable (any LaunchedTask) -> Void) -> Bool {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                handler(SystemLaunchedTask(task))
            }
        }

        /// `BGTaskScheduler.submit(_:)` of a `BGAppRefreshTaskRequest` or a `BGProcessingTaskRequest`.
        public func submit(_ request: LaunchRequest) throws {
            let platformRequest: BGTaskRequest
            switch request.kind {
            case .refresh:
                platformRequest = BGAppRefreshTaskRequest(identifier: request.identifier)
            case .processing:
                let processing = BGProcessingTaskRequest(identifier: request.identifier)
                processing.requiresNetworkConnectivity = request.requiresNetworkConnectivity
                processing.requiresExternalPower = request.requiresExternalPower
                platformRequest = processing
            }
            platformRequest.earliestBeginDate = request.earliestBeginDate
            try BGTaskScheduler.shared.submit(platformRequest)
        }

        /// `BGTaskScheduler.cancel(taskRequestWithIdentifier:)`.
        public func cancel(identifier: String) {
            BGTaskScheduler.shared.cancel(taskRequestWithIdentifier: identifier)
        }
    }

    /// A `BGTask` as a ``LaunchedTask``.
    final class SystemLaunchedTask: LaunchedTask, @unchecked Sendable {
        // @unchecked: BGTask's expiration handler and completion may be set from any thread
        // (BackgroundTasks documents no thread for them); this wrapper adds no state.
        private let task: BGTask

        init(_ task: BGTask) { self.task = task }

        var identifier: String { task.identifier }

        func setExpirationHandler(_ handler: (@Sendable () -> Void)?) { task.expirationHandler = handler }

        func setTaskCompleted(success: Bool) { task.setTaskCompleted(success: success) }
    }
#endif
