import Foundation

@testable import Spool

extension WorkloadOp {
    /// Some of the workload's failures are stops instead: a release (for each interruption) or a snooze
    /// (each attempt mode); `nil` for a failure.
    static func stopOp(pick: Int) -> WorkloadOp? {
        let interruptions: [StopReason] = [.runnerStopped, .systemTimeExpired, .constraintsUnmet]
        switch pick % 8 {
        case 6: return .release(pick: pick / 8, reason: interruptions[pick % interruptions.count])
        case 7:
            return .snooze(
                pick: pick / 8, delay: Int64(pick % 3) * 700, attempt: SnoozeAttempt.allCases[pick % 3])
        default: return nil
        }
    }
}

extension SimulationRun {
    /// Runs a release or a snooze of a held lease against the queue and `next`. Returns whether the
    /// model accepts it, or `nil` when no lease is held (nothing to do).
    func performStop(_ op: WorkloadOp, queue: JobQueue, next: inout QueueModel) throws -> Bool? {
        let held = leases.keys.sorted()
        guard !held.isEmpty else { return nil }
        let now = Millis.from(clock.now())
        switch op {
        case .release(let pick, let reason):
            let id = held[pick % held.count]
            let lease = leases[id]!
            let accepted = next.jobs[id]?.state == .running
            if accepted { next.release(id, reason: reason) }
            leases[id] = nil
            try queue.release(lease, reason: reason)
            return accepted
        case .snooze(let pick, let delay, let attempt):
            let id = held[pick % held.count]
            let lease = leases[id]!
            let accepted = next.jobs[id]?.state == .running
            if accepted { next.snooze(id, runAt: now + delay, attempt: attempt, now: now) }
            leases[id] = nil
            try queue.snooze(lease, until: Millis.date(now + delay), attempt: attempt)
            return accepted
        default:
            return nil
        }
    }
}
