import Foundation
import Testing
@_spi(RunnerEvents) @testable import Spool

/// Migrations over chains and key carriers, compaction + replay of the
/// chain and key indexes, and a runner whose running job is deleted as its handler returns.
@Suite struct MigrationChainTests {
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
                    ids.append(try queue.enqueue(NewJob(
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
                    if !leases.isEmpty { try queue.complete(leases.remove(at: Int.random(in: 0..<leases.count, using: &generator))) }
                case 62..<72:
                    if !leases.isEmpty {
                        try queue.fail(leases.remove(at: Int.random(in: 0..<leases.count, using: &generator)),
                                       error: "e\(step)", terminal: Int.random(in: 0..<3, using: &generator) == 0)
                    }
                case 72..<77:
                    if let id = ids.randomElement(using: &generator) { try queue.cancel(id) }
                case 77..<83:
                    if let id = ids.randomElement(using: &generator) { try queue.retry(id) }
                case 83..<86:
                    if let id = ids.randomElement(using: &generator) { try queue.delete(id) }
                case 86:
                    try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: Bool.random(using: &generator)))
                default:
                    clock.advance(by: Double(Int.random(in: 1...4, using: &generator)))
                }
            } catch let error as SpoolError {
                let expected: Set<String> = ["leaseLost", "invalidState", "jobNotFound", "uniqueKeyConflict", "invalidArgument"]
                #expect(expected.contains(error.code.name), "step \(step): \(error)")
            }
            guard step % 60 == 59 else { continue }
            _ = try queue.compact()
            try expectReplayEquals(queue, temp: temp, clock: clock, "seed \(seed) step \(step) after compaction")
            try queue.close()
            let number = migrations.count + 1
            migrations.append(JobMigration(number: number, name: "review \(number)") { job, _ in
                var hash: UInt64 = 1469598103934665603 &+ UInt64(number)
                for byte in job.id.rawValue.utf8 { hash = (hash ^ UInt64(byte)) &* 1099511628211 }
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
            try expectReplayEquals(queue, temp: temp, clock: clock, "seed \(seed) step \(step) after migration \(number)")
        }
        try queue.close()
    }

    private func expectReplayEquals(_ queue: JobQueue, temp: TemporaryDirectory, clock: ManualClock,
                                    _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let live = queue.engine.stateSnapshot
        checkInvariants(live, sourceLocation: sourceLocation)
        let replayed = try LogReplay(directory: temp.queue, fileSystem: POSIXFileSystem(), mode: .strict).run().state
        checkInvariants(replayed, sourceLocation: sourceLocation)
        #expect(comparableJobs(replayed) == comparableJobs(live), "\(label): jobs", sourceLocation: sourceLocation)
        #expect(replayed.uniqueKeys == live.uniqueKeys, "\(label): keys", sourceLocation: sourceLocation)
        #expect(replayed.earlierKeyCarriers == live.earlierKeyCarriers, "\(label): carriers", sourceLocation: sourceLocation)
        #expect(replayed.dependents == live.dependents, "\(label): dependents", sourceLocation: sourceLocation)
        #expect(replayed.enqueuedCount == live.enqueuedCount && replayed.runningCount == live.runningCount
                && replayed.failedCount == live.failedCount, "\(label): counts", sourceLocation: sourceLocation)
        let far = Millis.from(clock.now()) + 10_000_000
        for kind in ["a", "b"] {
            var liveCopy = live, replayedCopy = replayed
            replayedCopy.deviceConditions = live.deviceConditions
            let best = liveCopy.bestReadyJob(at: far, kind: kind)
            #expect(best.map { $0.kind == kind && $0.state == .enqueued && !$0.isBlocked } ?? true,
                    "\(label): a claim of \(kind) would take \(String(describing: best))", sourceLocation: sourceLocation)
            #expect(best?.id == replayedCopy.bestReadyJob(at: far, kind: kind)?.id, "\(label): best \(kind)",
                    sourceLocation: sourceLocation)
        }
    }

    /// The app deletes a running job (`JobQueue.delete` allows it, and the runner is meant to
    /// discard the handler's result, see `deletingARunningJobCancelsItsHandlerToo`) just as its
    /// handler returns, before the loop has looked at the change. The late result must be discarded
    /// as for a cancel (`complete` of the deleted job's lease throws `leaseLost`); before, `JobRunner.record`
    /// treated the error as the queue refusing writes: the runner stopped itself and claimed nothing more.
    ///
    /// Deterministic: a predicate of `RunnerEvents.wait` runs on the recording thread, so it holds the
    /// loop at the end of a pass while the handler's own task deletes the job and returns.
    @Test func aRunningJobDeletedAsItsHandlerReturnsDoesNotStopTheRunner() async throws {
        let fixture = try RuntimeFixture()
        let gate = Gate()
        let checkpoints = Checkpoints()
        let queue = fixture.queue
        try fixture.runner.register(kind: "upload") { _, context in
            checkpoints.reach("running")
            try await gate.wait()
            try await queue.delete(context.id)  // another part of the app deletes it as the handler ends
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await checkpoints.wait(for: "running")
        await fixture.waitForIdle(after: 0)
        let before = fixture.eventCount
        let runner = fixture.runner
        let held = Task {
            await fixture.events.wait { events in
                if events.count == before { checkpoints.reach("watching") }
                guard events.count > before, case .waiting = events.last else { return false }
                // The loop is held here, at the end of a pass. Let the handler delete its job and return.
                gate.open()
                let limit = DispatchTime.now().uptimeNanoseconds + 2_000_000_000  // a safety bound only
                while DispatchTime.now().uptimeNanoseconds < limit {
                    let settled = runner.state.withLock { state in
                        !state.executions.values.contains { $0.lease.job.id == id && !$0.isSettled }
                    }
                    if settled { break }
                    sched_yield()
                }
                return true
            }
        }
        await checkpoints.wait(for: "watching")
        try fixture.runner.register(kind: "other") { _, _ in }  // one more pass
        await held.value
        await fixture.events.wait { events in
            events.contains(.discarded(id)) || events.contains { if case .recordFailed = $0 { return true } else { return false } }
        }
        #expect(try fixture.queue.job(id) == nil)
        #expect(fixture.runner.failure == nil, "the runner stopped itself: \(String(describing: fixture.runner.failure))")
        #expect(fixture.events.all.contains(.discarded(id)))
        // And it still runs jobs.
        let next = try await fixture.queue.enqueue(NewJob(kind: "other"))
        if fixture.runner.failure == nil {
            await fixture.events.wait { $0.contains(.succeeded(next)) }
        }
        try await fixture.tearDown()
    }

    /// Replay applies records through the same `apply`, which appends every dependent a cascade
    /// touched to `cascadedIDs`; only the live `commit` takes them. After open the state still holds
    /// every cascade of the replayed log (memory growing with the log since the last snapshot), and
    /// the first live commit publishes them all as changes of its own.
    @Test func replayLeavesNoCascadesToPublish() throws {
        let temp = TemporaryDirectory("spool-review2")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        let first = try queue.enqueue(NewJob(kind: "a"))
        _ = try queue.enqueue(NewJob(kind: "b", dependencies: [first]))
        try queue.complete(try #require(try queue.claim(kind: "a")))  // unblocks the dependent
        try queue.close()
        queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        #expect(queue.engine.stateSnapshot.cascadedIDs.isEmpty, "replay kept \(queue.engine.stateSnapshot.cascadedIDs)")
        let subscription = queue.engine.changes.subscribe()
        let unrelated = try queue.enqueue(NewJob(kind: "c"))
        #expect(subscription.poll()?.jobIDs == [unrelated.rawValue], "only the job this record changed")
        try queue.close()
    }

    /// `stop(.cancelRunning)` asked while the loop's claim is in flight (between the claim's commit
    /// and its return): the loop still starts the handler — a new side effect after the app asked
    /// to stop — then cancels it on the next pass and records "stopped", which spends the job's
    /// attempt. Now the handler does not start; the counted attempt is recorded as stopped.
    ///
    /// Deterministic: a `RunnerEvents.wait` predicate, run as the loop records `.claimed`, registers the stop.
    @Test func aStopRequestedDuringAClaimDoesNotStartTheHandler() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "upload") { _, _ in
            checkpoints.reach("entered")
            try await Gate().wait()
        }
        fixture.runner.start()
        await fixture.waitForIdle(after: 0)
        let runner = fixture.runner
        let held = Task {
            await fixture.events.wait { events in
                if !events.contains(where: \.isClaim) { checkpoints.reach("watching") }
                guard case .claimed = events.last else { return false }
                // Evaluated on the loop's thread as it records the claim, before it starts the handler:
                // exactly what `stop(.cancelRunning)` does to the state when it lands during the claim's sync.
                runner.state.withLock { state in
                    state.phase = .stopping
                    state.cancelOnStop = true
                }
                return true
            }
        }
        await checkpoints.wait(for: "watching")
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload", maxAttempts: 1))
        await held.value
        await runner.stop(.cancelRunning)
        #expect(checkpoints.count("entered") == 0, "the handler started after stop(.cancelRunning) was asked")
        // The claim counted the attempt before the stop was seen (attempts are counted before work
        // starts, durably); the attempt is recorded as stopped, nothing is left running.
        let job = try fixture.job(id)
        #expect(job.state != .running)
        #expect(job.lastError?.hasPrefix("stopped: the runner was stopped before the handler started") == true,
                "\(job.state): \(job.lastError ?? "")")
        try fixture.queue.close()
        fixture.temp.cleanup()
    }
}
