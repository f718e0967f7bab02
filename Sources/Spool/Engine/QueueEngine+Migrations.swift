import Dispatch

/// The app's job migrations and unrunnable kinds, applied at open.
extension QueueEngine {
    // MARK: Job migrations

    /// Checks the registered migrations' numbers (each at least 1, none twice).
    ///
    /// - Returns: The highest number, or `nil` when none is registered.
    static func checkMigrationNumbers(_ migrations: [JobMigration]) throws -> Int? {
        let registered = migrations.map(\.number).sorted()
        for (index, number) in registered.enumerated() {
            guard number >= 1 else {
                throw SpoolError.invalidArgument("job migration numbers start at 1; found \(number)")
            }
            if index > 0, registered[index - 1] == number {
                throw SpoolError.invalidArgument("job migration \(number) is registered twice")
            }
        }
        return registered.last
    }

    /// Refuses a queue whose jobs were migrated further than the highest registered migration
    /// (a build that registers none opens it, as a tool does).
    static func refuseNewerMigrations(applied: UInt64, highest: Int?, path: String) throws {
        guard let highest, applied > UInt64(highest) else { return }
        throw SpoolError(
            .newerMigrations,
            "the queue's jobs were migrated up to job migration \(applied); this build registers migrations up to \(highest)",
            path: path)
    }

    /// Applies every registered migration above the queue's applied number, in order. Call during init only.
    ///
    /// Each is planned in full from the state (nothing is written when the app's transform gives an
    /// answer that does not fit), then recorded as `migration_begin`, its steps in records of about
    /// ``Configuration/migrationRecordBytes``, and `migration_commit` in the last record: replay applies
    /// the steps only when it reads the commit, so a crash anywhere leaves the jobs as before or as after.
    ///
    /// - Returns: The numbers applied, and the LSN of the last commit.
    func runMigrations() throws -> Pending<[Int]> {
        let registered = configuration.migrations.sorted { $0.number < $1.number }
        // The numbers were checked, and the applied number against them, before open repaired anything.
        let applied = lock.withLock { state.appliedMigration }
        var done: [Int] = []
        var lastLSN: UInt64?
        for migration in registered where UInt64(migration.number) > applied {
            lastLSN = try record(migration)
            done.append(migration.number)
        }
        return Pending(done, lastLSN)
    }

    /// Plans, checks and records one migration; returns the LSN of its commit. Nothing else runs
    /// meanwhile (open has not returned, background compaction waits for it), so the plan is made
    /// from a copy of the state outside the lock (payload reads take it) and stays true.
    func record(_ migration: JobMigration) throws -> UInt64 {
        let now = nowMillis
        let planner = MigrationPlanner(
            migration: migration, now: now,
            maximumPayloadSize: configuration.maximumPayloadSize)
        let steps = try planner.plan(lock.withLock { state }) { try self.payload(at: $0.payload) }
        return try lock.withLock {
            let number = UInt64(migration.number)
            // The live path must never write what apply refuses: the whole migration is tried on a copy first.
            try planner.check(steps, on: state)
            var record: [PlannedOperation] = [PlannedOperation(.migrationBegin(number: number, at: now))]
            var recordBytes = 0
            for step in steps {
                let bytes = Self.estimatedBytes(step)
                if recordBytes + bytes > configuration.migrationRecordBytes, !record.isEmpty {
                    _ = try commit(record)
                    record = []
                    recordBytes = 0
                }
                record.append(step)
                recordBytes += bytes
            }
            record.append(PlannedOperation(.migrationCommit(number: number)))
            return try commit(record)
        }
    }

    static func estimatedBytes(_ step: PlannedOperation) -> Int {
        guard case .migrateJob(let job) = step.operation else { return 64 }
        return 96 + job.id.utf8.count + job.kind.utf8.count + (job.uniqueKey?.utf8.count ?? 0)
            + (job.lastError?.utf8.count ?? 0) + (step.payload?.count ?? 0)
    }

    /// Ends failed every enqueued or running job whose kind is not in ``Configuration/knownKinds``, but those
    /// the chain rule cancels first (they wait for one of them). Call during init only.
    func abandonUnrunnableJobs() throws -> Pending<[JobID]> {
        guard let known = configuration.knownKinds else { return Pending([], nil) }
        return try lock.withLock {
            let now = nowMillis
            let candidates = state.jobs.values
                .filter { !$0.state.isFinished && !known.contains($0.kind) }
                .inEnqueueOrder()
            // Abandoning a job cancels the unfinished jobs waiting for it, transitively (chain rule): a
            // candidate among those is cancelled by an earlier abandon (a prerequisite is always enqueued
            // before its dependents), and its own abandon would not apply. They are left out.
            let cascaded = state.unfinishedDependents(of: candidates.map(\.id))
            let unrunnable = candidates.filter { !cascaded.contains($0.id) }
            var lastLSN: UInt64?
            var start = 0
            while start < unrunnable.count {
                // Each operation is at most a few hundred bytes: far below the record limit in groups of 10 000.
                let batch = unrunnable[start..<min(start + 10_000, unrunnable.count)]
                lastLSN = try commit(
                    batch.map {
                        PlannedOperation(
                            .abandon(id: $0.id, at: now, reason: "this build cannot run jobs of kind \($0.kind)"))
                    })
                start += batch.count
            }
            return Pending(unrunnable.map { JobID($0.id) }, lastLSN)
        }
    }

    /// The number of the last job migration the queue applied; 0 before the first.
    var appliedMigration: Int { lock.withLock { Int(clamping: state.appliedMigration) } }
}
