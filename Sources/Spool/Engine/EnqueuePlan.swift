/// The operations of one enqueue record (a single job or a batch), planned
/// against the state as if the jobs were enqueued one by one.
///
/// It resolves unique keys (keep, replace, append), checks prerequisites, and
/// keeps track of what the record's earlier operations will have done when
/// ``QueueState/apply(_:)`` reaches each one: which jobs the record cancels
/// (explicitly, or by the chain rule's cascade inside apply) and which jobs of
/// the record carry which key. Apply then finds every operation applicable.
///
/// A job's id is hashed once, for the look-up in the state's table and in this plan's own.
struct EnqueuePlan {
    var operations: [PlannedOperation] = []
    /// Jobs of this plan: whether each is periodic and whether it is cancelled when enqueued.
    private var newJobs = PlannedJobs()
    /// Key → jobs of this plan carrying it (not cancelled at birth), in order.
    private var newCarriers: [String: [String]] = [:]
    /// Prerequisite id → jobs of this plan that wait for it.
    private var newDependents: [String: [String]] = [:]
    /// Jobs the record cancels, explicitly or by cascade.
    private var cancelled = Set<String>()

    /// A plan with room for `jobs` jobs (a batch's size), so that it does not grow as it fills.
    init(jobs: Int = 1) {
        operations.reserveCapacity(jobs)
        newJobs.reserveCapacity(jobs)
    }

    /// Plans one job; returns the id the caller gets (the holder's, with policy keep).
    /// `planned` is consumed: its strings and payload move into the plan without a copy.
    mutating func add(_ request: borrowing NewJob, _ planned: consuming NewEnqueue, to state: QueueState) throws -> JobID {
        var job = planned
        if let key = job.uniqueKey, let holder = holder(of: key, in: state) {
            switch request.uniquePolicy {
            case .keep:
                return JobID(holder)
            case .replace:
                let carriers = (state.unfinishedCarriers(of: key) + (newCarriers[key] ?? [])).filter { !cancelled.contains($0) }
                cancel(carriers, in: state, at: job.createdAt)
            case .append:
                // Waits for the holder: a periodic holder is refused below, by the chain rule, as apply does.
                if !job.options.dependencies.contains(holder) { job.options.dependencies.append(holder) }
            }
        }
        let idHash = JobTable.hash(of: job.id)
        guard !state.jobs.contains(job.id, hash: idHash), newJobs.find(job.id, hash: idHash) == nil else {
            throw Refusal.idExists(id: job.id, action: .enqueue).error
        }
        var cancelledAtBirth = false
        for dependency in job.options.dependencies {
            if let prerequisite = state.jobs[dependency] {
                if [.failed, .cancelled].contains(prerequisite.state) { cancelledAtBirth = true }
            } else if let prerequisite = newJobs[dependency] {
                if prerequisite.cancelledAtBirth { cancelledAtBirth = true }
            } else {
                throw Refusal.prerequisiteMissing(id: job.id, prerequisite: dependency).error
            }
            guard !isPeriodic(dependency, in: state) else {
                throw Refusal.periodicInChain(id: job.id, other: dependency).error
            }
            if cancelled.contains(dependency) { cancelledAtBirth = true }
        }
        for dependency in job.options.dependencies where !(state.jobs[dependency]?.state == .succeeded) {
            newDependents[dependency, default: []].append(job.id)
        }
        newJobs.insert(PlannedJobs.Entry(id: job.id, periodic: job.options.periodic != nil,
                                         cancelledAtBirth: cancelledAtBirth), hash: idHash)
        if let key = job.uniqueKey, !cancelledAtBirth { newCarriers[key, default: []].append(job.id) }
        let id = JobID(job.id)
        operations.append(.enqueue(job))
        return id
    }

    /// The job holding `key` when apply reaches the next operation: the last unfinished carrier.
    private func holder(of key: String, in state: QueueState) -> String? {
        (state.unfinishedCarriers(of: key) + (newCarriers[key] ?? [])).last { !cancelled.contains($0) }
    }

    private func isPeriodic(_ id: String, in state: QueueState) -> Bool {
        state.jobs[id].map { $0.periodic != nil } ?? newJobs[id]?.periodic ?? false
    }

    /// Plans cancels of `targets`: one operation for each that no other target's cascade reaches.
    private mutating func cancel(_ targets: [String], in state: QueueState, at: Int64) {
        let reached = dependents(of: targets, in: state)
        for id in targets where !reached.contains(id) {
            operations.append(.other(.cancel(id: id, at: at)))
        }
        cancelled.formUnion(targets)
        cancelled.formUnion(reached)
    }

    /// The unfinished jobs, in the state or in this plan, that wait for `ids`, transitively.
    private func dependents(of ids: [String], in state: QueueState) -> Set<String> {
        var found = Set<String>()
        var worklist = ids
        while let id = worklist.popLast() {
            let waiting = (state.dependents[id] ?? []).filter { state.jobs[$0]?.state.isFinished == false }
                + (newDependents[id] ?? []).filter { newJobs[$0]?.cancelledAtBirth == false }
            for dependent in waiting where !cancelled.contains(dependent) && found.insert(dependent).inserted {
                worklist.append(dependent)
            }
        }
        return found
    }
}

/// The jobs of one plan by id: a list plus a ``HashIndex`` keyed by ``JobTable/hash(of:)``,
/// the hash the state's table uses, so that planning a job hashes its id once for both.
private struct PlannedJobs {
    struct Entry {
        let id: String
        let periodic: Bool
        let cancelledAtBirth: Bool
    }

    private var entries: [Entry] = []
    private var index = HashIndex()

    mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
        index.reserve(count)
    }

    /// The job with `id`, whose ``JobTable/hash(of:)`` is `hash`.
    func find(_ id: String, hash: UInt32) -> Entry? {
        index.firstMatch(hash: hash) { entries[$0].id == id }.map { entries[$0.position] }
    }

    subscript(id: String) -> Entry? { find(id, hash: JobTable.hash(of: id)) }

    /// Adds a job whose id the plan does not hold yet.
    mutating func insert(_ entry: Entry, hash: UInt32) {
        index.insert(hash: hash, position: entries.count, growingFor: entries.count + 1)
        entries.append(entry)
    }
}
