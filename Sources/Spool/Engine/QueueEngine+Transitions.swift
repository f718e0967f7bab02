import Dispatch

/// Enqueue and the manual transitions: cancel, retry, reschedule, delete.
extension QueueEngine {
    // MARK: Enqueue

    func enqueue(_ request: NewJob) throws -> Pending<JobID> {
        let planned = try request.validated(now: nowMillis, configuration: configuration)
        return try withOpenState {
            var plan = EnqueuePlan(over: state)
            let id = try plan.add(request, planned)
            let checked = plan.finish()
            guard !checked.operations.isEmpty else { return Pending(id, writer.lastAppendedLSN) }
            return Pending(id, try commit(checked))
        }
    }

    /// Enqueues every job of `requests` in one record: all of them or none.
    ///
    /// Every job is validated before anything is written. Unique keys are
    /// resolved in order, as if the jobs were enqueued one by one: a job whose
    /// key is held — by an unfinished job or by an earlier job of the batch —
    /// keeps the holder (its id is returned, nothing is written for it),
    /// replaces it (cancels of the key's unfinished jobs go into the same record)
    /// or is chained after it (append).
    ///
    /// - Returns: One id per request, in order, and the record's LSN.
    func enqueue(contentsOf requests: [NewJob]) throws -> Pending<[JobID]> {
        let now = nowMillis
        // The ids the batch lacks, drawn together (one lock, not one per job).
        // The loops go by index: a request taken out of the array (as `enumerated()` does) is a
        // copy, a retain and a release of each of its references per job.
        var unnamed = 0
        for index in requests.indices where requests[index].id == nil { unnamed += 1 }
        var generatedIDs = RandomPool.shared.nextUUIDStrings(unnamed)
        // Optional, so that planning can take each job out of the array (see `plan`).
        var planned: [NewEnqueue?] = []
        planned.reserveCapacity(requests.count)
        for index in requests.indices {
            do {
                planned.append(
                    try requests[index].validated(
                        now: now, generatedID: requests[index].id == nil ? generatedIDs.popLast() : nil,
                        configuration: configuration))
            } catch let error as SpoolError {
                throw SpoolError(error.code, "job \(index) of the batch: \(error.message)", jobID: error.jobID)
            }
        }
        return try withOpenState {
            let (checked, ids) = try Self.plan(requests, &planned, against: state)
            guard !checked.operations.isEmpty else { return Pending(ids, writer.lastAppendedLSN) }
            return Pending(ids, try commit(checked))
        }
    }

    /// Plans the validated jobs `planned` of `requests`, in order. A function of its own so that
    /// `state` is borrowed once for the whole batch (not copied for each job) and let go before
    /// the commit changes it. Each job of `planned` moves into the plan uncopied, leaving nil.
    private static func plan(
        _ requests: [NewJob], _ planned: inout [NewEnqueue?],
        against state: QueueState
    ) throws -> (CheckedOperations, [JobID]) {
        var plan = EnqueuePlan(jobs: requests.count, over: state)
        var ids: [JobID] = []
        ids.reserveCapacity(requests.count)
        for index in requests.indices {
            ids.append(try plan.add(requests[index], planned[index].take()!))
        }
        return (plan.finish(), ids)
    }

    // MARK: Other transitions

    func cancel(_ id: JobID) throws -> Pending<StoredJob> {
        try withOpenState {
            // Cancelling a cancelled job changes nothing and writes nothing.
            if let job = state.jobs[id.rawValue], job.state == .cancelled {
                return Pending(job, writer.lastAppendedLSN)
            }
            try Self.checked { () throws(Refusal) in
                _ = try state.located(id.rawValue, in: QueueState.cancellableStates, for: .cancel)
            }
            let lsn = try commit([PlannedOperation(.cancel(id: id.rawValue, at: nowMillis))])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    func retry(_ id: JobID) throws -> Pending<StoredJob> {
        try withOpenState {
            let job = try Self.checked { () throws(Refusal) in
                try state.located(id.rawValue, in: QueueState.retryableStates, for: .retry).job
            }
            try configuration.checkKnown(kind: job.kind, jobID: id)
            try Self.checked { () throws(Refusal) in _ = try state.checkRetry(id.rawValue) }
            let lsn = try commit([PlannedOperation(.retry(id: id.rawValue, at: nowMillis))])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    func reschedule(_ id: JobID, runAt: Date) throws -> Pending<StoredJob> {
        try withOpenState {
            try Self.checked { () throws(Refusal) in
                _ = try state.located(id.rawValue, in: QueueState.reschedulableStates, for: .reschedule)
            }
            guard Millis.isRepresentable(runAt) else {
                throw SpoolError.invalidArgument("runAt must be a finite date between the years 1 and 9999")
            }
            let lsn = try commit([
                PlannedOperation(.reschedule(id: id.rawValue, runAt: Millis.from(runAt), at: nowMillis))
            ])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    /// Deletes a job. The unfinished jobs waiting for it are cancelled by the chain rule in the
    /// same record: the delete operation carries no time, so their cancels are written before it
    /// (their own dependents then follow by the cascade inside apply).
    func delete(_ id: JobID) throws -> Pending<Void> {
        try withOpenState {
            guard state.jobs[id.rawValue] != nil else {
                throw Refusal.noSuchJob(id: id.rawValue, action: .delete).error
            }
            let now = nowMillis
            // The removal rule (``QueueState/checkNotAwaited(_:for:)``) holds once these are cancelled.
            let waiting = state.unfinishedDirectDependents(of: id.rawValue)
            return Pending((), try commit(cancels(of: waiting, at: now) + [PlannedOperation(.delete(id: id.rawValue))]))
        }
    }

    /// Cancels of the unfinished jobs `ids`, in enqueue order, leaving out those that the cascade
    /// of another one's cancel reaches (apply cancels them; an explicit cancel would not apply).
    func cancels(of ids: [String], at now: Int64) -> [PlannedOperation] {
        state.cancels(of: ids, at: now).map { PlannedOperation($0) }
    }

    /// Cancels every unfinished job `select` picks, and what the chain rule cancels with them, in one record.
    /// - Returns: The jobs this cancelled, in enqueue order, and the LSN (`nil` when nothing was unfinished).
    func cancel(where select: (StoredJob) -> Bool) throws -> Pending<[StoredJob]> {
        try withOpenState {
            let targets = state.jobs.values.filter { !$0.state.isFinished && select($0) }.map(\.id)
            guard !targets.isEmpty else { return Pending([], nil) }
            let all = Set(targets).union(state.unfinishedDependents(of: targets))
            let lsn = try commit(cancels(of: targets, at: nowMillis))
            return Pending(all.compactMap { state.jobs[$0] }.inEnqueueOrder(), lsn)
        }
    }

    /// Cancels every unfinished job carrying unique key `key` (a chain built with policy append carries one key).
    func cancel(uniqueKey key: String) throws -> Pending<[StoredJob]> {
        try withOpenState {
            let targets = state.unfinishedCarriers(of: key)
            guard !targets.isEmpty else { return Pending([], nil) }
            let all = Set(targets).union(state.unfinishedDependents(of: targets))
            let lsn = try commit(cancels(of: targets, at: nowMillis))
            return Pending(all.compactMap { state.jobs[$0] }.inEnqueueOrder(), lsn)
        }
    }

    /// Runs a rule of the state, turning its refusal into the error of the one table (``Refusal/error``).
    static func checked<T>(_ rule: () throws(Refusal) -> T) throws(SpoolError) -> T {
        do {
            return try rule()
        } catch {
            throw error.error
        }
    }

    func existingJob(_ id: JobID) throws -> StoredJob {
        guard let job = state.jobs[id.rawValue] else { throw SpoolError(.jobNotFound, "no such job", jobID: id) }
        return job
    }
}
