// Unique keys: taking and releasing them, their carriers, and the key effect of a migrated job.
extension QueueState {
    /// Makes `id` the holder of `key`; a previous holder (the prerequisite of a job
    /// enqueued with policy append) stays an earlier carrier.
    mutating func takeUniqueKey(_ key: String, for id: String) {
        if let holder = uniqueKeys[key], holder != id { earlierKeyCarriers[key, default: []].append(holder) }
        uniqueKeys[key] = id
    }

    /// A finished job gives up its unique key: the latest earlier carrier, if any, holds it next.
    mutating func releaseUniqueKey(of job: StoredJob) {
        guard let key = job.uniqueKey else { return }
        if uniqueKeys[key] == job.id {
            uniqueKeys[key] = earlierKeyCarriers[key]?.popLast()
        } else {
            earlierKeyCarriers[key]?.removeAll { $0 == job.id }
        }
        if earlierKeyCarriers[key]?.isEmpty == true { earlierKeyCarriers[key] = nil }
    }

    /// Every unfinished job carrying `key`, in enqueue order: with policy append, a chain of
    /// jobs shares a key, the last one holding it.
    func unfinishedCarriers(of key: String) -> [String] {
        guard let holder = uniqueKeys[key] else { return [] }
        return (earlierKeyCarriers[key] ?? []) + [holder]
    }

    /// What a `migrate_job` step does with the unique key its image carries.
    enum MigratedKeyEffect: Equatable {
        /// Nothing: the image has no key or is finished, or the job was unfinished and keeps carrying its key.
        case none
        /// A new unfinished job takes its key, which no job holds.
        case takes(key: String)
        /// A finished job given an unfinished image does not take its key back, free or held: a
        /// migration never moves a key. The engine writes this only for a job that an earlier step's
        /// cascade cancelled, which the commit's chain rule cancels again; one the commit leaves
        /// unfinished loses its key (``QueueState/dropKeysOfRevivedJobs(_:)``).
        case leaves(key: String)
    }

    /// The one rule for a migration's images and unique keys (FORMAT.md, `migrate_job`), judged in the
    /// state as the step finds it: ``applyMigrationStep(_:)`` applies it, and the migration planner's
    /// check reports its refusal. A new unfinished job takes its key when it is free and is refused
    /// when another unfinished job holds it; an existing job's image takes no key (its key must stay the
    /// same; an image that ends the job frees it, as any end does): finished to unfinished, the job
    /// does not take it back (and loses it if the commit leaves it unfinished).
    /// That is how every earlier build applied these records, so every log they wrote still opens.
    func uniqueKeyEffect(ofMigrated image: MigratedJob) throws(Refusal) -> MigratedKeyEffect {
        guard let key = image.uniqueKey, !image.state.isFinished else { return .none }
        if let previous = jobs[image.id] {
            return previous.state.isFinished ? .leaves(key: key) : .none
        }
        if let holder = uniqueKeys[key] {
            throw .uniqueKeyHeld(id: image.id, action: .migrateJob, key: key, holder: holder)
        }
        return .takes(key: key)
    }
}
