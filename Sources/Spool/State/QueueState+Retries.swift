// A job's own retry schedule and how often it started, the apply side (FORMAT.md, "Retry policies and starts").
extension QueueState {
    /// Applies `retry_table`, `retry_exponential` or `starts`: each sets a field of an existing job, in any state.
    mutating func applyRetries(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .retrySchedule(let id, let schedule):
            let (found, position) = try located(id, in: JobState.allCases, for: .retrySchedule)
            var job = found
            job.retrySchedule = schedule
            storeOne(job, at: position)
        case .starts(let id, let count):
            let (found, position) = try checkStarts(id, count)
            var job = found
            job.starts = count
            storeOne(job, at: position)
        default:
            preconditionFailure("not a retry schedule or starts operation")
        }
    }

    /// The rule of `retry_table`, `retry_exponential` and `starts`: the job exists; a job's starts are at
    /// least its attempts (every attempt spent was started).
    func checkRetries(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .retrySchedule(let id, _): _ = try located(id, in: JobState.allCases, for: .retrySchedule)
        case .starts(let id, let count): _ = try checkStarts(id, count)
        default: preconditionFailure("not a retry schedule or starts operation")
        }
    }

    private func checkStarts(_ id: String, _ count: Int32) throws(Refusal) -> (job: StoredJob, position: Int) {
        let (job, position) = try located(id, in: JobState.allCases, for: .starts)
        guard count >= job.attempts else { throw .startsBelowAttempts(id: id, starts: count, attempts: job.attempts) }
        return (job, position)
    }
}
