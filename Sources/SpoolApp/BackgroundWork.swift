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
        /// The task identifier of continued-processing launches (iOS 26), or `nil` for none
        /// (``BackgroundWork/continueInBackground(_:title:subtitle:)``).
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

    private let phase: AppPhase
    private let requests: LaunchRequests
    private let launchHandler: LaunchHandler
    private let log: EventLog
    /// The work at launch before the runner may run: the transfers' reconciliation.
    private let activation: Task<Void, Never>
    /// The task following the queue's changes.
    private let follower: Locked<Task<Void, Never>?>
    /// Continued-processing launches: the identifier, the scheduler, and the jobs the next launch carries on.
    private let continued: (identifier: String, scheduler: any ContinuedProcessingScheduling)?
    private let continuedJobs = Locked<[JobID]>([])

    /// Sets Spool up over `queue` and `runner` with the platform's `system` services: registers the
    /// launch handlers (so call it at launch, before the app finishes launching), starts the
    /// condition monitors, reconciles the transfers and keeps the launch requests following the queue.
    /// The runner runs in launches, and once the app is in the foreground (``appWillEnterForeground()``).
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for identifiers that are not as ``LaunchIdentifiers``
    ///   says, or that the scheduler refuses to register.
    public init(queue: JobQueue, runner: JobRunner, options: Options, system: System) throws {
        try options.launches.validate()
        let log = EventLog(sink: system.log, logging: options.logging, bufferLimit: options.eventBufferLimit)
        let phase = AppPhase(isForeground: false)
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
        self.phase = phase
        self.requests = requests
        self.log = log
        self.activation = Task { if let transfers { await transfers.reconcile() } }
        self.follower = Locked(nil)
        let activation = self.activation
        self.launchHandler = LaunchHandler(runner: runner, phase: phase, events: log, before: activation) {
            requests.queueChanged()
        }
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
        if let identifier = options.continuedProcessing, let scheduler = system.continuedProcessing {
            continued = (identifier, scheduler)
            let runs = ContinuedJobs(queue: queue, runner: runner, phase: phase, events: log)
            guard
                scheduler.registerContinued(
                    identifier: identifier,
                    handler: { [continuedJobs] task in
                        runs.run(continuedJobs.withLock { $0 }, in: task)
                    })
            else {
                throw SpoolError(.invalidArgument, "the scheduler refused to register \(identifier)")
            }
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
        continuedJobs.withLock { $0 = jobs }
        try continued.scheduler.submitContinued(identifier: continued.identifier, title: title, subtitle: subtitle)
    }

    /// The launch requests pending now, by identifier (as submitted since launch).
    public var pendingRequests: [String: LaunchRequest] { requests.pending }

    /// A new stream of the product's events from now on; it keeps the newest
    /// ``Options/eventBufferLimit`` unread ones. Route them to the app's own logging or metrics.
    public func events() -> AsyncStream<BackgroundWorkEvent> { log.stream() }

    /// The app came to the foreground (SwiftUI: `scenePhase` became `.active`; UIKit:
    /// `sceneWillEnterForeground`, and at launch into the foreground): the runner runs.
    public func appWillEnterForeground() async {
        phase.set(foreground: true)
        await activation.value
        guard phase.isForeground else { return }
        runner.resume()
        log.record(.enteredForeground)
    }

    /// The app went to the background (SwiftUI: `scenePhase` became `.background`; UIKit:
    /// `sceneDidEnterBackground`): gives the running attempts back, stops the runner and brings the
    /// launch requests up to date, so that a launch comes for what is left. Returns once done (within
    /// the few seconds the system gives: the runner's handlers are cancelled).
    public func appDidEnterBackground() async {
        phase.set(foreground: false)
        await runner.suspend()
        requests.queueChanged()
        log.record(.enteredBackground)
    }

    /// Stops following the queue and the device, stops the runner and ends the event streams.
    public func close() async {
        follower.withLock { $0 }?.cancel()
        conditions.cancel()
        await runner.stop(.releaseRunning)
        log.finish()
    }
}
