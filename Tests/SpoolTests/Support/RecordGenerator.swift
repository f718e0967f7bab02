import Foundation

@testable import Spool

/// Random records of any operation, including many the engine never writes (claims of blocked jobs,
/// ends of jobs not running, restores in odd orders, migrated images of any state), for
/// ``RecordAgreementTests``. Each record is built from a peek at the state the records before it
/// made, so that most operations name jobs that exist and tokens that hold, and are thus judged by
/// the rules rather than refused for a missing job.
struct RecordGenerator {
    var random: SeededGenerator
    /// The ids, kinds, keys and tags drawn from: few, so that operations meet.
    let ids = ["a", "b", "c", "d", "e", "f"]
    let kinds = ["k", "m"]
    let keys = ["K", "L"]
    /// The instant records are stamped around (ms since 1970).
    static let t: Int64 = 1_800_000_000_000
    private var migration: UInt64 = 0

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    private mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    private mutating func time() -> Int64 { Self.t + Int64.random(in: -5_000...5_000, using: &random) }
    private mutating func id() -> String { pick(ids) }

    /// A token that holds for `id` in `state` most of the time.
    private mutating func token(_ id: String, _ state: QueueState) -> UInt64 {
        if chance(80), let lease = state.jobs[id]?.lease { return lease.token }
        return UInt64.random(in: 1...3, using: &random)
    }

    /// The payload bytes every generated job points to (any location replay accepts).
    static let payload = PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0)

    /// A record of one to three operations.
    mutating func record(after state: QueueState) -> [PlannedOperation] {
        let count = chance(70) ? 1 : Int.random(in: 2...3, using: &random)
        var trial = state
        var operations: [PlannedOperation] = []
        for _ in 0..<count {
            let planned = operation(after: trial)
            // A restore is a record of its own (``RecordAgreementTests/body(_:)``).
            if case .restore = planned.operation {
                if operations.isEmpty { return [planned] }
                continue
            }
            try? trial.apply(planned.operation)
            operations.append(planned)
        }
        return operations
    }

    /// The snapshot records: a summary, then restores (in enqueue order, or not), with annexes.
    mutating func snapshot() -> [[PlannedOperation]] {
        var records: [[PlannedOperation]] = [
            [
                PlannedOperation(
                    .snapshot(SnapshotSummary(lastLSN: 50, nextSequence: 20, createdAt: Self.t, expiredJobs: 0)))
            ]
        ]
        var sequence = UInt64.random(in: 1...4, using: &random)
        var restored: [String] = []
        for id in ids.shuffled(using: &random).prefix(Int.random(in: 1...ids.count, using: &random)) {
            sequence += chance(85) ? UInt64.random(in: 1...2, using: &random) : 0
            if chance(20) { sequence = UInt64.random(in: 1...8, using: &random) }
            records.append([PlannedOperation(.restore(storedJob(id, sequence: sequence, waitingFrom: restored)))])
            restored.append(id)
        }
        return records
    }

    private mutating func storedJob(_ id: String, sequence: UInt64, waitingFrom others: [String]) -> StoredJob {
        let state = pick(JobState.allCases)
        let lease =
            state == .running || chance(5)
            ? StoredLease(
                token: UInt64.random(in: 1...3, using: &random), claimedAt: time(), expiresAt: Self.t + 60_000,
                monotonicExpiry: 1, bootID: "boot") : nil
        let attempts = Int32.random(in: 0...3, using: &random)
        var waitingFor: [String] = []
        if chance(50), !others.isEmpty { waitingFor = [pick(others)] }
        if chance(5) { waitingFor.append(pick(ids)) }
        return StoredJob(
            id: id, kind: pick(kinds), state: state, attempts: attempts,
            maxAttempts: Int32.random(in: 1...3, using: &random),
            priority: 0, sequence: sequence, createdAt: Self.t - 10_000, runAt: time(),
            nextRetryAt: state == .enqueued && chance(30) ? time() : nil,
            finishedAt: state.isFinished ? time() : nil, uniqueKey: chance(50) ? pick(keys) : nil, lastError: nil,
            payload: Self.payload, lease: lease, waitingFor: waitingFor)
    }

    /// An id: of a job in `state` most of the time, or any.
    private mutating func id(in state: QueueState, unused: Bool = false) -> String {
        let existing = state.jobs.values.map(\.id).sorted()
        if unused {
            let free = ids.filter { !existing.contains($0) }
            if !free.isEmpty, chance(90) { return pick(free) }
        } else if !existing.isEmpty, chance(85) {
            return pick(existing)
        }
        return id()
    }

    private mutating func operation(after state: QueueState) -> PlannedOperation {
        let id = self.id(in: state)
        let now = time()
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<22:
            let id = self.id(in: state, unused: true)
            var dependencies: [String] = []
            if chance(40) {
                dependencies = Array(Set((0..<Int.random(in: 1...2, using: &random)).map { _ in self.id(in: state) }))
            }
            if chance(5) { dependencies.append(dependencies.first ?? id) }
            let periodic: (Int64, Int64)? = chance(8) ? (60_000, 0) : nil
            return PlannedOperation.enqueue(
                NewEnqueue(
                    id: id, kind: pick(kinds), payload: Data(), priority: 0, createdAt: now, runAt: now,
                    maxAttempts: Int64.random(in: 1...3, using: &random), uniqueKey: chance(30) ? pick(keys) : nil,
                    options: EnqueueOptions(dependencies: dependencies, periodic: periodic)))
        case 22..<36:
            return PlannedOperation(
                .claim(
                    .init(
                        id: id, token: UInt64.random(in: 1...3, using: &random), claimedAt: now,
                        expiresAt: now + 60_000, monotonicExpiry: 1, bootID: "boot")))
        case 36..<42: return PlannedOperation(.complete(id: id, token: token(id, state), at: now))
        case 42..<48:
            return PlannedOperation(
                .fail(id: id, token: token(id, state), at: now, error: "e", nextRetryAt: chance(50) ? now + 10 : nil))
        case 48..<51:
            return PlannedOperation(.reclaim(id: id, at: now, reason: "r", nextRetryAt: chance(50) ? now : nil))
        case 51..<55: return PlannedOperation(.cancel(id: id, at: now))
        case 55..<59: return PlannedOperation(.retry(id: id, at: now))
        case 59..<61: return PlannedOperation(.reschedule(id: id, runAt: now + 100, at: now))
        case 61..<64: return PlannedOperation(.delete(id: id))
        case 64..<66: return PlannedOperation(.expire(id: id))
        case 66..<68: return PlannedOperation(.nextOccurrence(id: id, at: now, runAt: now + 60_000))
        case 68..<70: return PlannedOperation(.abandon(id: id, at: now, reason: "gone"))
        case 70..<73:
            return PlannedOperation(.release(id: id, token: token(id, state), at: now, reason: .cancelled))
        case 73..<76:
            return PlannedOperation(
                .snooze(id: id, token: token(id, state), at: now, runAt: now + 10, givesBack: chance(50)))
        case 76..<78: return PlannedOperation(.stopReason(id: id, reason: pick(StopReason.allCases)))
        case 78..<81:
            return PlannedOperation(.park(id: id, token: token(id, state), key: pick(keys), deadline: now))
        case 81..<83:
            return PlannedOperation(
                .renewLease(id: id, token: token(id, state), expiresAt: now + 60_000, monotonicExpiry: 2))
        case 83..<84: return PlannedOperation(.starts(id: id, count: Int32.random(in: 0...4, using: &random)))
        case 84..<85:
            let constraints: JobConstraints? =
                chance(30)
                ? nil
                : pick([JobConstraints(requiresUnmeteredNetwork: true), JobConstraints(requiredConditions: ["c"])])
            return PlannedOperation(.setConstraints(id: id, constraints: constraints))
        case 85..<87: return PlannedOperation(.result(id: id, data: [1]))
        case 87..<89: return PlannedOperation(.pauseKind(kind: pick(kinds), at: now))
        case 89..<90: return PlannedOperation(.resumeKind(kind: pick(kinds), at: now))
        case 90..<93:
            // A restore outside a snapshot, of any shape.
            return PlannedOperation(
                .restore(
                    storedJob(
                        id, sequence: UInt64.random(in: 1...30, using: &random),
                        waitingFrom: Array(state.jobs.values.map(\.id)))))
        default:
            return migrationStep(id, state, now)
        }
    }

    /// A migration's begin, one of its steps, or its commit: an image of the job in any state.
    private mutating func migrationStep(_ id: String, _ state: QueueState, _ now: Int64) -> PlannedOperation {
        guard state.pendingMigration != nil else {
            migration += 1
            return PlannedOperation(.migrationBegin(number: migration, at: now))
        }
        if chance(30) { return PlannedOperation(.migrationCommit(number: migration)) }
        if chance(20) { return PlannedOperation(.migrationRemove(id: id)) }
        var image = MigratedJob(
            state.jobs[id] ?? storedJob(id, sequence: state.nextSequence, waitingFrom: []))
        let target = pick(JobState.allCases)
        image.state = target
        image.lease =
            target == .running
            ? StoredLease(token: 9, claimedAt: now, expiresAt: now + 60_000, monotonicExpiry: 1, bootID: "boot") : nil
        image.nextRetryAt = nil
        image.finishedAt = target.isFinished ? now : nil
        image.attempts = Int32.random(in: 0...3, using: &random)
        image.payload = nil
        return PlannedOperation.migrating(image, newPayload: state.jobs[id] == nil || chance(20) ? Data([7]) : nil)
    }
}
