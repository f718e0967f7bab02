/// Trials: a transaction's operations tried with ``apply(_:)`` itself, on a copy of the state that
/// shares the state's storage, before the engine writes anything.
///
/// A transaction's later operations meet the state its earlier ones leave (a batch's job waits for
/// one enqueued before it, a delete follows the cancels of its dependents): the trial applies them in
/// order, so each is judged by the one set of rules (QueueState+Rules.swift) in that state, with no
/// second account of what the earlier ones did.
extension QueueState {
    /// A copy of the state for ``apply(_:)`` only (rules and look-ups by id, key and prerequisite;
    /// not claims, counts of running jobs or invariants): O(1), and what apply changes in it costs
    /// what the change touches, not the queue's size. Its job table keeps the changes in an overlay
    /// (``JobTable/startTrial()``), its ready index takes no inserts, and it tracks no running ids;
    /// the other indexes are copied on their first change, as any value is.
    func trial() -> QueueState {
        var trial = self
        trial.jobs.startTrial()
        trial.ready.isSuspended = true
        trial.runningIDs = []
        trial.cascadedIDs = []
        return trial
    }

    /// What ``apply(_:)`` refuses in the transaction `operations`, judged before any is written:
    /// `nil` when it takes every one, in order. A single operation is judged in the state as it is
    /// (no trial); each later one of a transaction in a trial that the ones before it were applied to.
    func refusal(ofTransaction operations: [PlannedOperation]) -> Refusal? {
        guard operations.count > 1 else { return operations.first.flatMap(refusal(ofPlanned:)) }
        var trial = self.trial()
        for index in operations.indices.dropLast() {
            do {
                try trial.apply(Self.trialForm(of: operations[index]))
            } catch {
                return error
            }
        }
        return trial.refusal(ofPlanned: operations[operations.count - 1])
    }

    /// What ``apply(_:)`` would refuse the planned `operation` for in the state as it is (see ``refusal(of:)``).
    func refusal(ofPlanned operation: PlannedOperation) -> Refusal? {
        switch operation {
        case .other(let other):
            return refusal(of: other)
        case .enqueue(let new):
            // The enqueue rule directly: no operation is made for it (the live path's common case).
            do {
                _ = try checkEnqueue(
                    id: new.id, idHash: JobTable.hash(of: new.id), dependencies: new.options.dependencies,
                    isPeriodic: new.options.periodic != nil, uniqueKey: new.uniqueKey)
                return nil
            } catch {
                return error
            }
        case .migrateJob:
            return refusal(of: Self.trialForm(of: operation))
        }
    }

    /// The operation apply is given for a planned one in a trial: as it will be recorded, but for where
    /// its new payload will be (unknown before the record is appended, and no rule reads it).
    static func trialForm(of operation: PlannedOperation) -> LogOperation {
        switch operation {
        case .other(let other):
            return other
        case .enqueue(let new):
            return .enqueue(
                .init(
                    id: new.id, kind: new.kind, payload: unwrittenPayload, priority: new.priority,
                    createdAt: new.createdAt, runAt: new.runAt, maxAttempts: new.maxAttempts,
                    uniqueKey: new.uniqueKey, options: new.options))
        case .migrateJob(var job, let payload):
            if payload != nil { job.payload = unwrittenPayload }
            return .migrateJob(job)
        }
    }

    /// The payload location a trial gives a payload not written yet.
    static let unwrittenPayload = PayloadLocation(fileSequence: 0, offset: 0, length: 0, checksum: 0)
}
