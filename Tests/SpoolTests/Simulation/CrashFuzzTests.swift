import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Simulated power loss: a seeded workload runs on a ``SimulatedDisk`` beside a
/// reference model, the machine "loses power" at random I/O steps, and every
/// recovery must show exactly what was acknowledged (plus, at most, the one
/// operation in flight).
///
/// Every other seed runs with ``Durability/ordered``: there a power loss may also take back the
/// last acknowledged changes, in order, and the recovered queue must show one of the states
/// acknowledged before (counted as allowed losses); anything else is a violation.
///
/// `SPOOL_FUZZ_STATES=N` sets how many crash states the random fuzzer explores
/// (default 20,000; a long run uses 1,000,000); `SPOOL_FUZZ_SEED=S` replays one seed.
@Suite(.blocking) struct CrashFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let targetStates = Int(environment["SPOOL_FUZZ_STATES"] ?? "") ?? 20_000

    @Test func randomWorkloadsSurviveRandomCrashes() throws {
        let fixedSeed = Self.environment["SPOOL_FUZZ_SEED"].flatMap(UInt64.init)
        let seeds = fixedSeed.map { AnySequence([$0]) } ?? AnySequence(sequence(first: UInt64(1)) { $0 + 1 })
        var explored = 0
        var runs = 0
        var compactions = 0
        var compactionCrashes = 0
        var migrations = 0
        var migrationCrashes = 0
        var blocked = 0
        var cascades = 0
        var occurrences = 0
        var handovers = 0
        var featureChanges: [String: Int] = [:]
        var handoverClaims = 0
        var orderedRuns = 0
        var orderedLosses = 0
        var lostStates = 0
        let started = Date()
        for seed in seeds {
            if explored >= Self.targetStates { break }
            let run = SimulationRun()
            var generator = SeededGenerator(seed: seed)
            if seed % 2 == 0 {
                run.durability = .ordered
                orderedRuns += 1
            }
            run.open()
            var crashIn = Int.random(in: 1...40, using: &generator)
            let ops = WorkloadOp.random(count: 120, using: &generator)
            for (index, op) in ops.enumerated() {
                run.disk.crash(atStep: run.disk.steps + crashIn)
                if Int.random(in: 0..<25, using: &generator) == 0 {
                    let faults: [SimulatedDisk.Fault] = [.write(ENOSPC), .shortWrite(ENOSPC), .write(EIO), .sync(EIO)]
                    run.disk.inject(faults[Int.random(in: 0..<faults.count, using: &generator)])
                    run.faultInjected = true
                }
                let candidates = run.perform(op)
                if run.faultInjected && !run.disk.hasCrashed {
                    let wasHit = run.disk.pendingFaults == 0
                    if wasHit && run.queue != nil {
                        run.disk.crash(atStep: nil)
                        run.reopenAfterFailure(
                            candidates: candidates, context: "seed \(seed) op \(index) (\(op)) after an injected fault")
                    }
                    run.disk.clearFaults()
                    run.faultInjected = false
                }
                if run.disk.hasCrashed || run.queue == nil {
                    if case .compact = op { compactionCrashes += 1 }
                    if case .migrate = op { migrationCrashes += 1 }
                    // With ordered syncs, where the power loss cuts the acknowledged groups (always after all of them otherwise).
                    let cut = Int.random(in: run.disk.orderedCuts, using: &generator)
                    let survival = Dictionary(
                        uniqueKeysWithValues: run.disk.pendingChanges(atEpoch: cut).map {
                            ($0.path, randomSurvival(for: $0.changes, using: &generator))
                        })
                    let secondCrash =
                        Int.random(in: 0..<4, using: &generator) == 0 ? Int.random(in: 1...3, using: &generator) : nil
                    run.crashAndRecover(
                        candidates: candidates, survival: survival, cut: cut, crashDuringOpenAt: secondCrash,
                        context: "seed \(seed) op \(index) (\(op)) cut \(cut) survival \(survival)")
                    if Int.random(in: 0..<4, using: &generator) == 0 { run.checkReclaimingOpen() }
                    crashIn = Int.random(in: 1...40, using: &generator)
                } else {
                    run.disk.crash(atStep: nil)
                    crashIn = max(1, crashIn - 1)
                }
                if !run.violations.isEmpty { break }
            }
            run.close()
            explored += run.statesChecked
            compactions += run.compactions
            migrations += run.migrationsApplied
            blocked += run.blockedEnqueues
            cascades += run.cascades
            occurrences += run.occurrences
            handovers += run.handovers
            featureChanges.merge(run.featureChanges, uniquingKeysWith: +)
            handoverClaims += run.handoverClaims
            orderedLosses += run.orderedLosses
            lostStates += run.lostStates
            runs += 1
            #expect(
                run.violations.isEmpty,
                """
                seed \(seed): \(run.violations.prefix(3).joined(separator: "\n"))
                reproduce: SPOOL_FUZZ_SEED=\(seed) swift test --filter CrashFuzzTests/randomWorkloadsSurviveRandomCrashes
                """)
            if !run.violations.isEmpty { break }
        }
        print(
            "crash fuzzer: \(explored) crash states in \(runs) workloads, \(String(format: "%.1f", Date().timeIntervalSince(started))) s; \(compactions) compactions completed, \(compactionCrashes) crashes during one; \(migrations) job migrations applied, \(migrationCrashes) crashes during one; \(blocked) blocked enqueues, \(cascades) cascades, \(occurrences) periodic occurrences; \(handovers) handovers (\(handoverClaims) with a claim in the record); \(orderedRuns) workloads with ordered syncs, \(orderedLosses) recoveries lost acknowledged changes as allowed (\(lostStates) acknowledged states in all); \(featureChanges.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))"
        )
        if fixedSeed == nil && Self.targetStates >= 10_000 {
            let features = [
                "parks", "checkpoints", "parked completions", "parked failures", "reconciles", "releases", "snoozes",
                "producer enqueues", "producer cancels", "producer tag cancels", "ingestions", "tagged enqueues",
                "results", "tag cancels",
                "results handed to dependents", "retries by a job's own policy",
                "attempts given back, their starts kept",
            ]
            for feature in features {
                #expect(featureChanges[feature, default: 0] > 0, "the workload made no \(feature)")
            }
        }
        if fixedSeed == nil {
            #expect(migrations > 0 && migrationCrashes > 0 || Self.targetStates < 1000, "the workloads hardly migrate")
            #expect(blocked > 0 && cascades > 0 && occurrences > 0, "the workload exercises chains and periodic jobs")
            #expect(handoverClaims > 0, "the workload hands over")
            #expect(orderedLosses > 0 || Self.targetStates < 1000, "no power loss took back an ordered sync's changes")
        }
        #expect(explored >= min(Self.targetStates, 1), "explored \(explored) states")
    }

    @Test func everyCrashPointOfSmallWorkloadsRecovers() throws {
        let workloads = Int(Self.environment["SPOOL_EXHAUSTIVE_WORKLOADS"] ?? "") ?? 40
        var explored = 0
        var duringCompaction = 0
        var duringMigration = 0
        var duringProducerWrite = 0
        var duringIngestion = 0
        var generator = SeededGenerator(seed: 4242)
        let started = Date()
        for workload in 0..<workloads {
            let ops = WorkloadOp.random(count: 12, using: &generator)
            // A dry run counts the I/O steps.
            let dry = SimulationRun()
            dry.open()
            for op in ops { dry.perform(op) }
            #expect(dry.violations.isEmpty, "workload \(workload) without crash: \(dry.violations)")
            let totalSteps = dry.disk.steps
            dry.close()
            for crashStep in 1...max(1, totalSteps) {
                // Run up to the crash, remembering what was acknowledged.
                let probe = SimulationRun()
                probe.disk.crash(atStep: crashStep)
                probe.open()
                var candidates = [probe.model]
                var inFlight = "open"
                if probe.queue != nil {
                    for op in ops {
                        candidates = probe.perform(op)
                        inFlight = "\(op)"
                        if probe.disk.hasCrashed || probe.queue == nil { break }
                    }
                }
                guard probe.disk.hasCrashed else { continue }
                let pending = probe.disk.pendingChanges
                let patterns = pending.map { survivalPatterns(for: $0.changes) }
                for combination in cartesian(patterns.map(\.count), limit: 256) {
                    var survival: [String: SimulatedDisk.Survival] = [:]
                    for (file, choice) in combination.enumerated() {
                        survival[pending[file].path] = patterns[file][choice]
                    }
                    // The recovery's clock goes on from the crash's (the producers' readings are behind it).
                    let replay = SimulationRun(disk: probe.disk, clock: probe.clock)
                    replay.adopt(model: probe.model)
                    replay.crashAndRecover(
                        candidates: candidates, survival: survival,
                        context: "workload \(workload) crash at step \(crashStep) during \(inFlight), \(survival)")
                    explored += 1
                    if inFlight == "compact" { duringCompaction += 1 }
                    if inFlight == "migrate" { duringMigration += 1 }
                    if inFlight.hasPrefix("producer") { duringProducerWrite += 1 }
                    if inFlight == "ingest" { duringIngestion += 1 }
                    #expect(
                        replay.violations.isEmpty,
                        """
                        \(replay.violations.first ?? "")
                        reproduce: SPOOL_EXHAUSTIVE_WORKLOADS=\(workload + 1) swift test --filter CrashFuzzTests/everyCrashPointOfSmallWorkloadsRecovers
                        """)
                    if !replay.violations.isEmpty { return }
                    // The recovered queue takes new work, and survives a clean reopen.
                    replay.perform(
                        .enqueue(id: "after-crash", priority: 0, delay: 0, maxAttempts: nil, key: nil, policy: .keep))
                    replay.perform(.reopen)
                    #expect(replay.violations.isEmpty, "\(replay.violations.first ?? "")")
                    replay.close()
                }
            }
        }
        print(
            "exhaustive: \(explored) crash states from \(workloads) workloads of 12 operations (\(duringCompaction) during a compaction, \(duringMigration) during a migration, \(duringProducerWrite) during a producer's write, \(duringIngestion) during an ingestion), \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
        #expect(duringCompaction > 0, "no crash point fell in a compaction")
        #expect(duringMigration > 0, "no crash point fell in a migration")
        #expect(duringProducerWrite > 0, "no crash point fell in a producer's write")
        #expect(duringIngestion > 0, "no crash point fell in an ingestion")
        #expect(explored >= workloads)
    }
}

/// Every combination of choices, one index per dimension, at most `limit` of them.
func cartesian(_ sizes: [Int], limit: Int) -> [[Int]] {
    var result: [[Int]] = [[]]
    for size in sizes {
        result = result.flatMap { prefix in (0..<max(size, 1)).map { prefix + [$0] } }
        if result.count > limit { result = Array(result.prefix(limit)) }
    }
    return result
}
