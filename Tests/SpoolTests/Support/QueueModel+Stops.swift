@testable import Spool

/// The model of the stop operations: attempts released (given back) and snoozed.
extension QueueModel {
    /// A running attempt given back after an interruption: enqueued, due as before, one attempt fewer.
    mutating func release(_ id: String, reason: StopReason) {
        update(id) { job in
            job.state = .enqueued
            job.nextRetryAt = nil
            job.attempts = max(0, job.attempts - 1)
            job.lastStopReason = reason
        }
    }

    /// A running attempt snoozed until `runAt`: given back, kept (given back on the last attempt,
    /// never counting past the budget) or counted (the last one ends the job failed).
    mutating func snooze(_ id: String, runAt: Int64, attempt: SnoozeAttempt, now: Int64) {
        let last = jobs[id]!.attempts >= jobs[id]!.maxAttempts
        if attempt == .count && last {
            fail(id, error: "snoozed with no attempt left", terminal: true, now: now)
            update(id) { $0.lastStopReason = .snoozed }
            return
        }
        update(id) { job in
            job.state = .enqueued
            job.nextRetryAt = nil
            job.runAt = runAt
            if attempt == .giveBack || (attempt == .keep && last) { job.attempts = max(0, job.attempts - 1) }
            job.lastStopReason = .snoozed
        }
    }
}
