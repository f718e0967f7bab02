#if canImport(BackgroundTasks) && canImport(Network) && canImport(os) && !os(macOS)
    import Spool

    extension BackgroundWork {
        /// Sets Spool up with Apple's services: `BGTaskScheduler` (``AppleTaskScheduler``), background
        /// `URLSession`s (``URLSessionTransfers``), `NWPathMonitor` (``NetworkPathMonitor``), Low Power
        /// Mode (``LowPowerModeMonitor``) and `os.Logger` (``OSLogEventSink``, when
        /// ``Options/logSubsystem`` names a subsystem) and, on iOS 26, continued processing
        /// (``AppleContinuedProcessingScheduler``). Call it at launch, before the app finishes
        /// launching (`BGTaskScheduler` registrations must be made then). See ``init(queue:runner:options:system:)``.
        public static func launch(queue: JobQueue, runner: JobRunner, options: Options) throws -> BackgroundWork {
            let container = options.sharedContainerIdentifier
            let continued = continuedProcessingScheduler()
            return try BackgroundWork(
                queue: queue, runner: runner, options: options,
                system: System(
                    scheduler: AppleTaskScheduler(),
                    transferSessions: { identifier, completions in
                        URLSessionTransfers(
                            identifier: identifier, sharedContainerIdentifier: container, completions: completions)
                    },
                    network: NetworkPathMonitor(), power: LowPowerModeMonitor(),
                    log: options.logSubsystem.map { OSLogEventSink(subsystem: $0) }, continuedProcessing: continued))
        }

        /// iOS 26's continued processing where the system has it, `nil` elsewhere.
        private static func continuedProcessingScheduler() -> (any ContinuedProcessingScheduling)? {
            #if !os(tvOS) && !os(visionOS) && !targetEnvironment(macCatalyst)
                if #available(iOS 26.0, *) { return AppleContinuedProcessingScheduler() }
            #endif
            return nil
        }
    }
#endif
