/// The operations of one enqueue record (a single job or a batch), planned
/// against the state as if the jobs were enqueued one by one.
///
/// It resolves unique keys (keep, replace, append) and judges each operation by the state's rules
/// (``QueueState/apply(_:)`` itself) in the state the record's earlier operations leave: a trial
/// (``QueueState/trial()``) that each is applied to in turn. A refused operation is refused before
/// anything is written, for the reason replay would give; the operations it hands to the commit
/// (``finish()``) are exactly those apply takes, in order.
///
/// The first operation is judged in the state itself: a single job makes no trial.
struct EnqueuePlan {
    private(set) var operations: [PlannedOperation] = []
    /// The state as apply will find the next operation: the state the plan began from while it has
    /// at most one operation (judged there, not applied), then a trial with every operation applied.
    private var state: QueueState
    private var isTrial = false
    /// The jobs the plan is for, so that a trial has room for them.
    private let jobs: Int

    /// A plan over `state` with room for `jobs` jobs (a batch's size), so that it does not grow as it fills.
    init(jobs: Int = 1, over state: QueueState) {
        operations.reserveCapacity(jobs)
        self.state = state
        self.jobs = jobs
    }

    /// Plans one job; returns the id the caller gets (the holder's, with policy keep).
    /// `planned` is consumed: its strings and payload move into the plan without a copy.
    mutating func add(_ request: borrowing NewJob, _ planned: consuming NewEnqueue) throws -> JobID {
        try add(policy: request.uniquePolicy, planned)
    }

    /// Plans one job whose key (if any) is resolved by `policy`; see ``add(_:_:)``.
    mutating func add(policy: UniquePolicy, _ planned: consuming NewEnqueue) throws -> JobID {
        var new = planned
        do {
            try catchUp()
            if let key = new.job.uniqueKey, let holder = state.uniqueKeys[key] {
                switch policy {
                case .keep:
                    return JobID(holder)
                case .replace:
                    // In enqueue order; one that an earlier one's cancel cancelled by the chain rule is left out
                    // (apply refuses a second cancel).
                    for carrier in state.unfinishedCarriers(of: key) {
                        try catchUp()
                        let cancel = LogOperation.cancel(id: carrier, at: new.job.createdAt)
                        if state.refusal(of: cancel) == nil { try record(PlannedOperation(cancel)) }
                    }
                case .append:
                    // Waits for the holder: a periodic holder is refused by the chain rule, as apply does.
                    if !new.job.options.dependencies.contains(holder) { new.job.options.dependencies.append(holder) }
                }
            }
            let id = JobID(new.job.id)
            try record(new.planned)
            // Its tags follow the enqueue in the same record (FORMAT.md, "Results and tags"), then its own
            // retry schedule (FORMAT.md, "Retry policies and starts").
            if !new.tags.isEmpty { try record(PlannedOperation(.tags(id: id.rawValue, tags: new.tags))) }
            if let schedule = new.retrySchedule {
                try record(PlannedOperation(.retrySchedule(id: id.rawValue, schedule)))
            }
            return id
        } catch {
            throw error.error
        }
    }

    /// Plans one job if the rules take it, all of it or nothing (a producer's job, which the owner's
    /// ingestion drops when refused): a refused one — its enqueue, or a cancel its policy replace
    /// makes — leaves the plan as it was. Returns whether an enqueue was recorded (`false` too for a
    /// key kept by its holder, policy keep, which records nothing).
    mutating func addIfTaken(policy: UniquePolicy, _ planned: consuming NewEnqueue) -> Bool {
        addIfTaken(policy: policy, planned, then: { _ in [] })
    }

    /// Plans one job and the operations `then` makes for it (a claim and a park: a producer's job that
    /// arrives parked), all of them or nothing, as ``addIfTaken(policy:_:)`` does; `then` is not asked
    /// when the job's key is kept by its holder.
    mutating func addIfTaken(
        policy: UniquePolicy, _ planned: consuming NewEnqueue, then: (String) -> [LogOperation]
    ) -> Bool {
        let (savedCount, savedState, savedTrial) = (operations.count, state, isTrial)
        do {
            let id = try add(policy: policy, planned)
            guard operations.count > savedCount else { return false }
            for operation in then(id.rawValue) { try record(PlannedOperation(operation)) }
            return true
        } catch {
            operations.removeSubrange(savedCount...)
            (state, isTrial) = (savedState, savedTrial)
            return false
        }
    }

    /// Adds an operation that is not an enqueue if the rules take it where it comes; returns whether
    /// it was (a producer's cancel of a job that is finished or unknown is dropped so).
    mutating func addIfTaken(_ operation: LogOperation) -> Bool {
        do {
            try record(PlannedOperation(operation))
            return true
        } catch {
            return false
        }
    }

    /// The job `id` as apply will find it after the operations planned so far (`nil` when there is none).
    mutating func job(_ id: String) -> StoredJob? {
        guard (try? catchUp()) != nil else { return nil }
        return state.jobs[id]
    }

    /// Adds the cancels of every job carrying `tag` that is unfinished where the plan stands, and of the
    /// jobs waiting for them (a producer's cancel by tag, ``InboxRequest/cancelTagged(tag:at:)``), as
    /// ``QueueState/cancels(of:at:)`` plans them for the owner's own cancel by tag.
    mutating func addCancels(tagged tag: String, at now: Int64) {
        do {
            try catchUp()
        } catch {
            return
        }
        for cancel in state.cancels(of: state.unfinishedJobs(tagged: tag), at: now) {
            _ = addIfTaken(cancel)
        }
    }

    /// The planned operations, for ``QueueEngine/commit(_:)-(CheckedOperations)``; lets go of the
    /// state, which the commit is about to change (a copy kept would make it copy the job table).
    mutating func finish() -> CheckedOperations {
        state = QueueState()
        return CheckedOperations(operations: operations)
    }

    /// Adds `operation` if the rules take it where it comes: in the state, for the first operation;
    /// applied to the trial, for a later one.
    private mutating func record(_ operation: PlannedOperation) throws(Refusal) {
        try catchUp()
        if isTrial {
            try state.apply(operation.operation)
        } else if let refusal = state.refusal(of: operation.operation) {
            throw refusal
        }
        operations.append(operation)
    }

    /// Makes ``state`` what apply finds after every operation so far: a trial, once there is one.
    private mutating func catchUp() throws(Refusal) {
        guard !isTrial, let first = operations.first else { return }
        state = state.trial()
        state.jobs.reserveCapacity(jobs)
        isTrial = true
        try state.apply(first.operation)
    }
}

/// Operations that the state's rules take in order, as ``EnqueuePlan`` judged them: the commit
/// appends them without judging them again. Only a plan makes one.
struct CheckedOperations {
    let operations: [PlannedOperation]

    fileprivate init(operations: [PlannedOperation]) {
        self.operations = operations
    }
}
