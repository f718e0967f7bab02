/// The app's lifecycle: leaving the foreground and coming back without spending attempts, and
/// knowing when the work is done.
extension JobRunner {
    /// The app leaves the foreground: gives every running attempt back and stops claiming.
    ///
    /// Each running job goes back to enqueued, due at once, its attempt not spent
    /// (``StopReason/runnerStopped``, recorded before its handler is cancelled), so an upload
    /// interrupted by any number of app switches never runs out of attempts. A parked job is not
    /// running here (the system does its work) and stays parked. Returns once every handler has
    /// ended. The same as `stop(.releaseRunning)`; ``resume()`` undoes it.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// .onChange(of: scenePhase) { _, phase in
    ///     switch phase {
    ///     case .background: Task { await runner.suspend() }
    ///     case .active: runner.resume()
    ///     default: break
    ///     }
    /// }
    /// ```
    public func suspend() async {
        await stop(.releaseRunning)
    }

    /// The app is back: claims and runs jobs again, the jobs ``suspend()`` gave back first among
    /// them (they are due at once). Does nothing when the runner runs already. The same as ``start()``.
    public func resume() {
        start()
    }

    /// Returns once the runner is idle: nothing of its kinds runs in it or is due now, and it has
    /// looked at the queue since this call began — so a job enqueued before the call is claimed
    /// first, and the call returns after it ends (or parks). Returns at once for a runner that is not
    /// started, and as soon as the runner stops.
    ///
    /// Parked jobs (the system does their work) and jobs waiting for prerequisites, conditions
    /// (``JobQueue/updateDeviceConditions(_:)``), a paused kind, a rate limit or a later due time do not
    /// keep the runner busy: a background launch can complete its task once this returns, and ask
    /// for the next launch by ``JobQueue/nextProcessingHint()``.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// runner.start()
    /// await runner.idle()
    /// task.setTaskCompleted(success: true)
    /// ```
    ///
    /// With ``RunnerEvents``, each time the runner becomes idle is the event ``RunnerEvents/Event/idle``.
    public func idle() async {
        // The loop looks again, at the queue as it is now: this call never answers from an older look.
        wakeup.post { $0.runnerChanged = true }
        await wakeup.activity.wait { $0.isQuiet }
    }
}
