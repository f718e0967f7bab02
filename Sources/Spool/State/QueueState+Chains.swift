// The chain rule: prerequisites, dependents, the propagation of a finished job to the jobs waiting for it.
extension QueueState {
    /// Removes a job that is about to disappear from the dependents index.
    mutating func forgetPrerequisites(of job: StoredJob) {
        for prerequisite in job.waitingFor {
            dependents[prerequisite]?.removeAll { $0 == job.id }
            if dependents[prerequisite]?.isEmpty == true { dependents[prerequisite] = nil }
        }
    }

    /// The chain rule, applied when a job finished: its success unblocks the jobs
    /// waiting for it (each runs once all its prerequisites succeeded); its failure
    /// or cancellation cancels every unfinished job waiting for it, transitively,
    /// at the same instant. A worklist, not recursion: chains may be long.
    mutating func propagate(from finishedID: String) {
        var worklist = [finishedID]
        while let id = worklist.popLast() {
            guard let prerequisite = jobs[id], prerequisite.state.isFinished, let waiting = dependents[id] else {
                continue
            }
            if prerequisite.state == .succeeded {
                dependents[id] = nil
                for dependentID in waiting {
                    guard var dependent = jobs[dependentID] else { continue }
                    dependent.waitingFor.removeAll { $0 == id }
                    // The prerequisite's result goes with its success to the job that waited for it.
                    if let result = prerequisite.result { dependent.prerequisiteResults[id] = result }
                    storeOne(dependent)
                    cascadedIDs.append(dependentID)
                }
            } else {
                for dependentID in waiting {
                    guard var dependent = jobs[dependentID], !dependent.state.isFinished else { continue }
                    finish(&dependent, as: .cancelled, at: prerequisite.finishedAt ?? dependent.createdAt)
                    storeOne(dependent)
                    cascadedIDs.append(dependentID)
                    if dependents[dependentID] != nil { worklist.append(dependentID) }
                }
            }
        }
    }

    /// The unfinished jobs that cancelling the jobs `ids` would cancel by the chain rule, transitively.
    func unfinishedDependents(of ids: [String]) -> Set<String> {
        var found = Set<String>()
        var worklist = ids
        while let id = worklist.popLast() {
            for dependentID in dependents[id] ?? [] {
                guard let dependent = jobs[dependentID], !dependent.state.isFinished,
                    found.insert(dependentID).inserted
                else { continue }
                worklist.append(dependentID)
            }
        }
        return found
    }

    /// The cancels of the unfinished jobs `ids` — and by the chain rule of the jobs waiting for them —
    /// in one record: one per id that no other of them reaches, in enqueue order (apply refuses a cancel
    /// of a job an earlier cancel already cancelled).
    func cancels(of ids: [String], at now: Int64) -> [LogOperation] {
        let reached = unfinishedDependents(of: ids)
        return ids.filter { !reached.contains($0) }
            .sorted { jobs[$0]!.sequence < jobs[$1]!.sequence }
            .map { .cancel(id: $0, at: now) }
    }

    /// The unfinished jobs carrying `tag`.
    func unfinishedJobs(tagged tag: String) -> [String] {
        jobs.values.filter { !$0.state.isFinished && $0.tags.contains(tag) }.map(\.id)
    }
}
