#if canImport(BackgroundTasks) && canImport(Network) && canImport(os)
    import Spool

    extension BackgroundWork {
        /// Sets Spool up with Apple's services: `BGTaskScheduler` (``AppleTaskScheduler``), background
        /// `URLSession`s (``URLSessionTransfers``), `NWPathMonitor` (``NetworkPathMonitor``), Low Power
        /// Mode (``LowPowerModeMonitor``) and `os.Logger` (``OSLogEventSink``, when
        /// ``Options/logSubsystem`` names a subsystem). Call it at launch, before the app finishes
        /// launching (`BGTaskScheduler` registrations must be made then). See ``init(queue:runner:options:system:)``.
        public static func launch(queue: JobQueue, runner: JobRunner, options: Options) throws -> BackgroundWork {
            let container = options.sharedContainerIdentifier
            return try BackgroundWork(
                queue: queue, runner: runner, options: options,
                system: System(
                    scheduler: AppleTaskScheduler(),
                    transferSessions: { identifier, completions in
                        URLSessionTransfers(
                            identifier: identifier, sharedContainerIdentifier: container, completions: completions)
                    },
                    network: NetworkPathMonitor(), power: LowPowerModeMonitor(),
                    log: options.logSubsystem.map { OSLogEventSink(subsystem: $0) }))
        }
    }
#endif
