/// Turns one ``JobMigration`` into the steps it records (`migrate_job`, `migration_remove`), from
/// the state as it is: reads each visited job's payload, asks the app's transform, checks its
/// answer. It writes nothing; the engine records the steps between a begin and a commit.
struct MigrationPlanner {
    let migration: JobMigration
    let now: Int64
    let maximumPayloadSize: Int

    /// The steps of the migration over `state`, in enqueue order of the jobs they come from.
    func plan(_ state: QueueState, payload: (StoredJob) throws -> [UInt8]) throws -> [PlannedOperation] {
        var steps: [PlannedOperation] = []
        var takenIDs = Set(state.jobs.values.lazy.map(\.id))
        let visited = state.jobs.values.filter { $0.state != .succeeded }.inEnqueueOrder()
        for job in visited {
            let bytes = try payload(job)
            let action = migration.transform(Job(job), Data(bytes))
            switch action {
            case .keep:
                if let ended = overBudget(MigratedJob(job)) { steps.append(.migrating(ended, newPayload: nil)) }
            case .rewrite(let kind, let newPayload):
                var image = MigratedJob(job)
                if let kind {
                    try check { try JobLimits.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes) }
                    image.kind = kind
                }
                if let newPayload { try checkPayload(newPayload, of: job.id) }
                steps.append(.migrating(overBudget(image) ?? image, newPayload: newPayload))
            case .split(let replacements) where replacements.isEmpty:
                steps.append(.migrating(dropped(job), newPayload: nil))
            case .split(let replacements):
                // Replacements are new jobs: they would not carry the original's constraints, prerequisites,
                // schedule or dependents, so such a job is rewritten or dropped, never split.
                let hasDependents =
                    state.dependents[job.id]?.contains { state.jobs[$0]?.state.isFinished == false } ?? false
                guard !job.hasOptions, !hasDependents else {
                    throw failure(
                        "job \(job.id) has constraints, prerequisites, dependents or a periodic schedule, "
                            + "which its replacements would lose: rewrite or drop it instead of splitting it")
                }
                steps.append(PlannedOperation(.migrationRemove(id: job.id)))
                takenIDs.remove(job.id)
                for (index, replacement) in replacements.enumerated() {
                    let id = replacement.id?.rawValue ?? Self.replacementID(of: job.id, position: index + 1)
                    try check {
                        try JobLimits.checkText(id, name: "job id", maxBytes: JobLimits.maxIDBytes)
                        try JobLimits.checkText(replacement.kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
                        if let key = replacement.uniqueKey {
                            try JobLimits.checkText(key, name: "unique key", maxBytes: JobLimits.maxUniqueKeyBytes)
                        }
                    }
                    guard takenIDs.insert(id).inserted else {
                        throw failure("a replacement of job \(job.id) takes the id \(id), which is taken")
                    }
                    try checkPayload(replacement.payload, of: job.id)
                    guard let priority = Int32(exactly: replacement.priority ?? Int(job.priority)) else {
                        throw failure("a replacement of job \(job.id) has a priority that does not fit in 32 bits")
                    }
                    var image = MigratedJob(job)
                    image.id = id
                    image.kind = replacement.kind
                    image.priority = priority
                    image.uniqueKey = replacement.uniqueKey
                    if job.state == .running {
                        image.state = .enqueued
                        image.lease = nil
                    }
                    steps.append(.migrating(overBudget(image) ?? image, newPayload: replacement.payload))
                }
            case .drop:
                steps.append(.migrating(dropped(job), newPayload: nil))
            case .invalid(let reason):
                var image = MigratedJob(job)
                image.state = .failed
                image.lease = nil
                image.nextRetryAt = nil
                image.finishedAt = now
                image.lastError = truncated("invalid since migration \(migration.number): \(reason)")
                steps.append(.migrating(image, newPayload: nil))
            }
        }
        return steps
    }

    /// Tries the migration's `steps` on a trial of `state` (``QueueState/trial()``) exactly as replay applies them (a begin, the
    /// steps, the commit), so that nothing is written that replay would refuse. The steps apply in order
    /// at the commit, each judged in the state the steps before it leave (a unique key that an earlier
    /// step's cascade freed may be taken by a later replacement): a unique key is judged by the state's
    /// one rule, ``QueueState/uniqueKeyEffect(ofMigrated:)``, whose refusal names the job holding it.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` naming the migration and the step that does not fit.
    func check(_ steps: [PlannedOperation], on state: QueueState) throws {
        var scratch = state.trial()
        let number = UInt64(migration.number)
        do {
            try scratch.apply(.migrationBegin(number: number, at: now))
            for step in steps { try scratch.apply(step.operation) }
            try scratch.apply(.migrationCommit(number: number))
        } catch {
            throw failure("\(error)")
        }
    }

    /// The id a replacement without one takes: `<original id>/<position>`, or, when that would be over
    /// the id limit, the original id cut at a Unicode scalar boundary, `~`, the 16 hex digits of the FNV-1a 64
    /// of the whole original id, then `/<position>`: within the limit, and the same on every run.
    static func replacementID(of original: String, position: Int) -> String {
        let suffix = "/\(position)"
        if original.utf8.count + suffix.utf8.count <= JobLimits.maxIDBytes { return original + suffix }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in original.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        let tag = "~" + String(repeating: "0", count: 16 - digits.count) + digits + suffix
        let room = JobLimits.maxIDBytes - tag.utf8.count
        // Cut at a Unicode scalar boundary, so the id stays valid UTF-8.
        var base = String.UnicodeScalarView()
        var used = 0
        for scalar in original.unicodeScalars {
            used += scalar.utf8.count
            guard used <= room else { break }
            base.append(scalar)
        }
        return String(base) + tag
    }

    /// An enqueued job whose attempts are spent ends failed for good (it could never run again).
    private func overBudget(_ image: MigratedJob) -> MigratedJob? {
        guard image.state == .enqueued, image.attempts >= image.maxAttempts else { return nil }
        var ended = image
        ended.state = .failed
        ended.nextRetryAt = nil
        ended.finishedAt = now
        ended.lastError = truncated(
            "attempts spent (\(image.attempts) of \(image.maxAttempts)) at migration \(migration.number)")
        return ended
    }

    private func dropped(_ job: StoredJob) -> MigratedJob {
        var image = MigratedJob(job)
        image.state = .cancelled
        image.lease = nil
        image.nextRetryAt = nil
        image.finishedAt = now
        image.lastError = truncated(
            "dropped by migration \(migration.number)" + (migration.name.isEmpty ? "" : " (\(migration.name))"))
        return image
    }

    private func checkPayload(_ payload: Data, of id: String) throws {
        guard payload.count <= maximumPayloadSize else {
            throw failure(
                "the new payload of job \(id) is \(payload.count) bytes, over the limit of \(maximumPayloadSize)")
        }
    }

    private func check(_ body: () throws -> Void) throws {
        do { try body() } catch let error as SpoolError { throw failure(error.message) }
    }

    func failure(_ message: String) -> SpoolError {
        SpoolError(
            .invalidArgument,
            "job migration \(migration.number)"
                + (migration.name.isEmpty ? "" : " (\(migration.name))") + ": \(message); nothing was written")
    }

    private func truncated(_ text: String) -> String {
        guard text.utf8.count > JobLimits.maxErrorBytes else { return text }
        var cut = String(decoding: text.utf8.prefix(JobLimits.maxErrorBytes), as: UTF8.self)
        while cut.utf8.count > JobLimits.maxErrorBytes { cut.removeLast() }
        return cut
    }
}
