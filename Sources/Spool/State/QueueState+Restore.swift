// A snapshot's restore, the apply side: a job exactly as recorded, judged by the rules a snapshot's writer
// follows (FORMAT.md, *Snapshots and compaction*, "Writing a snapshot").
extension QueueState {
    /// Recreates a job exactly as a snapshot recorded it.
    mutating func applyRestore(_ restored: consuming StoredJob) throws(Refusal) {
        var job = restored
        job.scheduleVersion = 0
        let idHash = JobTable.hash(of: job.id)
        guard !jobs.contains(job.id, hash: idHash) else { throw .idExists(id: job.id, action: .restore) }
        guard job.sequence > highestSequence else {
            throw .restoredOutOfOrder(id: job.id, sequence: job.sequence, previous: highestSequence)
        }
        guard (job.state == .running) == (job.lease != nil) else {
            throw .restoredLeaseMismatch(id: job.id)
        }
        for (index, prerequisite) in job.waitingFor.enumerated() where job.waitingFor[..<index].contains(prerequisite) {
            throw .restoredPrerequisiteTwice(id: job.id, prerequisite: prerequisite)
        }
        // A running job waits for nothing: its prerequisites succeeded before it was claimed.
        if job.state == .running, let prerequisite = job.waitingFor.first {
            throw .runsBeforePrerequisite(id: job.id, action: .restore, prerequisite: prerequisite)
        }
        // An unfinished job waits only for unfinished jobs (the chain rule), restored before it: a
        // prerequisite is always enqueued before its dependents, so a snapshot in enqueue order has it.
        if !job.state.isFinished {
            for prerequisite in job.waitingFor where jobs[prerequisite]?.state.isFinished != false {
                throw .restoredWaitingForFinished(id: job.id, prerequisite: prerequisite)
            }
        }
        if let key = job.uniqueKey, !job.state.isFinished {
            // Jobs are restored in enqueue order, so the last unfinished carrier of a key
            // takes it last; an earlier one still holding it must be its prerequisite (policy append).
            if let holder = uniqueKeys[key], !job.waitingFor.contains(holder) {
                throw .uniqueKeyHeld(id: job.id, action: .restore, key: key, holder: holder)
            }
            takeUniqueKey(key, for: job.id)
        }
        nextSequence = max(nextSequence, job.sequence + 1)
        highestSequence = job.sequence
        count(job.state, by: 1)
        if job.state == .running { runningIDs.insert(job.id) }
        for prerequisite in job.waitingFor { dependents[prerequisite, default: []].append(job.id) }
        if job.state == .enqueued && !job.isBlocked { ready.insert(job) }
        // Last: the job moves into the table rather than being copied there.
        jobs.insertNew(job, hash: idHash)
    }
}
