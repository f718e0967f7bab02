/// Changing an unfinished job's constraints (`set_constraints`, FORMAT.md *Changing a job's constraints*).
extension QueueEngine {
    /// Records that job `id`'s constraints become `constraints`. The rule is apply's own
    /// (``QueueState/checkSetConstraints(_:)``), judged before anything is written: an unknown job is
    /// `jobNotFound`, a finished one `invalidState`. Constraints equal to the job's write nothing.
    func update(_ id: JobID, constraints: JobConstraints) throws -> Pending<StoredJob> {
        try withOpenState {
            let job = try Self.checked { () throws(Refusal) in try state.checkSetConstraints(id.rawValue).job }
            for name in constraints.requiredConditions {
                try JobLimits.checkText(name, name: "condition name", maxBytes: JobLimits.maxKindBytes)
            }
            let stored: JobConstraints? = constraints.isEmpty ? nil : constraints
            guard job.constraints != stored else { return Pending(job, writer.lastAppendedLSN) }
            let lsn = try commit([PlannedOperation(.setConstraints(id: id.rawValue, constraints: stored))])
            return Pending(state.jobs[id.rawValue]!, lsn)
        }
    }
}
