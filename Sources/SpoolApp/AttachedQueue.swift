import Spool

/// What ``BackgroundWork`` runs once the app attached its queue: the runner's control, the launch
/// requests that follow the queue, the launch handler, the transfers, the device's conditions and the
/// task following the queue's changes.
final class AttachedQueue: Sendable {
    let queue: JobQueue
    let runner: JobRunner
    let transfers: BackgroundTransfers?
    let conditions: DeviceConditionsFeed
    let control: RunnerControl
    let requests: LaunchRequests
    let launchHandler: LaunchHandler
    /// The task following the queue's changes.
    private let follower: Locked<Task<Void, Never>?>

    /// Sets up the work over `queue` and `runner`; ``start()`` begins it.
    init(
        queue: JobQueue, runner: JobRunner, options: BackgroundWork.Options, system: BackgroundWork.System,
        foreground: Locked<Bool>, log: EventLog
    ) throws {
        if options.sharedContainerIdentifier != nil, queue.configuration.sharing != .shared {
            throw SpoolError(
                .invalidArgument,
                "a queue in an app group container must be opened with sharing = .shared: an .exclusive queue holds "
                    + "its lock while the app is suspended, and iOS kills a process suspended with a lock there")
        }
        let requests = LaunchRequests(
            queue: queue, scheduler: system.scheduler, identifiers: options.launches, events: log)
        let transfers: BackgroundTransfers? =
            if let identifier = options.transferSession, let make = system.transferSessions {
                BackgroundTransfers(
                    queue: queue, session: identifier, rules: options.transferRules, events: log, place: options.place,
                    makeSession: make)
            } else {
                nil
            }
        if let transfers {
            // A share extension's transfer outcomes, carried to the app as jobs.
            try runner.register(kind: BackgroundTransfers.outcomeKind) { payload, _ in
                let completion = try BackgroundTransfers.decode(payload)
                await transfers.record(completion)
            }
        }
        let conditions = DeviceConditionsFeed(
            queue: queue, network: system.network, power: system.power, events: log)
        let clock = queue.configuration.clock
        // Before the runner may run: the device's conditions read. (The transfers reconcile later, after the
        // session's events or the grace period: a parked job is not claimable meanwhile.)
        let activation = options.place.start {
            await conditions.firstReports(within: BackgroundWork.conditionsReportBound, on: clock)
        }
        let control = RunnerControl(runner: runner, activation: activation, foreground: foreground)
        self.queue = queue
        self.runner = runner
        self.transfers = transfers
        self.conditions = conditions
        self.requests = requests
        self.control = control
        self.launchHandler = LaunchHandler(
            runner: runner, control: control, requests: requests, events: log, clock: clock, place: options.place)
        self.follower = Locked(nil)
        conditions.start()
        follower.withLock {
            $0 = Self.follow(queue: queue, requests: requests, transfers: transfers, log: log, place: options.place)
        }
    }

    /// Follows the queue's changes: each burst of them brings the launch requests up to date once; the
    /// transfers see each change (a job that left its park has its transfer cancelled).
    private static func follow(
        queue: JobQueue, requests: LaunchRequests, transfers: BackgroundTransfers?, log: EventLog, place: TaskPlace
    ) -> Task<Void, Never> {
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The first update, at launch: requests an earlier process left that nothing needs now go.
        signal.yield()
        return place.start {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await change in queue.changes() {
                        transfers?.jobChanged(change)
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

    /// Stops following the queue and the device, stops the runner and lets the transfer sessions go.
    func close() async {
        follower.withLock { $0 }?.cancel()
        conditions.cancel()
        transfers?.close()
        await runner.stop(.releaseRunning)
    }
}
