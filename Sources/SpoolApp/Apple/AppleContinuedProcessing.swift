// Continued processing exists on iOS 26 and later only (not on macOS, tvOS, visionOS or Mac Catalyst).
#if canImport(BackgroundTasks) && !os(macOS) && !os(tvOS) && !os(visionOS) && !targetEnvironment(macCatalyst)
    import BackgroundTasks
    import Spool

    /// ``ContinuedProcessingScheduling`` over `BGTaskScheduler` and `BGContinuedProcessingTaskRequest`.
    @available(iOS 26.0, *)
    public struct AppleContinuedProcessingScheduler: ContinuedProcessingScheduling {
        /// The app's scheduler.
        public init() {}

        /// Registers `handler` for `BGContinuedProcessingTask` launches under `identifier`.
        public func registerContinued(
            identifier: String, handler: @escaping @Sendable (any ProgressReportingLaunch) -> Void
        ) -> Bool {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                guard let continued = task as? BGContinuedProcessingTask else {
                    task.setTaskCompleted(success: false)
                    return
                }
                handler(SystemContinuedTask(continued))
            }
        }

        /// Submits a `BGContinuedProcessingTaskRequest` that fails rather than waits when the system cannot
        /// run it now (the user waits for it).
        public func submitContinued(identifier: String, title: String, subtitle: String) throws {
            let request = BGContinuedProcessingTaskRequest(identifier: identifier, title: title, subtitle: subtitle)
            request.strategy = .fail
            try BGTaskScheduler.shared.submit(request)
        }
    }

    /// A `BGContinuedProcessingTask` as a ``ProgressReportingLaunch``: its `progress` shows the jobs'.
    @available(iOS 26.0, *)
    final class SystemContinuedTask: ProgressReportingLaunch, @unchecked Sendable {
        // @unchecked: the task's progress and title may be set from any thread; no state is added.
        private let task: BGContinuedProcessingTask

        init(_ task: BGContinuedProcessingTask) { self.task = task }

        var identifier: String { task.identifier }

        func setExpirationHandler(_ handler: (@Sendable () -> Void)?) { task.expirationHandler = handler }

        func setTaskCompleted(success: Bool) { task.setTaskCompleted(success: success) }

        func reportProgress(completed: Int64, total: Int64) {
            task.progress.totalUnitCount = total
            task.progress.completedUnitCount = completed
        }

        func updateTitle(_ title: String, subtitle: String) { task.updateTitle(title, subtitle: subtitle) }
    }
#endif
