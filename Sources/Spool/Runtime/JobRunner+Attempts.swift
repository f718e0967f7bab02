/// One attempt: the handler's task, and the record of its outcome.
extension JobRunner {
    /// Starts the handler of a claimed job in its own task. Called through ``start(_:replacing:)`` only.
    /// The attempt under `previous`, if any, leaves its slot at the same moment (a handover).
    func begin(_ lease: Lease, _ registration: Registration, replacing previous: LeaseToken? = nil) {
        let now = clock.now()
        let token = lease.token
        let timeout = registration.options.timeout
        state.withLock { state in
            // The claim asked for the runner's lease duration: its renewal falls half way through that.
            state.executions[token] = Execution(
                lease: lease, term: leaseDuration, kind: lease.job.kind,
                timeout: timeout, timeoutAt: timeout.map { now.addingTimeInterval($0) })
            if let previous, let task = state.executions.removeValue(forKey: previous)?.task {
                state.retiredTasks.append(task)
            }
        }
        let context = JobContext(job: lease.job, token: token, runner: self)
        let task = Task {
            let outcome: AttemptOutcome
            do {
                try await registration.run(lease.payload, context)
                outcome = .succeeded
            } catch let failure as TerminalJobFailure {
                outcome = .failed(failure.reason, terminal: true)
            } catch is JobParked {
                // Parked (JobRunner+Parking.swift): nothing to record; the slot is free.
                await self.release(token)
                return
            } catch let failure as UndecodablePayload {
                outcome = .failed(failure.description, terminal: true)
            } catch let snooze as JobSnooze {
                outcome = snooze.outcome(now: self.clock.now())
            } catch {
                outcome = .failed("\(error)", terminal: false)
            }
            await self.finish(token, outcome)
        }
        state.withLock { state in
            if state.executions[token] != nil {
                state.executions[token]?.task = task
            } else {
                state.retiredTasks.append(task)  // it finished already
            }
        }
    }

    /// Records a handler's outcome — unless its attempt was settled otherwise meanwhile
    /// (cancelled job, lost lease, timeout): then the result is discarded — and frees its slot.
    private func finish(_ token: LeaseToken, _ outcome: AttemptOutcome) async {
        let settled = state.withLock { state -> (Lease, AttemptOutcome?)? in
            guard var execution = state.executions[token] else { return nil }
            defer { state.executions[token] = execution }
            if execution.isSettled { return (execution.lease, nil) }
            execution.isSettled = true
            if execution.cancellation == .runnerStopped, case .failed(let error, terminal: false) = outcome {
                return (
                    execution.lease,
                    .ended(
                        .failedBecause(
                            .runnerStopped, error: "stopped: the runner was stopped while the job ran (\(error))",
                            terminal: false))
                )
            }
            // A success carries the result its handler set (JobContext.setResult) into its record.
            if outcome == .succeeded, let result = execution.result {
                return (execution.lease, .ended(.succeeded(result: result)))
            }
            return (execution.lease, outcome)
        }
        if let (lease, outcome) = settled {
            if let outcome {
                await recordAndHandOver(outcome, of: lease)
            } else {
                events?.record(.discarded(lease.job.id))
            }
        }
        state.withLock { state in
            if let task = state.executions.removeValue(forKey: token)?.task { state.retiredTasks.append(task) }
        }
        wakeup.post { $0.runnerChanged = true }
    }

    /// Records a handler's outcome and, in the same record, claims the next due job for the slot
    /// it frees (``QueueEngine/handOver(id:token:ending:nextKinds:leaseDuration:)``): one sync per
    /// job in a steady stream, not two. The next job's handler starts only once that record is
    /// durable, so its attempt is counted first, as a claim by the loop counts it; until then the
    /// finished attempt keeps the slot, so the loop cannot claim into it meanwhile, and the next
    /// attempt takes the slot over in one step (``begin(_:_:replacing:)``). When the
    /// outcome itself may make a job due (it had dependents, or retries at once) or leases are to
    /// be reclaimed, the record holds the outcome alone and the loop claims as it always does.
    /// A lost lease discards the outcome; another error stops the runner.
    private func recordAndHandOver(_ outcome: AttemptOutcome, of lease: Lease) async {
        let ending: QueueEngine.AttemptEnd
        switch outcome {
        case .succeeded: ending = .succeeded(result: nil)
        case .failed(let error, let terminal): ending = .failed(error: error, terminal: terminal)
        case .ended(let end): ending = end
        }
        let kinds = claimableKinds(freeing: lease.token)
        let handover: QueueEngine.Handover
        do {
            handover = try await queue.engine.durably {
                try $0.handOver(
                    id: lease.job.id, token: lease.token, ending: ending, nextKinds: kinds,
                    leaseDuration: leaseDuration)
            }
        } catch SpoolError.Code.leaseLost {
            events?.record(.discarded(lease.job.id))
            return
        } catch {
            events?.record(.recordFailed(lease.job.id, "\(error)"))
            stopByItself(error, cancelRunning: false)
            wakeup.post { $0.runnerChanged = true }
            return
        }
        recordEvent(outcome, of: lease)
        guard let next = handover.next else { return }
        let nextLease: Lease
        do {
            nextLease = try queue.makeLease(next)
        } catch {
            // The claimed job's payload does not read back: as for a claim by the loop, the runner stops.
            stopByItself(error, cancelRunning: false)
            wakeup.post { $0.runnerChanged = true }
            return
        }
        await start(nextLease, replacing: lease.token)
        // The loop may have taken the record's change (or a cancel of the job) before the attempt was
        // under way, and found no attempt to settle: it looks at the job again now that there is one.
        wakeup.post { $0.changedJobIDs.insert(next.job.id) }
    }

    /// Records an attempt's outcome durably. A lost lease (the job was cancelled, deleted
    /// or reclaimed meanwhile) discards it; another error stops the runner.
    func record(_ outcome: AttemptOutcome, of lease: Lease) async {
        do {
            switch outcome {
            case .succeeded:
                try await queue.complete(lease)
                events?.record(.succeeded(lease.job.id))
            case .failed(let error, let terminal):
                try await queue.fail(lease, error: error, terminal: terminal)
                events?.record(.failed(lease.job.id, error: error, terminal: terminal))
            case .ended(let end):
                _ = try await queue.engine.durably {
                    try $0.end(id: lease.job.id, token: lease.token, issued: true, ending: end)
                }
                recordEvent(outcome, of: lease)
            }
        } catch SpoolError.Code.leaseLost {
            events?.record(.discarded(lease.job.id))
        } catch {
            events?.record(.recordFailed(lease.job.id, "\(error)"))
            stopByItself(error, cancelRunning: false)
            wakeup.post { $0.runnerChanged = true }
        }
    }
}
