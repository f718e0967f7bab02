import Spool

/// Spool in an Apple app, set up by one call at launch: the launch identifiers are registered at once,
/// whatever happens to the queue; once the app attaches its queue, the runner runs in the foreground and
/// in background launches, the platform's launch requests follow the queue, jobs hand transfers to the
/// system, the device's conditions reach the queue, and what happens is logged.
///
/// <!-- sample: skip -->
/// ```swift
/// // application(_:didFinishLaunchingWithOptions:), before it returns:
/// let work = try BackgroundWork.launch(
///     options: .init(
///         launches: LaunchIdentifiers(refresh: "com.example.refresh", processing: ["com.example.process"]),
///         transferSession: "com.example.transfers", logSubsystem: "com.example"))
/// try? work.attach {
///     let queue = try JobQueue(directory: directory)
///     return (queue, try JobRunner(queue: queue))
/// }
/// ```
///
/// Then forward the system's background-session events
/// (``BackgroundTransfers/handleEvents(forSession:completionHandler:)``). The app's life cycle is followed
/// without forwards (``System/lifecycle``).
///
/// What it does:
/// - **Registration**: every launch identifier is registered at once (all or none: they are checked
///   first), once per process; a launch that comes while no queue is attached waits for the attach, or
///   completes saying why (``BackgroundWorkEvent/launchWithoutQueue(identifier:reason:)``).
/// - **Launches**: keeps one pending request per identifier following `JobQueue/schedulingHints(within:)`
///   as the queue changes (never more than the identifiers, so never past the platform's limits; a request
///   nothing needs is cancelled); in a launch, once the device's conditions are read, runs the runner until
///   it is idle, then completes the launch with success; when the launch's time runs out it gives the
///   running attempts back (`JobRunner/expire()`) and completes it within ``expiryCompletionBound``.
/// - **Life cycle**: in the foreground the runner runs; entering the background, it asks for background
///   time, gives the running attempts back and stops the runner (`JobRunner/suspend()`), so that nothing
///   of the queue runs when the app is suspended.
/// - **Transfers** (``transfers``): see ``BackgroundTransfers``; at launch, parked jobs whose transfers
///   the system no longer has are failed to run again, before the runner starts.
/// - **Conditions** (``conditions``): see ``DeviceConditionsFeed``.
/// - **Events** (``events()``): see ``BackgroundWorkEvent``; failures go to `os.Logger` by default.
public final class BackgroundWork: Sendable {
    private let options: Options
    private let system: System
    private let log: EventLog
    /// Whether the app is in the foreground, as last reported: kept here so that a queue attached later
    /// starts in the right state.
    private let foreground = Locked(false)
    private let attachment: Locked<Attachment>

    /// Where the queue is.
    private enum Attachment {
        /// None attached yet: the launches that came meanwhile wait.
        case waiting([HeldLaunch])
        /// The app's queue and the work over it.
        case attached(AttachedQueue)
        /// The last attempt to attach failed, or a registration was refused: why.
        case unavailable(String)
        /// ``close()`` was called.
        case closed
    }

    /// Sets Spool up with the platform's `system` services: checks the launch identifiers, registers every
    /// one of them (so call it at launch, before the app finishes launching, and before anything that may
    /// fail: iOS needs a handler for every permitted identifier), and starts following the app's life
    /// cycle. Nothing runs until a queue is attached (``attach(queue:runner:)``).
    ///
    /// - Throws: `SpoolError/Code/invalidArgument` for identifiers that are not as ``LaunchIdentifiers``
    ///   says or that the scheduler does not permit (nothing is registered then), or that the scheduler
    ///   refuses to register (those registered before stay registered here and complete their launches);
    ///   `SpoolError/Code/invalidState` when a `BackgroundWork` was set up over the same scheduler before
    ///   in this process (iOS kills an app that registers an identifier twice).
    public init(options: Options, system: System) throws {
        try options.launches.validate(permitted: system.scheduler.permittedIdentifiers)
        try LaunchRegistry.claim(system.scheduler)
        self.options = options
        self.system = system
        self.log = EventLog(sink: system.log, logging: options.logging, bufferLimit: options.eventBufferLimit)
        self.attachment = Locked(.waiting([]))
        for identifier in options.launches.all {
            // Strongly held: the scheduler keeps the handler for the process's life, as this object must be.
            guard system.scheduler.register(identifier: identifier, handler: { task in self.launched(task) }) else {
                let reason =
                    "the scheduler refused to register \(identifier): is it in BGTaskSchedulerPermittedIdentifiers, "
                    + "and is this call made before the app finishes launching?"
                unavailable(reason)
                throw SpoolError(.invalidArgument, reason)
            }
        }
        system.lifecycle?.start { [weak self] transition in self?.follow(transition) }
    }

    // MARK: The queue

    /// Attaches the app's queue and its runner: the work begins (the launches that waited for it run).
    ///
    /// - Throws: `SpoolError/Code/invalidArgument` for a queue shared with extensions
    ///   (`Options/sharedContainerIdentifier`) that is not opened with `sharing = .shared`, whose lock
    ///   would be held while the app is suspended (iOS kills such a process: `0xdead10cc`);
    ///   `SpoolError/Code/invalidState` when a queue is attached already, or after ``close()``.
    public func attach(queue: JobQueue, runner: JobRunner) throws {
        let (attached, held) = try attachment.withLock { attachment -> (AttachedQueue, [HeldLaunch]) in
            let held: [HeldLaunch]
            switch attachment {
            case .attached: throw SpoolError(.invalidState, "a queue is attached already")
            case .closed: throw SpoolError(.invalidState, "this BackgroundWork is closed")
            case .waiting(let launches): held = launches
            case .unavailable: held = []
            }
            let attached = try AttachedQueue(
                queue: queue, runner: runner, options: options, system: system, foreground: foreground, log: log)
            attachment = .attached(attached)
            return (attached, held)
        }
        for launch in held { if let task = launch.take() { attached.launchHandler.handle(task) } }
        options.place.start { await attached.control.settle() }
    }

    /// Opens the queue with `open` and attaches it (``attach(queue:runner:)``). When `open` throws (the
    /// device is locked and the queue's files are protected, the disk is full), the error is reported
    /// (``BackgroundWorkEvent/queueUnavailable(error:)``), the launches waiting for a queue complete
    /// saying why, and the error is thrown; a later call may attach the queue.
    public func attach(opening open: () throws -> (JobQueue, JobRunner)) throws {
        let queue: JobQueue
        let runner: JobRunner
        do {
            (queue, runner) = try open()
        } catch {
            log.record(.queueUnavailable(error: "\(error)"))
            unavailable("the queue could not be opened: \(error)")
            throw error
        }
        try attach(queue: queue, runner: runner)
    }

    /// The attached queue, or `nil` before it is attached and after ``close()``.
    public var queue: JobQueue? { attached?.queue }
    /// The attached runner, which this runs and stops, or `nil`.
    public var runner: JobRunner? { attached?.runner }
    /// The jobs' background transfers, when a queue is attached and `Options/transferSession` names a
    /// session.
    public var transfers: BackgroundTransfers? { attached?.transfers }
    /// The device's conditions, as given to the attached queue, or `nil` when none is attached.
    public var conditions: DeviceConditionsFeed? { attached?.conditions }

    private var attached: AttachedQueue? {
        attachment.withLock { attachment in
            if case .attached(let attached) = attachment { return attached }
            return nil
        }
    }

    /// No queue can be had now, for `reason`: the launches waiting for one complete.
    private func unavailable(_ reason: String) {
        let held = attachment.withLock { attachment -> [HeldLaunch] in
            switch attachment {
            case .waiting(let launches):
                attachment = .unavailable(reason)
                return launches
            case .unavailable:
                attachment = .unavailable(reason)
                return []
            case .attached, .closed:
                return []
            }
        }
        for launch in held { launch.completeWithoutQueue(reason, log: log) }
    }

    // MARK: Launches

    /// The system launched the app for `task`.
    private func launched(_ task: any LaunchedTask) {
        enum Route {
            case handle(AttachedQueue)
            case held
            case complete(String)
        }
        let route = attachment.withLock { attachment -> Route in
            switch attachment {
            case .attached(let attached): return .handle(attached)
            case .waiting(let launches):
                attachment = .waiting(launches + [HeldLaunch(task, log: log)])
                return .held
            case .unavailable(let reason): return .complete(reason)
            case .closed: return .complete("BackgroundWork was closed")
            }
        }
        switch route {
        case .handle(let attached): attached.launchHandler.handle(task)
        case .held: break
        case .complete(let reason): HeldLaunch(task, log: log).completeWithoutQueue(reason, log: log)
        }
    }

    /// Asks the system to carry on `jobs` (enqueued already) in the background now, showing their progress
    /// under `title` and `subtitle` (iOS 26's continued processing: for work the user started and waits
    /// for, such as an export). Ask from the foreground, right after the person's action; the identifier is
    /// `Options/continuedProcessing` followed by a new UUID. The launch runs the runner until the jobs are
    /// finished, forwarding their progress (`JobContext/reportProgress(_:)`; the system may end a launch
    /// whose progress stalls), and completes with success when all succeeded.
    ///
    /// - Throws: `SpoolError/Code/invalidArgument` when `Options/continuedProcessing` names no
    ///   identifier or no job is given; `SpoolError/Code/invalidState` when no queue is attached; the
    ///   scheduler's refusal.
    public func continueInBackground(_ jobs: [JobID], title: String, subtitle: String) throws {
        guard let base = options.continuedProcessing, let scheduler = system.continuedProcessing else {
            throw SpoolError(.invalidArgument, "no continued-processing identifier was given at launch")
        }
        guard !jobs.isEmpty else { throw SpoolError(.invalidArgument, "no job to continue in the background") }
        guard let attached else { throw SpoolError(.invalidState, "no queue is attached") }
        let identifier = base + "." + UUID().uuidString
        let (queue, launchHandler) = (attached.queue, attached.launchHandler)
        guard
            scheduler.registerContinued(
                identifier: identifier,
                handler: { task in
                    launchHandler.run(task) { await ContinuedJobs.follow(jobs, of: queue, reportingTo: task) }
                })
        else {
            throw SpoolError(.invalidArgument, "the scheduler refused to register \(identifier)")
        }
        try scheduler.submitContinued(identifier: identifier, title: title, subtitle: subtitle)
    }

    /// In a handler: parks the job, then hands `request` to the system as a background transfer whose
    /// completion ends the job (``BackgroundTransfers/start(_:in:for:)``); ends the handler by throwing
    /// `JobParked`.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     try await work.startTransfer(.upload(photo.file, to: photo.destination), in: context, for: 86_400)
    /// }
    /// ```
    ///
    /// - Throws: `SpoolError/Code/invalidArgument` when no transfer session was set up
    ///   (`Options/transferSession`), so that a job never succeeds without its transfer; otherwise as
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
    public var pendingRequests: [String: LaunchRequest] { attached?.requests.pending ?? [:] }

    /// A new stream of the product's events from now on; it keeps the newest
    /// `Options/eventBufferLimit` unread ones. Route them to the app's own logging or metrics.
    public func events() -> AsyncStream<BackgroundWorkEvent> { log.stream() }

    // MARK: The life cycle

    /// A transition the life cycle monitor reported: the foreground runs the runner; the background
    /// gives the attempts back within background time asked for it.
    private func follow(_ transition: AppTransition) {
        switch transition {
        case .becameActive:
            let settle = enterForeground()
            options.place.start { await settle() }
        case .enteredBackground:
            let time = BackgroundTimeSlot(system.backgroundTime, name: "Spool: giving running attempts back") {
                [log] in log.record(.backgroundTimeExpired)
            }
            let settle = enterBackground(then: time.end)
            options.place.start { await settle() }
        }
    }

    /// The app came to the foreground: the runner runs, once the work at launch is done. Optional: the
    /// product follows the app's life cycle itself (``System/lifecycle``); call it where there is no
    /// life cycle monitor. Transitions take effect in the order they are called.
    public func appWillEnterForeground() async { await enterForeground()() }

    /// The app went to the background: unless a background launch is running, gives the running attempts
    /// back and stops the runner (its handlers are cancelled), then brings the launch requests up to date,
    /// so that a launch comes for what is left. Optional, as ``appWillEnterForeground()``; a caller asks the
    /// system for the time it takes (UIKit's `beginBackgroundTask`), as the product does itself.
    public func appDidEnterBackground() async { await enterBackground(then: {})() }

    /// Marks the foreground now, in call order; returns the settling to await, which reports
    /// ``BackgroundWorkEvent/enteredForeground`` once done.
    private func enterForeground() -> @Sendable () async -> Void {
        foreground.withLock { $0 = true }
        let (attached, log) = (self.attached, self.log)
        return {
            await attached?.control.settle()
            log.record(.enteredForeground)
        }
    }

    /// Marks the background now, in call order; returns the settling to await, which runs `done` and
    /// reports ``BackgroundWorkEvent/enteredBackground`` once the attempts are given back.
    private func enterBackground(then done: @escaping @Sendable () -> Void) -> @Sendable () async -> Void {
        foreground.withLock { $0 = false }
        let (attached, log) = (self.attached, self.log)
        return {
            if let attached {
                await attached.control.settle()
                attached.requests.queueChanged()
            }
            done()
            log.record(.enteredBackground)
        }
    }

    /// Stops following the queue, the device and the life cycle, stops the runner, lets the transfer
    /// sessions go (the system carries their transfers on) and ends the event streams.
    ///
    /// What may follow in the same process: the launch identifiers stay registered (iOS cannot undo a
    /// registration) and their launches complete at once, saying so; no other `BackgroundWork` may be set
    /// up over the same scheduler, and this one attaches no queue again. A transfer session's identifier
    /// must not be used for a new session before the system invalidated the old one (its delegate's
    /// `urlSession(_:didBecomeInvalidWithError:)`), after its transfers end.
    public func close() async {
        system.lifecycle?.cancel()
        let attached = attachment.withLock { attachment -> AttachedQueue? in
            defer { attachment = .closed }
            if case .attached(let attached) = attachment { return attached }
            return nil
        }
        foreground.withLock { $0 = false }
        await attached?.close()
        log.finish()
    }
}

/// A launch that came before a queue was attached: handed to the queue's work once attached, or completed
/// without a queue; its expiry completes it at once.
final class HeldLaunch: Sendable {
    private let task: Locked<(any LaunchedTask)?>

    init(_ task: any LaunchedTask, log: EventLog) {
        let held = Locked<(any LaunchedTask)?>(task)
        self.task = held
        task.setExpirationHandler {
            guard let task = held.withLock({ $0.take() }) else { return }
            log.record(.launchExpired(identifier: task.identifier))
            task.setExpirationHandler(nil)
            task.setTaskCompleted(success: false)
        }
    }

    /// The task, unless it expired or was taken before.
    func take() -> (any LaunchedTask)? { task.withLock { $0.take() } }

    /// Completes the launch, which no queue can serve, for `reason`.
    func completeWithoutQueue(_ reason: String, log: EventLog) {
        guard let task = take() else { return }
        log.record(.launchWithoutQueue(identifier: task.identifier, reason: reason))
        task.setExpirationHandler(nil)
        task.setTaskCompleted(success: false)
    }
}
