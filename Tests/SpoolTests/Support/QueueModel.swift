import Foundation

@testable import Spool

/// A small reference model of the queue's semantics, written independently of
/// the engine: what each acknowledged operation must do to the jobs.
struct QueueModel: Equatable {
    struct ModelJob: Equatable {
        var id: String
        var kind: String
        var state: JobState
        var attempts: Int
        var maxAttempts: Int
        /// Times started in this run (QueueModel+Retries.swift).
        var starts = 0
        /// The job's own retry schedule, `nil` for the queue's (QueueModel+Retries.swift).
        var retry: ModelRetry?
        var priority: Int
        var runAt: Int64
        var nextRetryAt: Int64?
        var uniqueKey: String?
        var lastError: String?
        var payload: [UInt8]
        var sequence: Int
        /// Requires a network connection (the one constraint the simulations use).
        var needsNetwork = false
        /// Prerequisites that have not succeeded.
        var waitingFor: [String] = []
        /// Periodic: interval and first run time (ms), and the occurrence number.
        var interval: Int64?
        var anchor: Int64 = 0
        var occurrence = 1
        /// Why the last attempt ended (see QueueModel+Stops.swift).
        var lastStopReason: StopReason?
        /// Parking (QueueModel+Parking.swift): the key and deadline of the current attempt's park; the checkpoint.
        var parkedKey: String?
        var parkDeadline: Int64?
        var checkpoint: [UInt8]?
        /// Results and tags (QueueModel+Results.swift): sorted tags, the last success's result, the results
        /// of the prerequisites kept when their success reached the job.
        var tags: [String] = []
        var result: [UInt8]?
        var prerequisiteResults: [String: [UInt8]] = [:]

        var dueAt: Int64 { max(runAt, nextRetryAt ?? runAt) }
    }

    /// Whether the device has a network, as the run reported it.
    var networkAvailable = false

    static let delays: [Int64] = [1_000, 3_000]  // the policy the simulations use: table [1, 3] s
    static let defaultMaxAttempts = 3

    private(set) var jobs: [String: ModelJob] = [:]

    /// Changes job `id` (which must exist): for the model's extensions in other files.
    mutating func update(_ id: String, _ change: (inout ModelJob) -> Void) {
        change(&jobs[id]!)
    }
    private var nextSequence = 0
    /// Paused kinds, rate limits and windows (QueueModel+KindControls.swift).
    var kindControls = ModelKindControls()
    /// The producers' acknowledged records not yet ingested, in the order their calls returned
    /// (QueueModel+Inbox.swift).
    var inbox: [ModelInboxRecord] = []

    /// The unfinished job holding `key`: the last enqueued of those carrying it (a chain built by append).
    func holder(of key: String) -> String? {
        jobs.values.filter { $0.uniqueKey == key && !$0.state.isFinished }.max { $0.sequence < $1.sequence }?.id
    }

    /// Whether an enqueue with these options is accepted (the queue says invalidArgument otherwise).
    func canEnqueue(dependencies: [String], periodic: Bool, uniqueKey: String?, policy: UniquePolicy) -> Bool {
        if periodic && (!dependencies.isEmpty || policy == .append) { return false }
        if let key = uniqueKey, let holder = holder(of: key) {
            if policy == .keep { return true }
            if policy == .append && jobs[holder]!.interval != nil { return false }
        }
        return dependencies.allSatisfy { jobs[$0] != nil && jobs[$0]!.interval == nil }
    }

    /// Enqueue; returns the id the call returns.
    mutating func enqueue(
        id: String, kind: String, payload: [UInt8], priority: Int, runAt: Int64,
        maxAttempts: Int?, uniqueKey: String?, policy: UniquePolicy, now: Int64,
        dependencies: [String] = [], needsNetwork: Bool = false, interval: Int64? = nil, tags: [String] = []
    ) -> String {
        var dependencies = dependencies
        if let key = uniqueKey, let holder = holder(of: key) {
            switch policy {
            case .keep: return holder
            case .replace:
                for carrier in jobs.values where carrier.uniqueKey == key && !carrier.state.isFinished {
                    if carrier.state == .running { jobs[carrier.id]!.lastStopReason = .cancelled }
                    jobs[carrier.id]!.state = .cancelled
                    jobs[carrier.id]!.nextRetryAt = nil
                }
                cascade()
            case .append:
                if !dependencies.contains(holder) { dependencies.append(holder) }
            }
        }
        nextSequence += 1
        let retry = Self.retry(of: id)
        var job = ModelJob(
            id: id, kind: kind, state: .enqueued, attempts: 0,
            maxAttempts: maxAttempts ?? retry?.maxAttempts ?? Self.defaultMaxAttempts, priority: priority, runAt: runAt,
            nextRetryAt: nil, uniqueKey: uniqueKey, lastError: nil, payload: payload, sequence: nextSequence)
        job.retry = retry
        job.needsNetwork = needsNetwork
        job.interval = interval
        job.anchor = runAt
        job.waitingFor = dependencies.filter { jobs[$0]!.state != .succeeded }
        job.tags = tags.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        job.prerequisiteResults = resultsOfSucceeded(dependencies)
        jobs[id] = job
        cascade()
        return id
    }

    /// WorkManager's rule: an unfinished job waiting for a failed, cancelled or deleted job is cancelled, transitively.
    private mutating func cascade() {
        var changed = true
        while changed {
            changed = false
            for job in jobs.values where !job.state.isFinished {
                if job.waitingFor.contains(where: {
                    jobs[$0] == nil || [.failed, .cancelled].contains(jobs[$0]!.state)
                }) {
                    jobs[job.id]!.state = .cancelled
                    jobs[job.id]!.nextRetryAt = nil
                    changed = true
                }
            }
        }
    }

    /// Whether an unfinished job waits for job `id`.
    func hasUnfinishedDependents(_ id: String) -> Bool {
        jobs.values.contains { !$0.state.isFinished && $0.waitingFor.contains(id) }
    }

    /// A job succeeded: it no longer blocks anything, and the jobs it blocked keep its result.
    private mutating func succeeded(_ id: String) {
        let result = jobs[id]!.result
        for job in jobs.values where job.waitingFor.contains(id) {
            jobs[job.id]!.waitingFor.removeAll { $0 == id }
            if let result { jobs[job.id]!.prerequisiteResults[id] = result }
        }
    }

    /// A periodic job whose occurrence ended at `now` starts its next one.
    private mutating func nextOccurrence(_ id: String, now: Int64) {
        guard let interval = jobs[id]!.interval else { return }
        var job = jobs[id]!
        var next = job.anchor + interval
        while next <= now { next += interval }
        job.state = .enqueued
        job.runAt = next
        job.nextRetryAt = nil
        job.attempts = 0
        job.starts = 0
        job.occurrence += 1
        job.checkpoint = nil
        jobs[id] = job
    }

    mutating func setNetwork(_ available: Bool) { networkAvailable = available }

    /// Cancels every unfinished job `select` picks, then the cascade.
    mutating func cancelAll(where select: (ModelJob) -> Bool) {
        for job in jobs.values where !job.state.isFinished && select(job) {
            if job.state == .running { jobs[job.id]!.lastStopReason = .cancelled }
            jobs[job.id]!.state = .cancelled
            jobs[job.id]!.nextRetryAt = nil
        }
        cascade()
    }

    /// The job a claim at `now` takes: highest priority, then earliest due, then earliest enqueued;
    /// never a blocked job, nor one needing a network the device does not have.
    func bestReady(now: Int64) -> String? {
        jobs.values.filter {
            $0.state == .enqueued && $0.dueAt <= now && $0.waitingFor.isEmpty
                && (!$0.needsNetwork || networkAvailable) && kindControls.isOpen($0.kind, at: now)
        }
        .min { a, b in
            if a.priority != b.priority { return a.priority > b.priority }
            if a.dueAt != b.dueAt { return a.dueAt < b.dueAt }
            return a.sequence < b.sequence
        }?.id
    }

    mutating func claim(now: Int64) -> String? {
        reclaimExpiredParks(now: now)
        guard let id = bestReady(now: now) else { return nil }
        kindControls.countStart(of: jobs[id]!.kind, at: now)
        jobs[id]!.state = .running
        jobs[id]!.parkedKey = nil
        jobs[id]!.attempts += 1
        jobs[id]!.starts += 1
        jobs[id]!.nextRetryAt = nil
        return id
    }

    /// A success, recording `result` (when not nil) before it, as the record does.
    mutating func complete(_ id: String, now: Int64, result: [UInt8]? = nil) {
        if let result { jobs[id]!.result = result }
        jobs[id]!.state = .succeeded
        jobs[id]!.lastStopReason = .succeeded
        jobs[id]!.checkpoint = nil
        succeeded(id)
        nextOccurrence(id, now: now)
    }

    mutating func fail(_ id: String, error: String, terminal: Bool, now: Int64) {
        var job = jobs[id]!
        job.lastError = error
        job.lastStopReason = .failed
        if terminal || job.attempts >= job.maxAttempts {
            job.state = .failed
            job.nextRetryAt = nil
            jobs[id] = job
            cascade()
            nextOccurrence(id, now: now)
        } else {
            job.state = .enqueued
            job.nextRetryAt =
                now
                + (job.retry?.delay(afterFailedAttempt: job.attempts)
                    ?? Self.delays[min(job.attempts, Self.delays.count) - 1])
            jobs[id] = job
        }
    }

    /// Whether cancel is accepted (enqueued, running, or already cancelled).
    func canCancel(_ id: String) -> Bool {
        guard let job = jobs[id] else { return false }
        return [.enqueued, .running, .cancelled].contains(job.state)
    }

    mutating func cancel(_ id: String) {
        if jobs[id]!.state == .running { jobs[id]!.lastStopReason = .cancelled }
        jobs[id]!.state = .cancelled
        jobs[id]!.nextRetryAt = nil
        cascade()
    }

    func canRetry(_ id: String) -> Bool {
        guard let job = jobs[id], [.enqueued, .failed, .cancelled].contains(job.state) else { return false }
        if job.state.isFinished, let key = job.uniqueKey, let holder = holder(of: key), holder != id { return false }
        return job.waitingFor.allSatisfy { jobs[$0].map { !$0.state.isFinished } ?? false }
    }

    mutating func retry(_ id: String, now: Int64) {
        jobs[id]!.state = .enqueued
        jobs[id]!.attempts = 0
        jobs[id]!.starts = 0
        jobs[id]!.nextRetryAt = nil
        jobs[id]!.runAt = now
    }

    func canReschedule(_ id: String) -> Bool { jobs[id]?.state == .enqueued }

    mutating func reschedule(_ id: String, runAt: Int64) {
        jobs[id]!.runAt = runAt
        jobs[id]!.nextRetryAt = nil
    }

    mutating func delete(_ id: String) {
        jobs[id] = nil
        cascade()
    }

    /// What the simulations' migration `number` does to a job (see ``SimulationRun/migration(_:)``).
    enum MigrationChoice: Int { case keep, rewrite, split, invalid, drop }

    static func migrationChoice(id: String, number: Int, unsplittable: Set<String>) -> MigrationChoice {
        let choice = MigrationChoice(rawValue: (id.utf8.reduce(0) { $0 + Int($1) } + number) % 5)!
        return choice == .split && unsplittable.contains(id) ? .rewrite : choice
    }

    /// The jobs a migration may not split: with a constraint, a prerequisite, a schedule or an unfinished dependent.
    var unsplittableIDs: Set<String> {
        var ids = Set(jobs.values.filter { $0.needsNetwork || !$0.waitingFor.isEmpty || $0.interval != nil }.map(\.id))
        for job in jobs.values where !job.state.isFinished { ids.formUnion(job.waitingFor) }
        return ids
    }

    /// Job migration `number`: every job but the succeeded ones, in enqueue order, kept, rewritten
    /// (kind `k<number>`, payload + `+m<number>`), split in two (`<id>/1`, `<id>/2`, enqueued when the
    /// original could run), made invalid (failed) or dropped (cancelled).
    mutating func migrate(number: Int, unsplittable: Set<String>) {
        defer { cascade() }
        for original in jobs.values.filter({ $0.state != .succeeded }).sorted(by: { $0.sequence < $1.sequence }) {
            var job = original
            switch Self.migrationChoice(id: original.id, number: number, unsplittable: unsplittable) {
            case .keep:
                continue
            case .rewrite:
                job.kind = "k\(number)"
                job.payload += Array("+m\(number)".utf8)
                jobs[job.id] = job
            case .split:
                jobs[original.id] = nil
                for part in 1...2 {
                    var replacement = original
                    replacement.id = "\(original.id)/\(part)"
                    replacement.kind = "k"
                    replacement.payload = original.payload + Array("/\(part)".utf8)
                    replacement.uniqueKey = nil
                    replacement.lastStopReason = nil
                    replacement.checkpoint = nil
                    // A job a migration creates carries no tags nor results.
                    replacement.tags = []
                    replacement.result = nil
                    replacement.prerequisiteResults = [:]
                    // Nor a retry schedule of its own; it has started as often as it spent attempts.
                    replacement.retry = nil
                    replacement.starts = replacement.attempts
                    if replacement.state == .running { replacement.state = .enqueued }
                    if replacement.state == .enqueued && replacement.attempts >= replacement.maxAttempts {
                        replacement.state = .failed
                        replacement.nextRetryAt = nil
                        replacement.lastError =
                            "attempts spent (\(replacement.attempts) of \(replacement.maxAttempts)) at migration \(number)"
                    }
                    nextSequence += 1
                    replacement.sequence = nextSequence
                    jobs[replacement.id] = replacement
                }
            case .invalid:
                job.state = .failed
                job.nextRetryAt = nil
                job.lastError = "invalid since migration \(number): fuzz"
                jobs[job.id] = job
            case .drop:
                job.state = .cancelled
                job.nextRetryAt = nil
                job.lastError = "dropped by migration \(number) (fuzz \(number))"
                jobs[job.id] = job
            }
        }
    }

    /// Differences between the model and a queue's jobs and payloads; empty when they agree.
    func differences(from queue: JobQueue) throws -> [String] {
        var problems: [String] = []
        let actual = try queue.jobs()
        let byID = Dictionary(uniqueKeysWithValues: actual.map { ($0.id.rawValue, $0) })
        for id in Set(byID.keys).union(jobs.keys).sorted() {
            guard let expected = jobs[id] else {
                problems.append("\(id): present, not in the model")
                continue
            }
            guard let job = byID[id] else {
                problems.append("\(id): missing (model: \(expected.state))")
                continue
            }
            func check<T: Equatable>(_ name: String, _ a: T, _ b: T) {
                if a != b { problems.append("\(id).\(name): queue \(a), model \(b)") }
            }
            check("state", job.state, expected.state)
            check("attempts", job.attempts, expected.attempts)
            check("starts", job.starts, expected.starts)
            check("retryPolicy", job.retryPolicy, expected.retry?.policy(maxAttempts: expected.maxAttempts))
            check("maxAttempts", job.maxAttempts, expected.maxAttempts)
            check("priority", job.priority, expected.priority)
            check("runAt", Millis.from(job.runAt), expected.runAt)
            check("nextRetryAt", job.nextRetryAt.map(Millis.from), expected.nextRetryAt)
            check("uniqueKey", job.uniqueKey, expected.uniqueKey)
            check("lastError", job.lastError, expected.lastError)
            check("kind", job.kind, expected.kind)
            check("waitingFor", job.blockingPrerequisites.map(\.rawValue).sorted(), expected.waitingFor.sorted())
            check("needsNetwork", job.constraints.requiresNetwork, expected.needsNetwork)
            check("occurrence", job.occurrence, expected.occurrence)
            check("periodic", job.periodic.map { Millis.from(seconds: $0.interval) }, expected.interval)
            check("lastStopReason", job.lastStopReason, expected.lastStopReason)
            check("payload", Array(try queue.payload(of: job.id)), expected.payload)
            problems += parkingDifferences(job, expected)
            problems += resultDifferences(job, expected)
        }
        problems += kindControls.differences(from: queue)
        return problems
    }
}
