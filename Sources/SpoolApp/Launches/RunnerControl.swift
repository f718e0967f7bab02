import Spool

/// Why the runner runs — the app in the foreground, each background launch in progress — and the one
/// place that starts and stops it. An actor, so starts and stops never interleave: after every change it
/// brings the runner to what the reasons ask, and looks again after each stop it waited for (a reason
/// that came meanwhile starts it again). Nothing runs before the work at launch (``activation``) is done.
actor RunnerControl {
    private let runner: JobRunner
    /// The work at launch before the runner may run: the transfers' reconciliation.
    private let activation: Task<Void, Never>
    /// Whether the app is in the foreground, as ``BackgroundWork`` last heard: set at once, in the order the
    /// transitions come, so that two of them end in the last one's state however their tasks are scheduled.
    private nonisolated let foreground: Locked<Bool>
    /// The launches in progress.
    private var launches: Set<UInt64> = []
    /// Launches whose expiry reached this actor before their ``begin(_:)``, which then starts nothing (each
    /// such begin follows: an expiry comes here only for a launch whose work began).
    private var expiredEarly: Set<UInt64> = []
    /// Whether this actor last started the runner (and has not stopped it since).
    private var running = false

    init(runner: JobRunner, activation: Task<Void, Never>, foreground: Locked<Bool>) {
        self.runner = runner
        self.activation = activation
        self.foreground = foreground
    }

    nonisolated var isForeground: Bool { foreground.withLock { $0 } }

    /// Starts or stops the runner as the reasons ask, once the work at launch is done.
    func settle() async {
        await activation.value
        while true {
            let wanted = isForeground || !launches.isEmpty
            if wanted == running { return }
            if wanted {
                runner.start()
                running = true
            } else {
                // Gives the running attempts back, so that nothing runs when the app is suspended.
                await runner.suspend()
                running = false
            }
        }
    }

    /// A launch begins: the runner runs. Returns `false` when the launch expired already.
    func begin(_ launch: UInt64) async -> Bool {
        guard expiredEarly.remove(launch) == nil else { return false }
        launches.insert(launch)
        await settle()
        return true
    }

    /// A launch ended with its work done: the runner stops if nothing else needs it.
    func end(_ launch: UInt64) async {
        launches.remove(launch)
        await settle()
    }

    /// A launch's time ran out. When nothing else needs the runner (the app is in the background and no
    /// other launch runs), its running attempts are given back as the system's (`JobRunner/expire()`);
    /// otherwise the runner goes on for the other reason.
    func expire(_ launch: UInt64) async {
        guard launches.remove(launch) != nil else {
            expiredEarly.insert(launch)
            return
        }
        if running, !isForeground, launches.isEmpty {
            await runner.expire()
            running = false
        }
        await settle()
    }
}
