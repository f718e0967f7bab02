import Spool

/// Runs the queue's runner in a background launch and completes the launch once: with success once the
/// runner is idle (``JobRunner/idle()``), without when the system's time runs out, after the running
/// attempts were given back (``JobRunner/expire()``). In the background the runner is stopped before the
/// launch completes, so that nothing of the queue runs (or waits for `LOCK`) when the app is suspended.
final class LaunchHandler: Sendable {
    private let runner: JobRunner
    private let phase: AppPhase
    private let events: EventLog
    /// What runs after each launch, before its completion: bringing the requests up to date.
    private let afterLaunch: @Sendable () -> Void
    /// What must end before the runner runs (the transfers' reconciliation at launch).
    private let before: Task<Void, Never>

    init(
        runner: JobRunner, phase: AppPhase, events: EventLog, before: Task<Void, Never>,
        afterLaunch: @escaping @Sendable () -> Void
    ) {
        self.runner = runner
        self.phase = phase
        self.events = events
        self.before = before
        self.afterLaunch = afterLaunch
    }

    /// Handles `task`: runs the runner until idle, or until the system's time runs out.
    func handle(_ task: any LaunchedTask) {
        let completion = LaunchCompletion(task)
        events.record(.launchStarted(identifier: task.identifier))
        phase.launchBegan()
        task.setExpirationHandler { [runner, phase, events, afterLaunch] in
            guard completion.expire() else { return }
            Task {
                await runner.expire()
                Self.end(
                    completion, success: false, runner: runner, phase: phase, events: events, afterLaunch: afterLaunch)
            }
        }
        Task { [runner, phase, events, afterLaunch, before] in
            await before.value
            runner.start()
            await runner.idle()
            // An expiry meanwhile stopped the runner (which ended the wait): its handler completes.
            guard completion.isRunning else { return }
            if phase.isLastLaunchInBackground { await runner.suspend() }
            Self.end(completion, success: true, runner: runner, phase: phase, events: events, afterLaunch: afterLaunch)
        }
    }

    private static func end(
        _ completion: LaunchCompletion, success: Bool, runner: JobRunner, phase: AppPhase, events: EventLog,
        afterLaunch: @Sendable () -> Void
    ) {
        guard completion.finish(expired: !success) else { return }
        phase.launchEnded()
        // An expired launch stopped the runner: an app in the foreground runs it again.
        if !success, phase.isForeground { runner.resume() }
        afterLaunch()
        events.record(
            success
                ? .launchCompleted(identifier: completion.identifier)
                : .launchExpired(identifier: completion.identifier))
        completion.complete(success: success)
    }
}

/// A launch's completion, made once: by the end of its work, or by its expiry, which wins once it began.
final class LaunchCompletion: Sendable {
    private enum Phase {
        case running, expiring, finished
    }
    private let task: any LaunchedTask
    private let phase = Locked(Phase.running)

    init(_ task: any LaunchedTask) { self.task = task }

    var identifier: String { task.identifier }

    /// Neither expiring nor finished.
    var isRunning: Bool { phase.withLock { $0 == .running } }

    /// The system's time ran out: returns whether the expiry is to complete the launch (it is not
    /// finished already).
    func expire() -> Bool {
        phase.withLock { phase in
            guard phase == .running else { return false }
            phase = .expiring
            return true
        }
    }

    /// Returns whether this call finishes the launch: an expiry's, once expiring; the work's, while running.
    func finish(expired: Bool) -> Bool {
        phase.withLock { phase in
            guard phase == (expired ? .expiring : .running) else { return false }
            phase = .finished
            return true
        }
    }

    func complete(success: Bool) {
        task.setExpirationHandler(nil)
        task.setTaskCompleted(success: success)
    }
}

/// Whether the app is in the foreground, and how many background launches run now.
final class AppPhase: Sendable {
    private struct State {
        var isForeground: Bool
        var launches = 0
    }
    private let state: Locked<State>

    init(isForeground: Bool) { state = Locked(State(isForeground: isForeground)) }

    var isForeground: Bool { state.withLock { $0.isForeground } }

    func set(foreground: Bool) { state.withLock { $0.isForeground = foreground } }

    func launchBegan() { state.withLock { $0.launches += 1 } }

    func launchEnded() { state.withLock { $0.launches -= 1 } }

    /// The app is in the background and no launch but the one asking runs.
    var isLastLaunchInBackground: Bool { state.withLock { !$0.isForeground && $0.launches <= 1 } }
}
