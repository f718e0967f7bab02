#if canImport(BackgroundTasks) && !os(macOS)
    import BackgroundTasks
    import Foundation
    import Spool

    /// ``BackgroundTaskScheduling`` over `BGTaskScheduler.shared`: one per process (`shared`), as the
    /// system's scheduler is. Not in app extensions: only the host app registers launch handlers.
    @available(iOSApplicationExtension, unavailable)
    public final class AppleTaskScheduler: BackgroundTaskScheduling, Sendable {
        /// The process's scheduler.
        public static let shared = AppleTaskScheduler()

        private init() {}

        /// The app's `Info.plist` `BGTaskSchedulerPermittedIdentifiers`, or `nil` when it has none.
        public var permittedIdentifiers: [String]? {
            Bundle.main.object(forInfoDictionaryKey: "BGTaskSchedulerPermittedIdentifiers") as? [String]
        }

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
