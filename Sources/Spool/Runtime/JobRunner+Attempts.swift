/// One attempt: the handler's task, and the record of its outcome.
extension JobRunner {
    /// Starts the handler of a claimed job. Called through ``start(_:replacing:carryingOn:)`` only.
    /// The attempt under `previous`, if any, leaves its slot at the same moment (a handover).
    ///
    /// The handler runs in a task of its own: a new one, or — with `carryingOn`, when called from
    /// `previous`'s own task as it hands over — that task, which then runs this attempt next
    /// (``runAttempts(from:)``): a steady stream of jobs in a slot starts no task and wakes no
    /// thread per job. The task is carried on only while nothing cancelled it: every canceller marks
    /// the attempt (``Execution/cancellation``) under the runner's lock before it cancels the task,
    /// and the handover checks the mark under the same lock, so a cancel meant for `previous` never
    /// reaches this attempt.
    ///
    /// - Returns: The attempt, when the caller's task is to run it; `nil` when a task of its own does.
    func begin(
        _ lease: Lease, _ registration: Registration, replacing previous: LeaseToken? = nil, carryingOn: Bool = false
    ) -> Attempt? {
        let now = clock.now()
        let attempt = Attempt(lease: lease, registration: registration)
        let timeout = registration.options.timeout
        let monotonic = clock.monotonicNanoseconds()
        let (carriedOn, wakesLoop) = state.withLock { state -> (Bool, Bool) in
            // The claim asked for the runner's lease duration: its renewal falls half way through that.
            var execution = Execution(
                lease: lease, term: leaseDuration, kind: lease.job.kind,
                timeout: timeout, timeoutAt: timeout.map { now.addingTimeInterval($0) })
            var carriedOn = false
            let finishedKind = previous.flatMap { state.executions[$0]?.kind }
            if let previous, let finished = state.executions.removeValue(forKey: previous), let task = finished.task {
                if carryingOn, finished.cancellation == nil, !task.isCancelled {
                    execution.task = task
                    carriedOn = true
                } else {
                    state.retiredTasks.append(task)
                }
            }
            let wakesLoop = Self.handoverWakesLoop(
                finishedKind: finishedKind, nextKind: lease.job.kind,
                deadline: execution.nextDeadline(now: now, monotonic: monotonic), loopWakeBound: state.loopWakeBound)
            state.executions[lease.token] = execution
            return (carriedOn, wakesLoop)
        }
        if carriedOn {
            if wakesLoop { wakeup.post { $0.runnerChanged = true } }
            return attempt
        }
        let task = options.place.start { await self.runAttempts(from: attempt) }
        state.withLock { state in
            state.statistics.handlerTasks += 1
            if state.executions[lease.token] != nil {
                state.executions[lease.token]?.task = task
            } else {
                state.retiredTasks.append(task)  // it finished already
            }
        }
        return nil
    }

    /// Whether an attempt a handover carried on (the loop took no part) must wake the loop. The loop
    /// sleeps until the earliest deadline of the attempts it last saw at the latest
    /// (``RunnerState/loopWakeBound``, `nil` when it saw none): it sees an attempt whose own earliest
    /// `deadline` (lease renewal, timeout) is no earlier at that wake. A job of another kind than the
    /// finished one's frees a place under that kind's limit, which the loop may have found full: it
    /// is woken to claim into it.
    static func handoverWakesLoop(finishedKind: String?, nextKind: String, deadline: Date, loopWakeBound: Date?)
        -> Bool
    {
        guard finishedKind == nextKind, let loopWakeBound else { return true }
        return deadline < loopWakeBound
    }

    /// A claimed job and the handler of its kind: what a slot's task runs.
    struct Attempt {
        let lease: Lease
        let registration: Registration
    }

    /// The body of a slot's task: `first`, then each attempt a handover gives it (``begin(_:_:replacing:carryingOn:)``).
    private func runAttempts(from first: Attempt) async {
        var next: Attempt? = first
        while let attempt = next {
            next = await run(attempt)
        }
    }

    /// Runs an attempt's handler and records its outcome.
    ///
    /// - Returns: The next attempt, when the outcome's record claimed it for this task to run.
    private func run(_ attempt: Attempt) async -> Attempt? {
        let lease = attempt.lease
        let token = lease.token
        let context = JobContext(job: lease.job, token: token, runner: self)
        let ending: AttemptEnd
        do {
            try await attempt.registration.run(lease.payload, context)
            ending = .succeeded()
        } catch let failure as TerminalJobFailure {
            ending = .failed(error: failure.reason, terminal: true)
        } catch is JobParked {
            // Parked (JobRunner+Parking.swift): nothing to record; the slot is free.
            await release(token)
            return nil
        } catch let failure as UndecodablePayload {
            ending = .failed(error: failure.description, terminal: true)
        } catch let snooze as JobSnooze {
            ending = snooze.ending(now: clock.now())
        } catch {
            ending = .failed(error: "\(error)", terminal: false)
        }
        return await finish(token, ending)
    }

    /// Records a handler's outcome — unless its attempt was settled otherwise meanwhile
    /// (cancelled job, lost lease, timeout): then the result is discarded — and frees its slot.
    ///
    /// - Returns: The next attempt, when the outcome's record claimed it for the caller's task to run.
    private func finish(_ token: LeaseToken, _ ending: AttemptEnd) async -> Attempt? {
        let settled = state.withLock { state -> (Lease, AttemptEnd?)? in
            guard var execution = state.executions[token] else { return nil }
            defer { state.executions[token] = execution }
            if execution.isSettled { return (execution.lease, nil) }
            execution.isSettled = true
            if execution.cancellation == .runnerStopped, case .failed(let error, false, .failed) = ending {
                return (
                    execution.lease,
                    .failed(
                        error: "stopped: the runner was stopped while the job ran (\(error))", terminal: false,
                        reason: .runnerStopped)
                )
            }
            // A success carries the result its handler set (JobContext.setResult) into its record.
            if ending == .succeeded(), let result = execution.result {
                return (execution.lease, .succeeded(result: result))
            }
            return (execution.lease, ending)
        }
        var next: Attempt?
        if let (lease, ending) = settled {
            if let ending {
                next = await recordAndHandOver(ending, of: lease)
            } else {
                events?.record(.discarded(lease.job.id))
            }
        }
        state.withLock { state in
            if let task = state.executions.removeValue(forKey: token)?.task { state.retiredTasks.append(task) }
        }
        // The slot is free, or its next attempt was started in a task of its own: the loop looks again.
        // A carried-on attempt woke the loop already if it had to (begin(_:_:replacing:carryingOn:)).
        if next == nil { wakeup.post { $0.runnerChanged = true } }
        return next
    }

    /// Records a handler's outcome and, in the same record, claims the next due job for the slot
    /// it frees (``QueueEngine/end(id:token:issued:ending:claimingNext:leaseDuration:madeBy:)``): one sync per
    /// job in a steady stream, not two. The next job's handler starts only once that record is
    /// durable, so its attempt is counted first, as a claim by the loop counts it; until then the
    /// finished attempt keeps the slot, so the loop cannot claim into it meanwhile, and the next
    /// attempt takes the slot over in one step (``begin(_:_:replacing:carryingOn:)``), in the
    /// caller's task when nothing cancelled it (it returns that attempt for the caller to run). When the
    /// outcome itself may make a job due (it had dependents, or retries at once) or leases are to
    /// be reclaimed, the record holds the outcome alone and the loop claims as it always does.
    /// A lost lease discards the outcome; another error stops the runner. Without `claimingNext`
    /// (an attempt ended by the runner itself, not by its handler) nothing is claimed.
    private func recordAndHandOver(_ ending: AttemptEnd, of lease: Lease, claimingNext: Bool = true) async
        -> Attempt?
    {
        let kinds = claimingNext ? claimableKinds(freeing: lease.token) : nil
        let subscriber = state.withLock { $0.changeSubscriber }
        let handover: QueueEngine.Handover
        do {
            handover = try await queue.engine.durably {
                try $0.end(
                    id: lease.job.id, token: lease.token, issued: true, ending: ending, claimingNext: kinds,
                    leaseDuration: leaseDuration, madeBy: subscriber)
            }
        } catch SpoolError.Code.leaseLost {
            events?.record(.discarded(lease.job.id))
            return nil
        } catch {
            events?.record(.recordFailed(lease.job.id, "\(error)"))
            stopByItself(error, cancelRunning: false)
            wakeup.post { $0.runnerChanged = true }
            return nil
        }
        recordEvent(ending, of: lease)
        if handover.finished.state.isFinished {
            events?.record(.finished(lease.job.id, handover.finished.state))
        }
        guard let next = handover.next else { return nil }
        let nextLease: Lease
        do {
            nextLease = try queue.makeLease(next)
        } catch {
            // The claimed job's payload does not read back: as for a claim by the loop, the runner stops.
            stopByItself(error, cancelRunning: false)
            wakeup.post { $0.runnerChanged = true }
            return nil
        }
        let started = await start(nextLease, replacing: lease.token, carryingOn: true)
        // A change to the job made by someone else (a cancel) after the record and before the attempt
        // was under way found no attempt to settle: the job is looked at again now that there is one,
        // by the loop's own rule, here (the record's own change was not sent to the loop).
        await settleLostAttempts([next.job.id])
        if case .carriesOn(let attempt) = started { return attempt }
        return nil
    }

    /// Records the end of an attempt that the runner itself ends (a release, a timeout, a stop)
    /// durably, claiming nothing. A lost lease (the job was cancelled, deleted or reclaimed
    /// meanwhile) discards it; another error stops the runner.
    func record(_ ending: AttemptEnd, of lease: Lease) async {
        _ = await recordAndHandOver(ending, of: lease, claimingNext: false)
    }
}
