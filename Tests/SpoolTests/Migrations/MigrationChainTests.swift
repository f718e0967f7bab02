import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Migrations over chains and key carriers: compaction and replay of the chain and key indexes.
@Suite(.blocking) struct MigrationChainTests {
    /// Random operations with chains, append keys, periodic jobs and leases; every 60 steps a
    /// compaction, then a reopen that applies a new migration (keep / rename kind / new payload /
    /// drop / invalid, by a hash of the id). After each: invariants, and replay of the log (from the
    /// snapshot) gives the same jobs, keys, key carriers, dependents and best ready job per kind.
    @Test(arguments: [11, 12, 13, 14, 15, 16] as [UInt64])
    func migrationsAndCompactionsKeepReplayEquivalenceOverChains(seed: UInt64) throws {
        let temp = TemporaryDirectory("spool-review2")
        defer { temp.cleanup() }
        var generator = SeededGenerator(seed: seed)
        let clock = ManualClock()
        var migrations: [JobMigration] = []
        func configuration() -> Configuration {
            var configuration = testConfiguration(clock: clock)
            configuration.retryPolicy = .table([1, 3], maxAttempts: 3)
            configuration.migrations = migrations
            configuration.retention = 0
            return configuration
        }
        var queue = try JobQueue(directory: temp.queue, configuration: configuration())
        var leases: [Lease] = []
        var ids: [JobID] = []
        for step in 0..<480 {
            let choice = Int.random(in: 0..<100, using: &generator)
            do {
                switch choice {
                case 0..<34:
                    let key = Bool.random(using: &generator) ? "key-\(Int.random(in: 0..<4, using: &generator))" : nil
                    let options = Int.random(in: 0..<8, using: &generator)
                    let dependency = options == 1 || options == 2 ? ids.randomElement(using: &generator) : nil
                    ids.append(
                        try queue.enqueue(
                            NewJob(
                                kind: ["a", "b"].randomElement(using: &generator)!,
                                payload: Data([UInt8(step & 0xFF)]),
                                priority: Int.random(in: -1...1, using: &generator),
                                delay: Double(Int.random(in: 0...3, using: &generator)),
                                uniqueKey: key,
                                uniquePolicy: [.keep, .replace, .append, .append].randomElement(using: &generator)!,
                                dependencies: dependency.map { [$0] } ?? [],
                                constraints: options == 3 ? JobConstraints(requiresNetwork: true) : .none,
                                periodic: options == 4 ? PeriodicSchedule(interval: 900) : nil)))
                case 34..<52:
                    if let lease = try queue.claim(leaseDuration: 3600) { leases.append(lease) }
                case 52..<62:
                    if !leases.isEmpty {
                        try queue.complete(leases.remove(at: Int.random(in: 0..<leases.count, using: &generator)))
                    }
                case 62..<72:
                    if !leases.isEmpty {
                        try queue.fail(
                            leases.remove(at: Int.random(in: 0..<leases.count, using: &generator)),
                            error: "e\(step)", terminal: Int.random(in: 0..<3, using: &generator) == 0)
                    }
                case 72..<77:
                    if let id = ids.randomElement(using: &generator) { try queue.cancel(id) }
                case 77..<83:
                    if let id = ids.randomElement(using: &generator) { try queue.retry(id) }
                case 83..<86:
                    if let id = ids.randomElement(using: &generator) { try queue.delete(id) }
                case 86:
                    try queue.updateDeviceConditions(
                        DeviceConditions(isNetworkAvailable: Bool.random(using: &generator)))
                default:
                    clock.advance(by: Double(Int.random(in: 1...4, using: &generator)))
                }
            } catch let error as SpoolError {
                let expected: Set<String> = [
                    "leaseLost", "invalidState", "jobNotFound", "uniqueKeyConflict", "invalidArgument",
                ]
                #expect(expected.contains(error.code.name), "step \(step): \(error)")
            }
            guard step % 60 == 59 else { continue }
            _ = try queue.compact()
            try expectReplayEquals(queue, temp: temp, clock: clock, "seed \(seed) step \(step) after compaction")
            try closeChecked(queue)
            let number = migrations.count + 1
            migrations.append(
                JobMigration(number: number, name: "review \(number)") { job, _ in
                    var hash: UInt64 = 1_469_598_103_934_665_603 &+ UInt64(number)
                    for byte in job.id.rawValue.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
                    switch hash % 6 {
                    case 0: return .keep
                    case 1: return .rewrite(kind: job.kind == "a" ? "b" : "a")
                    case 2: return .rewrite(payload: Data([0xEE]))
                    case 3: return .drop
                    case 4: return .invalid(reason: "review")
                    default: return .rewrite(kind: job.kind == "a" ? "b" : "a", payload: Data([0xDD]))
                    }
                })
            queue = try JobQueue(directory: temp.queue, configuration: configuration())
            #expect(queue.appliedMigration == number)
            leases = leases.filter { (try? queue.job($0.job.id))??.state == .running }
            try expectReplayEquals(
                queue, temp: temp, clock: clock, "seed \(seed) step \(step) after migration \(number)")
        }
        try closeChecked(queue)
    }

    private func expectReplayEquals(
        _ queue: JobQueue, temp: TemporaryDirectory, clock: ManualClock,
        _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let live = queue.engine.stateSnapshot
        checkInvariants(live, sourceLocation: sourceLocation)
        let replayed = try LogReplay(directory: temp.queue, fileSystem: POSIXFileSystem(), mode: .strict).run().state
        checkInvariants(replayed, sourceLocation: sourceLocation)
        #expect(comparableJobs(replayed) == comparableJobs(live), "\(label): jobs", sourceLocation: sourceLocation)
        #expect(replayed.uniqueKeys == live.uniqueKeys, "\(label): keys", sourceLocation: sourceLocation)
        #expect(
            replayed.earlierKeyCarriers == live.earlierKeyCarriers, "\(label): carriers", sourceLocation: sourceLocation
        )
        #expect(replayed.dependents == live.dependents, "\(label): dependents", sourceLocation: sourceLocation)
        #expect(
            replayed.enqueuedCount == live.enqueuedCount && replayed.runningCount == live.runningCount
                && replayed.failedCount == live.failedCount, "\(label): counts", sourceLocation: sourceLocation)
        let far = Millis.from(clock.now()) + 10_000_000
        for kind in ["a", "b"] {
            var liveCopy = live
            var replayedCopy = replayed
            replayedCopy.deviceConditions = live.deviceConditions
            let best = liveCopy.bestReadyJob(at: far, kind: kind)
            #expect(
                best.map { $0.kind == kind && $0.state == .enqueued && !$0.isBlocked } ?? true,
                "\(label): a claim of \(kind) would take \(String(describing: best))", sourceLocation: sourceLocation)
            #expect(
                best?.id == replayedCopy.bestReadyJob(at: far, kind: kind)?.id, "\(label): best \(kind)",
                sourceLocation: sourceLocation)
        }
    }
}
