// The stop operations, the apply side: a released attempt, a snooze, a stop reason (FORMAT.md, "Stops").
extension QueueState {
    /// Applies `release`, `snooze` or `stop_reason`.
    mutating func applyStop(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .release(let id, let token, _, let reason):
            let (found, position) = try leased(id, token: token, for: .release)
            var job = found
            job.lastStopReason = reason
            requeue(&job, runAt: nil, givesBack: true)
            store(job, at: position)
        case .snooze(let id, let token, _, let runAt, let givesBack):
            let (found, position) = try leased(id, token: token, for: .snooze)
            var job = found
            job.lastStopReason = .snoozed
            requeue(&job, runAt: runAt, givesBack: givesBack)
            store(job, at: position)
        case .stopReason(let id, let reason):
            let (found, position) = try located(id, in: JobState.allCases, for: .stopReason)
            var job = found
            job.lastStopReason = reason
            storeOne(job, at: position)
        default:
            preconditionFailure("not a stop operation")
        }
    }

    /// A running attempt ends without a result: the job is enqueued again, due at `runAt` (or as it
    /// was, for a release), with the attempt given back (the claim's count undone) when `givesBack`.
    private func requeue(_ job: inout StoredJob, runAt: Int64?, givesBack: Bool) {
        job.lease = nil
        job.state = .enqueued
        job.nextRetryAt = nil
        if let runAt { job.runAt = runAt }
        if givesBack { job.attempts = max(0, job.attempts - 1) }
    }
}
