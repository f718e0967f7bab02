/// One attempt: the handler's task, and the record of its outcome.
extension JobRunner {
    /// Starts the handler of a claimed job in its own task. Called by the loop only.
    func begin(_ lease: Lease, _ registration: Registration) {
        let now = clock.now()
        let token = lease.token
        let timeout = registration.options.timeout
        state.withLock { state in
            // The claim asked for the runner's lease duration: its renewal falls half way through that.
            state.executions[token] = Execution(lease: lease, term: leaseDuration, kind: lease.job.kind,
                                                timeout: timeout, timeoutAt: timeout.map { now.addingTimeInterval($0) })
        }
        let context = JobContext(job: lease.job, token: token, runner: self)
        let task = Task {
            let outcome: AttemptOutcome
            do {
                try await registration.run(lease.payload, context)
                outcome = .succeeded
            } catch let failure as TerminalJobFailure {
                outcome = .failed(failure.reason, terminal: true)
            } catch let failure as UndecodablePayload {
                outcome = .failed(failure.description, terminal: true)
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
                return (execution.lease, .failed("stopped: the runner was stopped while the job ran (\(error))",
                                                 terminal: false))
            }
            return (execution.lease, outcome)
        }
        if let (lease, outcome) = settled {
            if let outcome {
                await record(outcome, of: lease)
            } else {
                events?.record(.discarded(lease.job.id))
            }
        }
        state.withLock { state in
            if let task = state.executions.removeValue(forKey: token)?.task { state.retiredTasks.append(task) }
        }
        wakeup.post { $0.runnerChanged = true }
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
