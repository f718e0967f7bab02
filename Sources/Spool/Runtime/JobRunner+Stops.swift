/// Attempts the app or the system interrupts: the system's background time running out, a stop
/// that gives the attempts back, constraints that stop holding. Each is released (given back).
extension JobRunner {
    /// The system's background time ran out: gives every running attempt back (reason
    /// ``StopReason/systemTimeExpired``, recorded before the handlers are cancelled), claims
    /// nothing more, and returns once the handlers have ended. Call it from a background task's
    /// expiration handler:
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// task.expirationHandler = {
    ///     Task { await runner.expire(); task.setTaskCompleted(success: false) }
    /// }
    /// ```
    ///
    /// The jobs go back to enqueued, due at once, their attempts not spent: the next launch runs
    /// them again. Their handlers see ``JobContext/CancellationReason/systemTimeExpired``.
    ///
    /// It waits for the handlers to end, and cancellation is cooperative: a handler that neither checks
    /// ``JobContext/isCancelled`` (or ``JobContext/checkCancellation()``) nor calls cancellable `async`
    /// APIs keeps `expire()` from returning, and the system may kill the app meanwhile — which loses
    /// nothing (the attempts were given back first), but costs the task its completion. ``start()`` (or
    /// ``resume()``) runs the runner again after it.
    public func expire() async {
        await stop(.releaseRunning, releasing: .systemTimeExpired)
    }

    /// During a stop that gives attempts back: releases every attempt not settled yet, then cancels its handler.
    func releaseForStop() async {
        let released = state.withLock { state -> [(Task<Void, Never>?, Lease, StopReason)] in
            guard state.phase == .stopping, let reason = state.releaseOnStop else { return [] }
            var released: [(Task<Void, Never>?, Lease, StopReason)] = []
            for (token, execution) in state.executions where !execution.isSettled {
                state.executions[token]?.isSettled = true
                state.executions[token]?.cancellation =
                    reason == .systemTimeExpired ? .systemTimeExpired : .runnerStopped
                released.append((execution.task, execution.lease, reason))
            }
            return released
        }
        await release(released)
    }

    /// After the device conditions changed: releases the attempts whose job's constraints no longer
    /// hold (reason ``StopReason/constraintsUnmet``) and cancels their handlers.
    func releaseUnmetConstraints() async {
        let conditions = queue.deviceConditions
        let released = state.withLock { state -> [(Task<Void, Never>?, Lease, StopReason)] in
            var released: [(Task<Void, Never>?, Lease, StopReason)] = []
            for (token, execution) in state.executions where !execution.isSettled {
                let constraints = execution.lease.job.constraints
                guard !constraints.isEmpty, !conditions.satisfies(constraints) else { continue }
                state.executions[token]?.isSettled = true
                state.executions[token]?.cancellation = .constraintsUnmet
                released.append((execution.task, execution.lease, .constraintsUnmet))
            }
            return released
        }
        await release(released)
    }

    /// Records each release, then cancels the handler (its result is discarded: the attempt is settled).
    private func release(_ attempts: [(Task<Void, Never>?, Lease, StopReason)]) async {
        for (task, lease, reason) in attempts {
            await record(.released(reason), of: lease)
            let cancellation: JobContext.CancellationReason =
                switch reason {
                case .systemTimeExpired: .systemTimeExpired
                case .constraintsUnmet: .constraintsUnmet
                default: .runnerStopped
                }
            events?.record(.cancelledHandler(lease.job.id, cancellation))
            task?.cancel()
        }
    }

    /// The event of a recorded end.
    func recordEvent(_ ending: AttemptEnd, of lease: Lease) {
        let id = lease.job.id
        switch ending {
        case .succeeded: events?.record(.succeeded(id))
        case .failed(let error, let terminal, _): events?.record(.failed(id, error: error, terminal: terminal))
        case .released(let reason): events?.record(.released(id, reason))
        case .snoozed: events?.record(.snoozed(id))
        case .parked: break
        }
    }
}
