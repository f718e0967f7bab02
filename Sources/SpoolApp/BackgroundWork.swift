import Spool

/// Spool in an Apple app, set up by one call at launch: the queue's runner runs in the foreground and in
/// background launches, the platform's launch requests follow the queue, jobs hand transfers to the
/// system, the device's conditions reach the queue, and what happens is logged.
///
/// ```swift
/// // application(_:didFinishLaunchingWithOptions:), before it returns:
/// let work = try BackgroundWork.launch(
///     queue: queue, runner: runner,
///     options: .init(
///         launches: LaunchIdentifiers(refresh: "com.example.refresh", processing: ["com.example.process"]),
///         transferSession: "com.example.transfers", logSubsystem: "com.example"))
/// ```
///
/// Then forward the app's lifecycle (``appWillEnterForeground()``, ``appDidEnterBackground()``; SwiftUI's
/// `scenePhase` `.active` and `.background` serve) and the system's background-session events
/// (``BackgroundTransfers/handleEvents(forSession:completionHandler:)``).
///
/// What it does:
/// - **Launches**: registers the identifiers, keeps one pending request per identifier following
///   ``JobQueue/schedulingHints(within:)`` as the queue changes (never more than the identifiers, so
///   never past the platform's limits; a request nothing needs is cancelled), and in a launch runs the
///   runner until it is idle, then completes the launch with success; when the launch's time runs out it
///   gives the running attempts back (``JobRunner/expire()``) and completes it.
/// - **Background**: entering the background gives the running attempts back and stops the runner
///   (``JobRunner/suspend()``), so that nothing of the queue runs when the app is suspended.
/// - **Transfers** (``transfers``): see ``BackgroundTransfers``; at launch, parked jobs whose transfers
///   the system no longer has are failed to run again, before the runner starts.
/// - **Conditions** (``conditions``): see ``DeviceConditionsFeed``.
/// - **Events** (``events()``): see ``BackgroundWorkEvent``; failures go to `os.Logger` by default.
public final class BackgroundWork: Sendable {
    /// What the app sets up.
    public struct Options: Sendable {
        /// The app's task identifiers for background launches.
        public var launches: LaunchIdentifiers
        /// The identifier of the app's background transfer session, or `nil` for no transfers.
        public var transferSession: String?
        /// The app group whose container the transfer sessions share with a share extension, if any.
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
        /// `<base>.*` in `BGTaskSchedulerPermittedIdentifiers`.
        public var continuedProcessing: String?

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

    /// The platform's services the product works through. ``BackgroundWork/launch(queue:runner:options:)``
    /// gives Apple's; tests give fakes.
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

        /// The services, each replaceable.
        public init(
            scheduler: any BackgroundTaskScheduling,
            transferSessions: (@Sendable (String, TransferCompletions) -> any TransferSession)? = nil,
            network: (any NetworkPathMonitoring)? = nil, power: (any PowerStateMonitoring)? = nil,
            log: (any EventSink)? = nil, continuedProcessing: (any ContinuedProcessingScheduling)? = nil
        ) {
            self.scheduler = scheduler
            self.transferSessions = transferSessions
            self.network = network
            self.power = power
            self.log = log
            self.continuedProcessing = continuedProcessing
        }
    }

    /// The queue.
    public let queue: JobQueue
    /// The runner, which this runs and stops.
    public let runner: JobRunner
    /// The jobs' background transfers, when ``Options/transferSession`` names a session.
    public let transfers: BackgroundTransfers?
    /// The device's conditions, as given to the queue.
    public let conditions: DeviceConditionsFeed

    private let control: RunnerControl
    private let requests: LaunchRequests
    private let launchHandler: LaunchHandler
    private let log: EventLog
    /// The work at launch before the runner may run: the transfers' reconciliation.
    private let activation: Task<Void, Never>
    /// The task following the queue's changes.
    private let follower: Locked<Task<Void, Never>?>
    /// Continued-processing launches: the identifiers' base and the scheduler.
    private let continued: (base: String, scheduler: any ContinuedProcessingScheduling)?

    /// Sets Spool up over `queue` and `runner` with the platform's `system` services: registers the
    /// launch handlers (so call it at launch, before the app finishes launching), starts the
    /// condition monitors, reconciles the transfers and keeps the launch requests following the queue.
    /// The runner runs in launches, and once the app is in the foreground (``appWillEnterForeground()``).
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for identifiers that are not as ``LaunchIdentifiers``
    ///   says, or that the scheduler refuses to register; for a queue shared with extensions
    ///   (``Options/sharedContainerIdentifier``) that is not opened with `sharing = .shared`, whose lock
    ///   would be held while the app is suspended (iOS kills such a process: `0xdead10cc`).
    public init(queue: JobQueue, runner: JobRunner, options: Options, system: System) throws {
        try options.launches.validate()
        if options.sharedContainerIdentifier != nil, queue.configuration.sharing != .shared {
            throw SpoolError(
                .invalidArgument,
                "a queue in an app group container must be opened with sharing = .shared: an .exclusive queue holds "
                    + "its lock while the app is suspended, and iOS kills a process suspended with a lock there")
        }
        let log = EventLog(sink: system.log, logging: options.logging, bufferLimit: options.eventBufferLimit)
        let requests = LaunchRequests(
            queue: queue, scheduler: system.scheduler, identifiers: options.launches, events: log)
        let transfers: BackgroundTransfers? =
            if let identifier = options.transferSession, let make = system.transferSessions {
                BackgroundTransfers(
                    queue: queue, session: identifier, rules: options.transferRules, events: log, makeSession: make)
            } else {
                nil
            }
        self.queue = queue
        self.runner = runner
        self.transfers = transfers
        self.conditions = DeviceConditionsFeed(queue: queue, network: system.network, power: system.power, events: log)
        self.requests = requests
        self.log = log
        let activation = Task { if let transfers { await transfers.reconcile() } }
        self.activation = activation
        self.follower = Locked(nil)
        let control = RunnerControl(runner: runner, activation: activation)
        self.control = control
        self.launchHandler = LaunchHandler(runner: runner, control: control, requests: requests, events: log)
        for identifier in options.launches.all {
            guard
                system.scheduler.register(
                    identifier: identifier,
                    handler: { [launchHandler] task in
                        launchHandler.handle(task)
                    })
            else {
                throw SpoolError(
                    .invalidArgument,
                    "the scheduler refused to register \(identifier): is it in BGTaskSchedulerPermittedIdentifiers, "
                        + "and is this call made before the app finishes launching?")
            }
        }
        if let transfers {
            // A share extension's transfer outcomes, carried to the app as jobs.
            try runner.register(kind: BackgroundTransfers.outcomeKind) { payload, _ in
                let completion = try BackgroundTransfers.decode(payload)
                await transfers.record(completion)
            }
        }
        if let base = options.continuedProcessing, let scheduler = system.continuedProcessing {
            continued = (base, scheduler)
        } else {
            continued = nil
        }
        conditions.start()
        follower.withLock { $0 = Self.follow(queue: queue, requests: requests, log: log) }
    }

    /// Follows the queue's changes: each burst of them brings the launch requests up to date once.
    private static func follow(queue: JobQueue, requests: LaunchRequests, log: EventLog) -> Task<Void, Never> {
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The first update, at launch: requests an earlier process left that nothing needs now go.
        signal.yield()
        return Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await change in queue.changes() {
                        if case .updated(let job) = change {
                            log.record(.jobChanged(job.id, kind: job.kind, state: job.state))
                        }
                        signal.yield()
                    }
                    signal.finish()
                }
                group.addTask {
                    for await _ in signals { requests.queueChanged() }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Asks the system to carry on `jobs` (enqueued already) in the background now, showing their progress
    /// under `title` and `subtitle` (iOS 26's continued processing: for work the user started and waits
    /// for, such as an export). The launch runs the runner until the jobs are finished, forwarding their
    /// progress (``JobContext/reportProgress(_:)``), and completes with success when all succeeded.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` when ``Options/continuedProcessing`` names no
    ///   identifier; the scheduler's refusal.
    public func continueInBackground(_ jobs: [JobID], title: String, subtitle: String) throws {
        guard let continued else {
            throw SpoolError(.invalidArgument, "no continued-processing identifier was given at launch")
        }
        guard !jobs.isEmpty else { throw SpoolError(.invalidArgument, "no job to continue in the background") }
        let identifier = continued.base + "." + UUID().uuidString
        let (queue, launchHandler) = (self.queue, self.launchHandler)
        guard
            continued.scheduler.registerContinued(
                identifier: identifier,
                handler: { task in
                    launchHandler.run(task) { await ContinuedJobs.follow(jobs, of: queue, reportingTo: task) }
                })
        else {
            throw SpoolError(.invalidArgument, "the scheduler refused to register \(identifier)")
        }
        try continued.scheduler.submitContinued(identifier: identifier, title: title, subtitle: subtitle)
    }

    /// In a handler: parks the job, then hands `request` to the system as a background transfer whose
    /// completion ends the job (``BackgroundTransfers/start(_:in:for:)``); ends the handler by throwing
    /// ``JobParked``.
    ///
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     try await work.startTransfer(.upload(photo.file, to: photo.destination), in: context, for: 86_400)
    /// }
    /// ```
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` when no transfer session was set up
    ///   (``Options/transferSession``), so that a job never succeeds without its transfer; otherwise as
    ///   ``BackgroundTransfers/start(_:in:for:)``.
    public func startTransfer(_ request: TransferRequest, in context: JobContext, for duration: TimeInterval)
        async throws -> Never
    {
        guard let transfers else {
            throw SpoolError(
                .invalidArgument, "no transfer session was set up (BackgroundWork.Options.transferSession)")
        }
        try await transfers.start(request, in: context, for: duration)
    }

    /// The launch requests pending now, by identifier (as submitted since launch).
    public var pendingRequests: [String: LaunchRequest] { requests.pending }

    /// A new stream of the product's events from now on; it keeps the newest
    /// ``Options/eventBufferLimit`` unread ones. Route them to the app's own logging or metrics.
    public func events() -> AsyncStream<BackgroundWorkEvent> { log.stream() }

    /// The app came to the foreground (SwiftUI: `scenePhase` became `.active`; UIKit:
    /// `applicationDidBecomeActive`, which also comes at a launch into the foreground): the runner runs,
    /// once the transfers are reconciled. Transitions take effect in the order they are called, however
    /// the tasks that await them are scheduled.
    public func appWillEnterForeground() async {
        control.setForeground(true)
        log.record(.enteredForeground)
        await control.settle()
    }

    /// The app went to the background (SwiftUI: `scenePhase` became `.background`; UIKit:
    /// `applicationDidEnterBackground`): unless a background launch is running, gives the running attempts
    /// back and stops the runner (its handlers are cancelled), then brings the launch requests up to date,
    /// so that a launch comes for what is left. Returns once done; ask the system for the time it takes
    /// (UIKit's `beginBackgroundTask`, or `ProcessInfo.performExpiringActivity`), as the sample app does.
    public func appDidEnterBackground() async {
        control.setForeground(false)
        log.record(.enteredBackground)
        await control.settle()
        requests.queueChanged()
    }

    /// Stops following the queue and the device, stops the runner, lets the transfer sessions go (the system
    /// carries their transfers on) and ends the event streams.
    public func close() async {
        follower.withLock { $0 }?.cancel()
        conditions.cancel()
        transfers?.close()
        control.setForeground(false)
        await runner.stop(.releaseRunning)
        log.finish()
    }
}
