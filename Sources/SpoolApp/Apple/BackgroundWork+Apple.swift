#if canImport(BackgroundTasks) && canImport(Network) && canImport(os) && canImport(UIKit) && !os(macOS)
    import Spool

    extension BackgroundWork {
        /// Sets Spool up with Apple's services: `BGTaskScheduler` (`AppleTaskScheduler`), background
        /// `URLSession`s (`URLSessionTransfers`), `NWPathMonitor` (`NetworkPathMonitor`), Low Power
        /// Mode (`LowPowerModeMonitor`), UIKit's life cycle and background time (`UIKitLifecycleMonitor`,
        /// `UIKitBackgroundTime`), `os.Logger` (`OSLogEventSink`, when `Options/logSubsystem` names a
        /// subsystem) and, on iOS 26, continued processing (`AppleContinuedProcessingScheduler`). Call it
        /// first thing at launch, in `application(_:didFinishLaunchingWithOptions:)` (or the `App`'s
        /// initializer), before the queue is opened: `BGTaskScheduler` registrations must be made before the
        /// app finishes launching, for every permitted identifier, once. See `init(options:system:)`.
        @available(iOSApplicationExtension, unavailable)
        @MainActor
        public static func launch(options: Options) throws -> BackgroundWork {
            let container = options.sharedContainerIdentifier
            return try BackgroundWork(
                options: options,
                system: System(
                    scheduler: AppleTaskScheduler.shared,
                    transferSessions: { identifier, completions in
                        URLSessionTransfers(
                            identifier: identifier, sharedContainerIdentifier: container, completions: completions)
                    },
                    network: NetworkPathMonitor(), power: LowPowerModeMonitor(),
                    log: options.logSubsystem.map { OSLogEventSink(subsystem: $0) },
                    continuedProcessing: continuedProcessingScheduler(), lifecycle: UIKitLifecycleMonitor(),
                    backgroundTime: UIKitBackgroundTime()))
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
