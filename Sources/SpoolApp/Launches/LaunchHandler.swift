import Spool

/// Runs the queue's runner in a background launch and completes the launch once: with success once the
/// runner is idle (`JobRunner/idle()`), without when the system's time runs out. On expiry the running
/// attempts are given back when nothing else needs the runner (``RunnerControl/expire(_:)``), and the
/// launch is completed once that is done or ``BackgroundWork/expiryCompletionBound`` has passed, whichever
/// comes first: a handler that ignores cancellation or a slow sync never keeps the launch from completing in
/// time (the give-back lands after it then). In the background the runner is stopped before a launch that
/// ends with its work done completes, so that nothing of the queue runs when the app is suspended.
final class LaunchHandler: Sendable {
    private let runner: JobRunner
    private let control: RunnerControl
    private let events: EventLog
    private let requests: LaunchRequests
    private let clock: any SpoolClock
    /// Where its tasks start.
    private let place: TaskPlace
    private let launches = Locked<UInt64>(0)

    init(
        runner: JobRunner, control: RunnerControl, requests: LaunchRequests, events: EventLog, clock: any SpoolClock,
        place: TaskPlace
    ) {
        self.place = place
        self.runner = runner
        self.control = control
        self.requests = requests
        self.events = events
        self.clock = clock
    }

    /// A number for a new launch.
    func nextLaunch() -> UInt64 {
        launches.withLock { count in
            count += 1
            return count
        }
    }

    /// Handles `task`: runs the runner until idle, or until the system's time runs out.
    func handle(_ task: any LaunchedTask) {
        // The system dropped the request it launched for: the next update submits one again if needed.
        requests.launched(task.identifier)
        run(task) { [runner] in
            await runner.idle()
            return true
        }
    }

    /// Runs the runner for `task` until `work` returns (`true`: success), or until the task expires.
    func run(_ task: any LaunchedTask, until work: @escaping @Sendable () async -> Bool) {
        let completion = LaunchCompletion(task, number: nextLaunch())
        events.record(.launchStarted(identifier: task.identifier))
        task.setExpirationHandler { [self] in
            guard let began = completion.expire() else { return }
            let deadline = clock.now().addingTimeInterval(BackgroundWork.expiryCompletionBound)
            let bound = place.start { [self, clock] in
                guard (try? await clock.sleep(until: deadline)) != nil else { return }
                end(completion, success: false)
            }
            place.start { [self] in
                // Only a launch whose work began can have started the runner (or be about to).
                if began { await control.expire(completion.number) }
                end(completion, success: false)
                bound.cancel()
            }
        }
        place.start { [self] in
            guard completion.start(), await control.begin(completion.number) else { return }
            let success = await work()
            // An expiry meanwhile (which may have ended the wait by stopping the runner) completes the launch.
            guard completion.finishWork() else { return }
            await control.end(completion.number)
            end(completion, success: success)
        }
    }

    /// Completes the launch (once, whoever calls first), then brings the launch requests up to date.
    private func end(_ completion: LaunchCompletion, success: Bool) {
        guard completion.complete(success: success) else { return }
        events.record(
            completion.expired
                ? .launchExpired(identifier: completion.identifier)
                : .launchCompleted(identifier: completion.identifier))
        requests.queueChanged()
    }
}

/// A launch's completion, made once: by the end of its work, or by its expiry, which wins once it began.
final class LaunchCompletion: Sendable {
    private enum Phase {
        case waiting, started, expiring, finished
    }
    private let task: any LaunchedTask
    /// The launch's number for ``RunnerControl``.
    let number: UInt64
    private let phase = Locked(Phase.waiting)
    private let completed = Locked(false)

    init(_ task: any LaunchedTask, number: UInt64) {
        self.task = task
        self.number = number
    }

    var identifier: String { task.identifier }

    /// Whether the launch expired.
    var expired: Bool { phase.withLock { $0 == .expiring } }

    /// The work begins: `false` when the launch expired before.
    func start() -> Bool { transition(from: [.waiting], to: .started) }

    /// The work ended: `false` when the launch expired meanwhile (its expiry completes it).
    func finishWork() -> Bool { transition(from: [.started], to: .finished) }

    /// The system's time ran out: whether the work had begun, or `nil` when it finished already.
    func expire() -> Bool? {
        phase.withLock { phase in
            guard phase == .waiting || phase == .started else { return nil }
            defer { phase = .expiring }
            return phase == .started
        }
    }

    private func transition(from: Set<Phase>, to next: Phase) -> Bool {
        phase.withLock { phase in
            guard from.contains(phase) else { return false }
            phase = next
            return true
        }
    }

    /// Completes the task, the first time only: whether this call did.
    func complete(success: Bool) -> Bool {
        let first = completed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return false }
        task.setExpirationHandler(nil)
        task.setTaskCompleted(success: success)
        return true
    }
}
