import Dispatch

/// The worker runtime's handover: the outcome of one attempt and the claim of the next job for the
/// same slot in one record, so one sync per job instead of two.
///
/// A lone ``complete(id:token:issued:)``, ``fail(id:token:issued:error:terminal:)`` or
/// ``claim(kinds:leaseDuration:)`` keeps its own record; only the runtime, which knows that its
/// slot is free the moment the outcome is recorded, hands over.
extension QueueEngine {
    /// How an attempt ended, as the handover records it.
    enum AttemptEnd: Equatable {
        /// Succeeded, recording `result` with the success (``JobLimits/maxResultBytes`` at most).
        case succeeded(result: [UInt8]?)
        case failed(error: String, terminal: Bool)
        /// A failure for another reason than the handler's error (a timeout, a stop that counts).
        case failedBecause(StopReason, error: String, terminal: Bool)
        /// Given back: an interruption (``StopReason/isInterruption``).
        case released(StopReason)
        /// Run again at the time (milliseconds), the attempt as asked.
        case snoozed(until: Int64, attempt: SnoozeAttempt)
    }

    /// What a handover did.
    struct Handover {
        /// The job whose attempt ended, as the record left it.
        var finished: StoredJob
        /// The job claimed in the same record, under its new lease; `nil` when none was due or
        /// when the claim was not made here (``claimedHere``).
        var next: Claimed?
        /// Whether the record looked for the next job. When it did not, the outcome may itself
        /// have made a job due (a prerequisite succeeded or failed, a retry due at once) or an
        /// expired lease is waiting to be reclaimed: the runtime claims on its own, as before,
        /// against the state the outcome left.
        var claimedHere: Bool
    }

    /// Records the end of the attempt on job `id` held under `token` and, in the same record,
    /// claims the best due job among `nextKinds` (as ``claim(kinds:leaseDuration:)`` would
    /// right after it), under a lease of `leaseDuration` seconds. `nextKinds` `nil`: no claim.
    ///
    /// The claim is chosen against the state before the outcome applies, which is the state
    /// after it whenever the outcome makes no job due: the job ends finished or due later, no
    /// unfinished job waits for it, and no expired lease is to be reclaimed. Otherwise only the
    /// outcome is recorded (``Handover/claimedHere`` false). Either way one record: a crash
    /// leaves both the outcome and the claim, or neither.
    ///
    /// When the record claims a job, the change feed's subscriber `madeBy` (the runner's) is not
    /// told of it: the record changes the finished job and the claimed one only (no job waits for
    /// the finished one, so nothing cascades), and the runner knows both. Without a claim every
    /// subscriber is told, as for any record: the slot is free.
    func handOver(
        id: JobID, token: LeaseToken, ending: AttemptEnd, nextKinds: KindSet?,
        leaseDuration: TimeInterval?, madeBy subscriber: UInt64? = nil
    ) throws -> Pending<Handover> {
        let duration = leaseDuration ?? configuration.leaseDuration
        try JobLimits.checkLeaseDuration(duration)
        return try withOpenState {
            let now = nowMillis
            var operations: [PlannedOperation]
            switch ending {
            case .succeeded(let result):
                if let result { try Self.checkResult(result) }
                let job = try leasedJob(id, token: token, issued: true, for: .complete)
                operations = completion(of: job, token: token, at: now, result: result)
            case .failed(let error, let terminal):
                let job = try leasedJob(id, token: token, issued: true, for: .fail)
                operations = failure(of: job, token: token, error: error, terminal: terminal, at: now)
            case .failedBecause, .released, .snoozed:
                operations = try stopOperations(id: id, token: token, ending: ending, issued: true, at: now)
            }
            var next: StoredJob?
            let claimsHere =
                nextKinds != nil && !makesDue(operations, now: now)
                && state.unfinishedDirectDependents(of: id.rawValue).isEmpty && expiredLeaseReclaims(now: now).isEmpty
            if claimsHere, let nextKinds, let job = state.bestReadyJob(at: now, kinds: nextKinds) {
                next = job
                operations.append(claimOperation(of: job, at: now, duration: duration))
            }
            let lsn = try commit(operations, madeBy: next == nil ? nil : subscriber)
            return Pending(
                Handover(
                    finished: state.jobs[id.rawValue]!, next: next.map { claimed($0.id) },
                    claimedHere: claimsHere), lsn)
        }
    }

    /// Whether `operations` (an outcome's) put a job back due at or before `now`.
    private func makesDue(_ operations: [PlannedOperation], now: Int64) -> Bool {
        operations.contains { operation in
            switch operation {
            case .other(.fail(_, _, _, _, let nextRetryAt?)): return nextRetryAt <= now
            case .other(.nextOccurrence(_, _, let runAt)): return runAt <= now
            case .other(.release): return true
            case .other(.snooze(_, _, _, let runAt, _)): return runAt <= now
            default: return false
            }
        }
    }
}
