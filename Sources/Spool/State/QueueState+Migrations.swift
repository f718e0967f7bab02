// Job migrations, the apply side: the steps a commit applies, and abandoning a pending migration.
extension QueueState {
    /// The end of the log: a migration still pending was cut short by a crash and never happened.
    mutating func abandonPendingMigration() {
        pendingMigration = nil
    }

    /// One step of a committed migration.
    mutating func applyMigrationStep(_ step: LogOperation) throws(Refusal) {
        switch step {
        case .migrationRemove(let id):
            guard let job = jobs[id] else { throw .noSuchJob(id: id, action: .migrationRemove) }
            try checkNotAwaited(id, for: .migrationRemove)
            remove(job)
        case .migrateJob(let image):
            let previous = jobs[image.id]
            guard let payload = image.payload ?? previous?.payload else {
                throw .migratedWithoutPayload(id: image.id)
            }
            guard (image.state == .running) == (image.lease != nil),
                !(image.state.isFinished && image.nextRetryAt != nil)
            else {
                throw .migratedInconsistent(id: image.id)
            }
            let keyEffect = try uniqueKeyEffect(ofMigrated: image)
            if var job = previous {
                // The job keeps its place, unique key, constraints, prerequisites and schedule; `store`
                // keeps the indexes in step and cancels its dependents if the migration ended it.
                guard image.uniqueKey == job.uniqueKey, image.createdAt == job.createdAt else {
                    throw .migratedKeyChanged(id: image.id)
                }
                job.kind = image.kind
                job.state = image.state
                job.attempts = image.attempts
                job.maxAttempts = image.maxAttempts
                job.priority = image.priority
                job.runAt = image.runAt
                job.nextRetryAt = image.nextRetryAt
                job.finishedAt = image.finishedAt
                job.lastError = image.lastError
                job.payload = payload
                job.lease = image.lease
                store(job)
                return
            }
            let job = StoredJob(
                id: image.id, kind: image.kind, state: image.state, attempts: image.attempts,
                maxAttempts: image.maxAttempts, priority: image.priority,
                sequence: nextSequence, createdAt: image.createdAt,
                runAt: image.runAt, nextRetryAt: image.nextRetryAt, finishedAt: image.finishedAt,
                uniqueKey: image.uniqueKey, lastError: image.lastError, payload: payload,
                lease: image.lease)
            nextSequence += 1
            if case .takes(let key) = keyEffect { takeUniqueKey(key, for: job.id) }
            count(job.state, by: 1)
            if job.state == .running { runningIDs.insert(job.id) }
            jobs[job.id] = job
            if job.state == .enqueued { ready.insert(job) }
        default:
            throw .notAMigrationStep(id: step.jobID)
        }
    }
}
