@testable import Spool

/// The reference model of parked jobs and checkpoints (#17 items 1, 2; FORMAT.md, *Parked jobs and
/// checkpoints*): a park lives with the running attempt (a job's ``QueueModel/ModelJob/parkedKey``
/// counts only while it runs; a claim starts without one), a reclaim takes a parked job past its
/// deadline back by the retry policy, a checkpoint survives every end of an attempt but success.
extension QueueModel {
    /// The running job parked under `key`.
    func parkHolder(of key: String) -> String? {
        jobs.values.first { $0.state == .running && $0.parkedKey == key }?.id
    }

    /// Whether job `id` may be parked under `key`: it runs, is not parked, and no other parked job holds the key.
    func canPark(_ id: String, key: String) -> Bool {
        guard let job = jobs[id], job.state == .running, job.parkedKey == nil else { return false }
        return parkHolder(of: key) == nil
    }

    mutating func park(_ id: String, key: String, deadline: Int64) {
        update(id) {
            $0.parkedKey = key
            $0.parkDeadline = deadline
        }
    }

    mutating func checkpoint(_ id: String, data: [UInt8]) {
        update(id) { $0.checkpoint = data }
    }

    /// The parked jobs, in enqueue order.
    var parkedIDs: [String] {
        jobs.values.filter { $0.state == .running && $0.parkedKey != nil }.sorted { $0.sequence < $1.sequence }.map(
            \.id)
    }

    /// Whether a parked job's deadline has passed at `now` (a claim reclaims it first; a handover does not claim).
    func hasExpiredParks(now: Int64) -> Bool {
        parkedIDs.contains { jobs[$0]!.parkDeadline! <= now }
    }

    /// What a claim, or an open, does first: reclaims the parked jobs whose deadline has passed, by the retry policy.
    mutating func reclaimExpiredParks(now: Int64) {
        for id in parkedIDs where jobs[id]!.parkDeadline! <= now {
            fail(id, error: QueueEngine.parkDeadlineReason, terminal: false, now: now)
            // A reclaim, whose stop reason is the lease's expiry (FORMAT.md, *Stops*).
            update(id) { $0.lastStopReason = .leaseExpired }
        }
    }

    /// The failure `reconcileParked(stillPending:)` records for the parked jobs whose keys are not pending.
    /// - Returns: Their ids, in enqueue order.
    mutating func reconcileParked(stillPending: Set<String>, now: Int64) -> [String] {
        let gone = parkedIDs.filter { !stillPending.contains(jobs[$0]!.parkedKey!) }
        for id in gone {
            let key = jobs[id]!.parkedKey!
            fail(id, error: "parked: the system no longer has the work of key \(key)", terminal: false, now: now)
        }
        return gone
    }

    /// The parking and checkpoint fields `queue` shows for `job`, against the model's.
    func parkingDifferences(_ job: Job, _ expected: ModelJob) -> [String] {
        var problems: [String] = []
        let parked = expected.state == .running ? expected.parkedKey : nil
        if job.parkedKey != parked {
            problems.append("\(job.id).parkedKey: queue \(job.parkedKey ?? "-"), model \(parked ?? "-")")
        }
        let deadline = expected.state == .running && parked != nil ? expected.parkDeadline : nil
        if job.parkDeadline.map(Millis.from) != deadline {
            problems.append(
                "\(job.id).parkDeadline: queue \(String(describing: job.parkDeadline)), model \(String(describing: deadline))"
            )
        }
        if job.checkpoint.map(Array.init) != expected.checkpoint {
            problems.append(
                "\(job.id).checkpoint: queue \(job.checkpoint?.count ?? -1) bytes, model \(expected.checkpoint?.count ?? -1)"
            )
        }
        return problems
    }
}
