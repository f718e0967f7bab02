import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The engine accepts exactly what `apply` accepts: random request sequences (chains, unique keys,
/// periodic jobs, batches, cancels and deletes with dependents, retries, claims, completions and
/// failures with stale tokens, reschedules, migrations at reopen). Each request the engine refuses,
/// the operations it would have written are applied to a copy of the state before it, which must
/// refuse them for the same reason (the same code and message of ``Refusal``'s table); each request
/// it accepts, those operations apply to the copy; the state replayed at each reopen equals the live one.
///
/// Batches and raw transactions (operations committed as a planner would) include operations that
/// refuse mid-transaction: a refused request appends nothing (the log's end does not move).
///
/// `SPOOL_RULE_STEPS` sets the requests per seed (default 300), `SPOOL_RULE_SEED` runs one seed only.
@Suite(.blocking) struct RuleAgreementTests {
    static let steps = Int(ProcessInfo.processInfo.environment["SPOOL_RULE_STEPS"] ?? "") ?? 300
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["SPOOL_RULE_SEED"].flatMap(UInt64.init).map { [$0] }
        ?? [1, 2, 3, 4]

    @Test(arguments: seeds)
    func engineAndApplyAgree(seed: UInt64) throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var generator = SeededGenerator(seed: seed)
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = .table([1, 3], maxAttempts: 3)
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        var leases: [Lease] = []
        var oldLeases: [Lease] = []
        var ids: [String] = []
        var nextID = 0
        var migrations = 0
        var refusals = 0
        func random(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
        func someID() -> String {
            ids.isEmpty || random(0..<10) == 0 ? "missing-\(random(0..<3))" : ids[random(0..<ids.count)]
        }
        func newID() -> String {
            nextID += 1
            return "j\(nextID)"
        }
        let placeholder = PayloadLocation(fileSequence: 0, offset: 0, length: 0, checksum: 0)

        for step in 0..<Self.steps {
            let before = queue.engine.stateSnapshot
            let endBefore = queue.engine.writer.appendedEnd
            let now = Millis.from(clock.now())
            // The operations the request would write, built from the state before it, when the engine
            // would write any; `nil` for requests whose records are not judged here (claims, reclaims).
            var written: [Spool.LogOperation]?
            var issuedLease = false
            let choice = random(0..<125)
            let outcome: Result<Void, SpoolError>
            do {
                switch choice {
                case 0..<24:
                    // One job: a chain link, a unique key under any policy, a periodic job, or plain.
                    let id = newID()
                    let shape = random(0..<6)
                    let dependencies = shape == 1 || shape == 2 ? [someID()] : []
                    let key: String? = shape == 3 || shape == 4 || shape == 5 ? "k\(random(0..<3))" : nil
                    let policy: UniquePolicy =
                        shape == 5 ? .append : [.keep, .replace].randomElement(using: &generator)!
                    let periodic = shape == 4 ? PeriodicSchedule(interval: 900) : nil
                    let holder = key.flatMap { before.uniqueKeys[$0] }
                    if holder == nil || policy == .append {
                        var options = EnqueueOptions()
                        options.dependencies =
                            dependencies + (holder.map { dependencies.contains($0) ? [] : [$0] } ?? [])
                        if periodic != nil { options.periodic = (900_000, 0) }
                        written = [
                            .enqueue(
                                .init(
                                    id: id, kind: "a", payload: placeholder, priority: 0, createdAt: now,
                                    runAt: now, maxAttempts: 3, uniqueKey: key, options: options))
                        ]
                    }
                    ids.append(id)
                    _ = try queue.enqueue(
                        NewJob(
                            kind: "a", payload: Data([1]), id: JobID(id), uniqueKey: key,
                            uniquePolicy: policy, dependencies: dependencies.map { JobID($0) },
                            periodic: periodic))
                case 24..<32:
                    // A batch whose later jobs wait for earlier ones (or for jobs that may not exist), and
                    // sometimes take an id that an earlier job of the batch or of the queue has.
                    var jobs: [NewJob] = []
                    var operations: [Spool.LogOperation] = []
                    for _ in 0..<random(1..<5) {
                        let id = random(0..<6) == 0 && !ids.isEmpty ? ids[random(0..<ids.count)] : newID()
                        let dependencies = random(0..<2) == 0 ? [someID()] : []
                        var options = EnqueueOptions()
                        options.dependencies = dependencies
                        operations.append(
                            .enqueue(
                                .init(
                                    id: id, kind: "b", payload: placeholder, priority: 0, createdAt: now,
                                    runAt: now, maxAttempts: 3, uniqueKey: nil, options: options)))
                        jobs.append(
                            NewJob(
                                kind: "b", payload: Data([2]), id: JobID(id),
                                dependencies: dependencies.map { JobID($0) }))
                        ids.append(id)
                    }
                    written = operations
                    _ = try queue.enqueue(contentsOf: jobs)
                case 32..<46:
                    if let lease = try queue.claim(leaseDuration: Double(random(1..<10))) { leases.append(lease) }
                case 46..<56:
                    guard let lease = pickLease(&leases, &oldLeases, &generator) else { continue }
                    issuedLease = true
                    written = [.complete(id: lease.job.id.rawValue, token: lease.token.rawValue, at: now)]
                    try queue.complete(lease)
                case 56..<64:
                    guard let lease = pickLease(&leases, &oldLeases, &generator) else { continue }
                    issuedLease = true
                    written = [
                        .fail(
                            id: lease.job.id.rawValue, token: lease.token.rawValue, at: now, error: "e",
                            nextRetryAt: nil)
                    ]
                    try queue.fail(lease, error: "e", terminal: true)
                case 64..<68:
                    guard let lease = (leases + oldLeases).randomElement(using: &generator) else { continue }
                    issuedLease = true
                    written = [
                        .renewLease(
                            id: lease.job.id.rawValue, token: lease.token.rawValue, expiresAt: now, monotonicExpiry: 0)
                    ]
                    try queue.renew(lease, for: 5)
                case 68..<74:
                    let id = someID()
                    if before.jobs[id]?.state != .cancelled { written = [.cancel(id: id, at: now)] }
                    try queue.cancel(JobID(id))
                case 74..<80:
                    let id = someID()
                    written = [.retry(id: id, at: now)]
                    try queue.retry(JobID(id))
                case 80..<83:
                    let id = someID()
                    written = [.reschedule(id: id, runAt: now + 1000, at: now)]
                    try queue.reschedule(JobID(id), runAt: clock.now().addingTimeInterval(1))
                case 83..<88:
                    // Delete: the unfinished dependents' cancels first, then the delete.
                    let id = someID()
                    var operations: [Spool.LogOperation] = []
                    if before.jobs[id] != nil {
                        let waiting = before.unfinishedDirectDependents(of: id)
                        let reached = before.unfinishedDependents(of: waiting)
                        operations = waiting.filter { !reached.contains($0) }
                            .sorted { before.jobs[$0]!.sequence < before.jobs[$1]!.sequence }
                            .map { .cancel(id: $0, at: now) }
                    }
                    written = operations + [.delete(id: id)]
                    try queue.delete(JobID(id))
                case 88..<91:
                    try queue.cancel(uniqueKey: "k\(random(0..<3))")
                case 91..<95:
                    // Reopen, sometimes with a migration renaming a kind, and compare with the log.
                    let live = queue.engine.stateSnapshot
                    try queue.close()
                    var reopened = configuration
                    if random(0..<3) == 0 {
                        migrations += 1
                        let (from, to) = migrations % 2 == 1 ? ("a", "b") : ("b", "a")
                        configuration.migrations.append(.renameKind(from, to: to, number: migrations))
                        reopened = configuration
                    } else {
                        let replayed = try LogReplay(
                            directory: temp.queue, fileSystem: POSIXFileSystem(), mode: .strict
                        ).run()
                        #expect(comparableJobs(replayed.state) == comparableJobs(live), "seed \(seed) step \(step)")
                        #expect(replayed.state.uniqueKeys == live.uniqueKeys, "seed \(seed) step \(step)")
                        #expect(replayed.state.dependents == live.dependents, "seed \(seed) step \(step)")
                    }
                    queue = try JobQueue(directory: temp.queue, configuration: reopened)
                    oldLeases += leases
                    leases = []
                    checkInvariants(queue.engine.stateSnapshot)
                case 100..<125:
                    // A raw transaction, as a planner hands it to the commit: two to four operations,
                    // of which a later one may meet what an earlier one did (a job it cancelled, the
                    // id it enqueued, the dependent it left) and be refused.
                    var operations: [Spool.LogOperation] = []
                    for _ in 0..<random(2..<5) {
                        let id = someID()
                        switch random(0..<8) {
                        case 0: operations.append(.cancel(id: id, at: now))
                        case 1: operations.append(.retry(id: id, at: now))
                        case 2: operations.append(.reschedule(id: id, runAt: now + 1000, at: now))
                        case 3: operations.append(.delete(id: id))
                        case 4: operations.append(.expire(id: id))
                        case 5: operations.append(.abandon(id: id, at: now, reason: "r"))
                        case 6:
                            guard let lease = (leases + oldLeases).randomElement(using: &generator) else { continue }
                            operations.append(
                                .complete(id: lease.job.id.rawValue, token: lease.token.rawValue, at: now))
                        default:
                            let new = random(0..<2) == 0 ? newID() : id
                            if !ids.contains(new) { ids.append(new) }
                            var options = EnqueueOptions()
                            if random(0..<2) == 0 { options.dependencies = [someID()] }
                            operations.append(
                                .enqueue(
                                    .init(
                                        id: new, kind: "a", payload: placeholder, priority: 0,
                                        createdAt: now, runAt: now, maxAttempts: 3, uniqueKey: nil,
                                        options: options)))
                        }
                    }
                    written = operations
                    let planned = operations.map { operation -> PlannedOperation in
                        PlannedOperation(operation, payload: operation.writesPayload ? Data([3]) : nil)
                    }
                    let engine = queue.engine
                    try engine.lock.withLock { _ = try engine.commit(planned) }
                default:
                    clock.advance(by: Double(random(1..<5)))
                }
                outcome = .success(())
            } catch let error as SpoolError {
                outcome = .failure(error)
            }
            guard let written else { continue }
            var copy = before
            var refusal: Refusal?
            for operation in written {
                do {
                    try copy.apply(operation)
                } catch {
                    refusal = error
                    break
                }
            }
            switch (outcome, refusal) {
            case (.success, nil):
                break
            case (.failure(let error), let refusal?):
                refusals += 1
                #expect(
                    queue.engine.writer.appendedEnd == endBefore,
                    "seed \(seed) step \(step): a refused request appended")
                let expected = (issuedLease ? refusal.forIssuedLease : refusal).error
                #expect(
                    error.code == expected.code && error.message == expected.message,
                    "seed \(seed) step \(step): the engine said \(error), apply \(expected)")
            case (.success, let refusal?):
                Issue.record("seed \(seed) step \(step): the engine accepted what apply refuses: \(refusal)")
            case (.failure(let error), nil):
                Issue.record("seed \(seed) step \(step): the engine refused what apply accepts: \(error)")
            }
        }
        let live = queue.engine.stateSnapshot
        try queue.close()
        let replayed = try LogReplay(directory: temp.queue, fileSystem: POSIXFileSystem(), mode: .strict).run()
        #expect(comparableJobs(replayed.state) == comparableJobs(live), "seed \(seed)")
        // The sequence exercised refusals, not only acceptances.
        #expect(refusals > Self.steps / 20, "seed \(seed): only \(refusals) refusals")
    }

    /// A lease held now, or (one time in three) one given up already, whose token is stale.
    private func pickLease(
        _ leases: inout [Lease], _ old: inout [Lease],
        _ generator: inout SeededGenerator
    ) -> Lease? {
        if !old.isEmpty, leases.isEmpty || Int.random(in: 0..<3, using: &generator) == 0 {
            return old.randomElement(using: &generator)
        }
        guard !leases.isEmpty else { return nil }
        let lease = leases.remove(at: Int.random(in: 0..<leases.count, using: &generator))
        old.append(lease)
        return lease
    }
}
