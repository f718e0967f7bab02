import Spool

extension BackgroundWork {
    /// What the app sets up.
    public struct Options: Sendable {
        /// The app's task identifiers for background launches.
        public var launches: LaunchIdentifiers
        /// The identifier of the app's background transfer session, or `nil` for no transfers.
        public var transferSession: String?
        /// The app group whose container the queue and the transfer sessions share with a share extension,
        /// if any: the queue must then be opened with `sharing = .shared`.
        public var sharedContainerIdentifier: String?
        /// How a transfer's completion ends its job.
        public var transferRules: TransferRules
        /// The `os.Logger` subsystem events are logged under, or `nil` for no logging.
        public var logSubsystem: String?
        /// How much is logged: failures only by default.
        public var logging: EventLogging
        /// How many unread events each ``BackgroundWork/events()`` stream keeps (the newest).
        public var eventBufferLimit: Int
        /// The base of continued-processing launches' identifiers (iOS 26), or `nil` for none: each
        /// ``BackgroundWork/continueInBackground(_:title:subtitle:)`` asks under `<base>.<UUID>`, so list
        /// `<base>.*` in `BGTaskSchedulerPermittedIdentifiers`. The base must start with the app's bundle
        /// identifier.
        public var continuedProcessing: String?
        /// Where the product's own tasks start (``taskExecutor``).
        var place = TaskPlace.pool

        /// Where the product's own tasks run (following the queue and the device, recording transfers'
        /// outcomes, running launches); Swift's global concurrent pool when `nil` (the default). The runner's
        /// handlers run where its own `JobRunner.Options.taskExecutor` says.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public var taskExecutor: (any TaskExecutor)? {
            get { place.executor }
            set { place.executor = newValue }
        }

        /// The app's setup; everything but the launch identifiers has a default.
        public init(
            launches: LaunchIdentifiers, transferSession: String? = nil, sharedContainerIdentifier: String? = nil,
            transferRules: TransferRules = .standard, logSubsystem: String? = nil, logging: EventLogging = .failures,
            eventBufferLimit: Int = 256, continuedProcessing: String? = nil
        ) {
            self.launches = launches
            self.transferSession = transferSession
            self.sharedContainerIdentifier = sharedContainerIdentifier
            self.transferRules = transferRules
            self.logSubsystem = logSubsystem
            self.logging = logging
            self.eventBufferLimit = eventBufferLimit
            self.continuedProcessing = continuedProcessing
        }
    }

    /// The platform's services the product works through. `BackgroundWork.launch(options:)` gives
    /// Apple's; tests give fakes.
    public struct System: Sendable {
        /// The background-task scheduler.
        public var scheduler: any BackgroundTaskScheduling
        /// Makes a transfer session for an identifier, reporting to the given receiver; `nil` for none.
        public var transferSessions: (@Sendable (String, TransferCompletions) -> any TransferSession)?
        /// The network path monitor, or `nil`.
        public var network: (any NetworkPathMonitoring)?
        /// The power state monitor, or `nil`.
        public var power: (any PowerStateMonitoring)?
        /// Where events are logged, or `nil`.
        public var log: (any EventSink)?
        /// The continued-processing scheduler (iOS 26), or `nil`.
        public var continuedProcessing: (any ContinuedProcessingScheduling)?
        /// The app's life cycle, followed without the app forwarding it, or `nil` for none (the app then
        /// calls ``BackgroundWork/appWillEnterForeground()`` and ``BackgroundWork/appDidEnterBackground()``).
        public var lifecycle: (any AppLifecycleMonitoring)?
        /// The background time asked for on entering the background, or `nil` for none.
        public var backgroundTime: (any BackgroundTimeGranting)?

        /// The services, each replaceable.
        public init(
            scheduler: any BackgroundTaskScheduling,
            transferSessions: (@Sendable (String, TransferCompletions) -> any TransferSession)? = nil,
            network: (any NetworkPathMonitoring)? = nil, power: (any PowerStateMonitoring)? = nil,
            log: (any EventSink)? = nil, continuedProcessing: (any ContinuedProcessingScheduling)? = nil,
            lifecycle: (any AppLifecycleMonitoring)? = nil, backgroundTime: (any BackgroundTimeGranting)? = nil
        ) {
            self.scheduler = scheduler
            self.transferSessions = transferSessions
            self.network = network
            self.power = power
            self.log = log
            self.continuedProcessing = continuedProcessing
            self.lifecycle = lifecycle
            self.backgroundTime = backgroundTime
        }
    }

    /// How long after the system says a launch's time is up the launch is completed at the latest
    /// (0.25 s, on the queue's clock): the running attempts are given back meanwhile when that is quick,
    /// and after the completion otherwise (a handler that ignores cancellation, a slow sync). iOS kills an
    /// app that does not complete a launch before its time runs out.
    public static let expiryCompletionBound: TimeInterval = 0.25

    /// How long a launch waits, at the most, for the first report of each conditions monitor (the network
    /// path, the power state) before its runner starts (1 s, on the queue's clock): jobs that need the
    /// network or a battery not low are judged on what the device is, not on what was not read yet.
    public static let conditionsReportBound: TimeInterval = 1
}
