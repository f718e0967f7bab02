// Job migrations, the apply side: the steps a commit applies, and abandoning a pending migration.
extension QueueState {
    /// The end of the log: a migration still pending was cut short by a crash and never happened.
    mutating func abandonPendingMigration() {
        pendingMigration = nil
    }

    /// One step of a committed migration. Returns the id of a finished job the step gave an unfinished image
    /// while it carries a unique key (``MigratedKeyEffect/leaves(key:)``): the commit drops that key if the
    /// job is still unfinished once the chain rule holds again (``dropKeysOfRevivedJobs(_:)``).
    @discardableResult
    mutating func applyMigrationStep(_ step: LogOperation) throws(Refusal) -> String? {
        switch step {
        case .migrationRemove(let id):
            guard let job = jobs[id] else { throw .noSuchJob(id: id, action: .migrationRemove) }
            try checkNotAwaited(id, for: .migrationRemove)
            remove(job)
            return nil
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
                // Every attempt spent was started: a migration that sets more attempts counts as many starts.
                job.starts = max(job.starts, image.attempts)
                job.maxAttempts = image.maxAttempts
                job.priority = image.priority
                job.runAt = image.runAt
                job.nextRetryAt = image.nextRetryAt
                job.finishedAt = image.finishedAt
                job.lastError = image.lastError
                job.payload = payload
                job.lease = image.lease
                if job.state == .running, let prerequisite = job.waitingFor.first {
                    throw .runsBeforePrerequisite(id: job.id, action: .migrateJob, prerequisite: prerequisite)
                }
                store(job)
                if case .leaves = keyEffect { return job.id }
                return nil
            }
            let job = StoredJob(
                id: image.id, kind: image.kind, state: image.state, attempts: image.attempts,
                maxAttempts: image.maxAttempts, priority: image.priority,
                sequence: nextSequence, createdAt: image.createdAt,
                runAt: image.runAt, nextRetryAt: image.nextRetryAt, finishedAt: image.finishedAt,
                uniqueKey: image.uniqueKey, lastError: image.lastError, payload: payload,
                lease: image.lease)
            highestSequence = max(highestSequence, nextSequence)
            nextSequence += 1
            if case .takes(let key) = keyEffect { takeUniqueKey(key, for: job.id) }
            count(job.state, by: 1)
            if job.state == .running { runningIDs.insert(job.id) }
            jobs[job.id] = job
            if job.state == .enqueued { ready.insert(job) }
            return nil
        default:
            throw .notAMigrationStep(id: step.jobID)
        }
    }

    /// The chain rule after a commit: every job a step gave an image waits, when unfinished, only for
    /// unfinished jobs (a revived job whose prerequisite is gone or finished without success would wait
    /// for ever, or run before it).
    func checkMigratedChains(_ ids: [String]) throws(Refusal) {
        for id in ids {
            guard let job = jobs[id], !job.state.isFinished else { continue }
            if let prerequisite = job.waitingFor.first(where: { jobs[$0]?.state.isFinished != false }) {
                throw .migratedWaitingForFinished(id: id, prerequisite: prerequisite)
            }
        }
    }

    /// The rule for a finished carrier of a unique key that a migration revives (FORMAT.md, `migrate_job`):
    /// a migration never moves a key, so the revived job does not take its key back, and one still
    /// unfinished once the commit restored the chain rule carries no key from then on (its `unique_key` is
    /// dropped). Otherwise it would carry a key it neither holds nor waits behind — a key no rule could
    /// ever give it, which the unique-key index cannot express. (The engine writes such an image only for a
    /// job an earlier step's cascade cancelled, which the commit cancels again, keeping its key as every
    /// finished job does.)
    mutating func dropKeysOfRevivedJobs(_ revived: [String]) {
        for id in revived {
            guard var job = jobs[id], !job.state.isFinished, job.uniqueKey != nil else { continue }
            job.uniqueKey = nil
            store(job)
        }
    }
}
