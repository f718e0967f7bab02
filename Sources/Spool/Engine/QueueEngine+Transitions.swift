import Dispatch

/// Enqueue and the manual transitions: cancel, retry, reschedule, delete.
extension QueueEngine {
    // MARK: Enqueue

    func enqueue(_ request: NewJob) throws -> Pending<JobID> {
        let planned = try validate(request, now: nowMillis)
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
                    try validate(
                        requests[index], now: now,
                        generatedID: requests[index].id == nil ? generatedIDs.popLast() : nil))
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

    /// Checks a request and makes its enqueue; `generatedID` is its id when it names none (a fresh UUID by default).
    func validate(_ request: NewJob, now: Int64, generatedID: String? = nil) throws -> NewEnqueue {
        try Self.validate(request, now: now, generatedID: generatedID, configuration: configuration)
    }

    /// Checks a request against `configuration` and makes its enqueue (the owner's and a producer's one rule).
    static func validate(
        _ request: NewJob, now: Int64, generatedID: String? = nil, configuration: Configuration
    ) throws -> NewEnqueue {
        try Self.checkText(request.kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        try Self.checkKnown(kind: request.kind, jobID: request.id, configuration: configuration)
        if let key = request.uniqueKey {
            try Self.checkText(key, name: "unique key", maxBytes: JobLimits.maxUniqueKeyBytes)
        }
        if let id = request.id { try Self.checkText(id.rawValue, name: "job id", maxBytes: JobLimits.maxIDBytes) }
        guard request.payload.count <= configuration.maximumPayloadSize else {
            throw SpoolError.invalidArgument(
                "the payload of \(request.payload.count) bytes is over the limit of \(configuration.maximumPayloadSize)"
            )
        }
        guard request.delay >= 0, request.delay < JobLimits.maxDelay else {
            throw SpoolError.invalidArgument(
                "the delay must be at least 0 s and under \(Int64(JobLimits.maxDelay)) s, not \(request.delay)")
        }
        guard JobLimits.priorities.contains(request.priority), let priority = Int32(exactly: request.priority) else {
            throw SpoolError.invalidArgument(
                "priority must be from \(JobLimits.priorities.lowerBound) to \(JobLimits.priorities.upperBound), not \(request.priority)"
            )
        }
        if let policy = request.retryPolicy {
            try policy.validate()
            if case .table(let delays) = policy.schedule, delays.count > RetriesCodec.maxTableDelays {
                throw SpoolError.invalidArgument(
                    "a job's own retry table holds at most \(RetriesCodec.maxTableDelays) delays, not \(delays.count)")
            }
        }
        let maxAttempts =
            request.maxAttempts ?? request.retryPolicy?.maxAttempts ?? configuration.retryPolicy.maxAttempts
        guard (1...JobLimits.maxAttempts).contains(maxAttempts) else {
            throw SpoolError.invalidArgument("maxAttempts must be from 1 to \(JobLimits.maxAttempts)")
        }
        if let runAt = request.runAt {
            guard Millis.isRepresentable(runAt) else {
                throw SpoolError.invalidArgument("runAt must be a finite date between the years 1 and 9999")
            }
        }
        var options = EnqueueOptions()
        for name in request.constraints.requiredConditions {
            try Self.checkText(name, name: "condition name", maxBytes: JobLimits.maxKindBytes)
        }
        options.constraints = request.constraints.isEmpty ? nil : request.constraints
        var seen = Set<String>()
        for dependency in request.dependencies {
            try Self.checkText(dependency.rawValue, name: "prerequisite id", maxBytes: JobLimits.maxIDBytes)
            if seen.insert(dependency.rawValue).inserted { options.dependencies.append(dependency.rawValue) }
        }
        if let periodic = request.periodic {
            guard periodic.interval.isFinite, periodic.interval >= PeriodicSchedule.minimumInterval,
                periodic.interval < 1e9
            else {
                throw SpoolError.invalidArgument(
                    "a periodic interval must be at least \(Int(PeriodicSchedule.minimumInterval)) seconds")
            }
            guard
                periodic.flex == 0
                    || (periodic.flex >= PeriodicSchedule.minimumFlex && periodic.flex <= periodic.interval)
            else {
                throw SpoolError.invalidArgument(
                    "a periodic flex must be 0 or from \(Int(PeriodicSchedule.minimumFlex)) seconds to the interval")
            }
            guard request.dependencies.isEmpty, request.uniquePolicy != .append else {
                throw SpoolError.invalidArgument("a periodic job cannot have prerequisites nor be appended to a chain")
            }
            options.periodic = (Millis.from(seconds: periodic.interval), Millis.from(seconds: periodic.flex))
        }
        let tags = try Self.checkTags(request.tags)
        let base = request.runAt.map(Millis.from) ?? now
        return NewEnqueue(
            id: request.id?.rawValue ?? generatedID ?? RandomPool.shared.nextUUIDString(), kind: request.kind,
            payload: request.payload, priority: Int64(priority), createdAt: now,
            runAt: base + Millis.from(seconds: request.delay), maxAttempts: Int64(maxAttempts),
            uniqueKey: request.uniqueKey, options: options, tags: tags,
            retrySchedule: request.retryPolicy.map { RetriesCodec.stored($0.schedule) })
    }

    static func checkText(_ text: String, name: String, maxBytes: Int) throws {
        let count = text.utf8.count
        guard count > 0 else { throw SpoolError.invalidArgument("the \(name) is empty") }
        guard count <= maxBytes else {
            throw SpoolError.invalidArgument("the \(name) is \(count) bytes, over the limit of \(maxBytes)")
        }
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
            let lsn = try commit([.other(.cancel(id: id.rawValue, at: nowMillis))])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }

    func retry(_ id: JobID) throws -> Pending<StoredJob> {
        try withOpenState {
            let job = try Self.checked { () throws(Refusal) in
                try state.located(id.rawValue, in: QueueState.retryableStates, for: .retry).job
            }
            try checkKnown(kind: job.kind, jobID: id)
            try Self.checked { () throws(Refusal) in _ = try state.checkRetry(id.rawValue) }
            let lsn = try commit([.other(.retry(id: id.rawValue, at: nowMillis))])
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
            let lsn = try commit([.other(.reschedule(id: id.rawValue, runAt: Millis.from(runAt), at: nowMillis))])
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
            return Pending((), try commit(cancels(of: waiting, at: now) + [.other(.delete(id: id.rawValue))]))
        }
    }

    /// Cancels of the unfinished jobs `ids`, in enqueue order, leaving out those that the cascade
    /// of another one's cancel reaches (apply cancels them; an explicit cancel would not apply).
    func cancels(of ids: [String], at now: Int64) -> [PlannedOperation] {
        state.cancels(of: ids, at: now).map { .other($0) }
    }

    /// Cancels every unfinished job `select` picks, and what the chain rule cancels with them, in one record.
    /// - Returns: The jobs this cancelled, in enqueue order, and the LSN (`nil` when nothing was unfinished).
    func cancel(where select: (StoredJob) -> Bool) throws -> Pending<[StoredJob]> {
        try withOpenState {
            let targets = state.jobs.values.filter { !$0.state.isFinished && select($0) }.map(\.id)
            guard !targets.isEmpty else { return Pending([], nil) }
            let all = Set(targets).union(state.unfinishedDependents(of: targets))
            let lsn = try commit(cancels(of: targets, at: nowMillis))
            return Pending(all.compactMap { state.jobs[$0] }.sorted { $0.sequence < $1.sequence }, lsn)
        }
    }

    /// Cancels every unfinished job carrying unique key `key` (a chain built with policy append carries one key).
    func cancel(uniqueKey key: String) throws -> Pending<[StoredJob]> {
        try withOpenState {
            let targets = state.unfinishedCarriers(of: key)
            guard !targets.isEmpty else { return Pending([], nil) }
            let all = Set(targets).union(state.unfinishedDependents(of: targets))
            let lsn = try commit(cancels(of: targets, at: nowMillis))
            return Pending(all.compactMap { state.jobs[$0] }.sorted { $0.sequence < $1.sequence }, lsn)
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
