/// A handler parking its job or recording a checkpoint (``JobContext/park(key:deadline:start:)``,
/// ``JobContext/checkpoint(_:)``).
extension JobRunner {
    /// Parks the job of the attempt under `token`. The attempt is settled first, so that nothing the
    /// loop does meanwhile (a timeout) records an outcome for it; a refused park unsettles it again.
    func park(_ token: LeaseToken, key: String, deadline: Date) async throws {
        let lease = state.withLock { state -> Lease? in
            guard let execution = state.executions[token], !execution.isSettled else { return nil }
            state.executions[token]?.isSettled = true
            return execution.lease
        }
        guard let lease else { throw SpoolError(.leaseLost, "the attempt is over") }
        do {
            try await queue.park(lease, key: key, deadline: deadline)
            events?.record(.parked(lease.job.id, key: key))
        } catch {
            state.withLock { $0.executions[token]?.isSettled = false }
            // The loop may have chosen its next wake while the attempt was settled, leaving out its
            // renewal and timeout: it looks again.
            wakeup.post { $0.runnerChanged = true }
            throw error
        }
    }

    /// Fails the job parked under `key`, whose work (``JobContext/park(key:deadline:start:)``'s `start`)
    /// threw `error` before it began, as a parked job's failure by key does. A job completed or failed by
    /// key meanwhile is left as it is; should the record fail, the park's deadline brings the job back.
    func parkedWorkDidNotStart(key: String, error: any Error) async {
        _ = try? await queue.failParked(key: key, error: "the parked work did not start: \(error)")
    }

    /// Records a checkpoint for the attempt under `token`, renewing its lease for the runner's lease duration.
    func checkpoint(_ token: LeaseToken, _ data: Data) async throws {
        guard let lease = state.withLock({ $0.executions[token]?.lease }) else {
            throw SpoolError(.leaseLost, "the attempt is over")
        }
        let (renewed, lsn) = try await queue.checkpointRecorded(lease, data, for: leaseDuration)
        state.withLock { $0.executions[token]?.adopt(renewed, term: leaseDuration, lsn: lsn) }
        wakeup.post { $0.runnerChanged = true }
    }

    /// Frees the slot of a parked attempt: nothing is recorded.
    func release(_ token: LeaseToken) async {
        state.withLock { state in
            if let task = state.executions.removeValue(forKey: token)?.task { state.retiredTasks.append(task) }
        }
        wakeup.post { $0.runnerChanged = true }
    }
}
