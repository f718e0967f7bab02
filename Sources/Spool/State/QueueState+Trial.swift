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
        guard operations.count > 1 else { return operations.first.flatMap { refusal(of: $0.operation) } }
        var trial = self.trial()
        for index in operations.indices.dropLast() {
            do {
                try trial.apply(operations[index].operation)
            } catch {
                return error
            }
        }
        return trial.refusal(of: operations[operations.count - 1].operation)
    }
}
