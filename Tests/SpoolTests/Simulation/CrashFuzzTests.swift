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
/// (default 20,000, 5,000 under the thread sanitizer; a long run uses 1,000,000); `SPOOL_FUZZ_SEED=S`
/// replays one seed.
@Suite(.blocking) struct CrashFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    /// 20,000 by default; 5,000 under the thread sanitizer, whose lane looks for races, which the
    /// first thousand states show as well as the last, while its shards run in turn (see ``shards``):
    /// with 20,000 the fuzzer alone was the last 450 s of CI's sanitizer run. The debug lane explores all.
    static let targetStates = Int(environment["SPOOL_FUZZ_STATES"] ?? "") ?? (runsUnderThreadSanitizer ? 5_000 : 20_000)

    /// The seeds are dealt to this many shards, explored at once on threads of their own (the order
    /// within a shard, and so every seed's run, is the same whatever the machine); one after another
    /// under the thread sanitizer, where more threads than cores contend (``BlockingTestThreads``).
    static let shards = 4

    @Test func randomWorkloadsSurviveRandomCrashes() throws {
        let fixedSeed = Self.environment["SPOOL_FUZZ_SEED"].flatMap(UInt64.init)
        let started = Date()
        let tally: FuzzTally
        if let fixedSeed {
            tally = Self.explore(seeds: [fixedSeed], target: Self.targetStates)
        } else {
            let shardTarget = (Self.targetStates + Self.shards - 1) / Self.shards
            let tallies = Locked([FuzzTally](repeating: FuzzTally(), count: Self.shards))
            let done = DispatchSemaphore(value: 0)
            for shard in 0..<Self.shards {
                let explore: @Sendable () -> Void = {
                    let seeds = sequence(first: UInt64(shard + 1)) { $0 + UInt64(Self.shards) }
                    let result = Self.explore(seeds: seeds, target: shardTarget)
                    tallies.withLock { $0[shard] = result }
                    done.signal()
                }
                if runsUnderThreadSanitizer { explore() } else { Thread(block: explore).start() }
            }
            for _ in 0..<Self.shards { done.wait() }
            tally = tallies.withLock { $0.reduce(into: FuzzTally()) { $0.add($1) } }
        }
        for failure in tally.failures { Issue.record(Comment(rawValue: failure)) }
        print(
            "crash fuzzer: \(tally.explored) crash states in \(tally.runs) workloads (\(fixedSeed == nil ? Self.shards : 1) shards), \(String(format: "%.1f", Date().timeIntervalSince(started))) s; \(tally.compactions) compactions completed, \(tally.compactionCrashes) crashes during one; \(tally.migrations) job migrations applied, \(tally.migrationCrashes) crashes during one; \(tally.blocked) blocked enqueues, \(tally.cascades) cascades, \(tally.occurrences) periodic occurrences; \(tally.handovers) handovers (\(tally.handoverClaims) with a claim in the record); \(tally.orderedRuns) workloads with ordered syncs, \(tally.orderedLosses) recoveries lost acknowledged changes as allowed (\(tally.lostStates) acknowledged states in all); \(tally.featureChanges.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))"
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
                #expect(tally.featureChanges[feature, default: 0] > 0, "the workload made no \(feature)")
            }
        }
        if fixedSeed == nil {
            #expect(
                tally.migrations > 0 && tally.migrationCrashes > 0 || Self.targetStates < 1000,
                "the workloads hardly migrate")
            #expect(
                tally.blocked > 0 && tally.cascades > 0 && tally.occurrences > 0,
                "the workload exercises chains and periodic jobs")
            #expect(tally.handoverClaims > 0, "the workload hands over")
            #expect(
                tally.orderedLosses > 0 || Self.targetStates < 1000, "no power loss took back an ordered sync's changes"
            )
        }
        #expect(tally.explored >= min(Self.targetStates, 1), "explored \(tally.explored) states")
    }

    /// Runs the workloads of `seeds`, in order, until `target` crash states were explored or one
    /// broke a rule (it is the last: its failure says how to run it alone). Touches nothing shared,
    /// so shards run at once; issues are returned, not recorded, as a thread of its own has no test.
    static func explore(seeds: some Sequence<UInt64>, target: Int) -> FuzzTally {
        var tally = FuzzTally()
        for seed in seeds {
            if tally.explored >= target { break }
            let run = SimulationRun()
            var generator = SeededGenerator(seed: seed)
            if seed % 2 == 0 {
                run.durability = .ordered
                tally.orderedRuns += 1
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
                    if case .compact = op { tally.compactionCrashes += 1 }
                    if case .migrate = op { tally.migrationCrashes += 1 }
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
            tally.add(run)
            if !run.violations.isEmpty {
                tally.failures.append(
                    """
                    seed \(seed): \(run.violations.prefix(3).joined(separator: "\n"))
                    reproduce: SPOOL_FUZZ_SEED=\(seed) swift test --filter CrashFuzzTests/randomWorkloadsSurviveRandomCrashes
                    """)
                break
            }
        }
        return tally
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

/// What the random fuzzer's workloads saw, added up over seeds and shards.
struct FuzzTally {
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
    /// Each broken rule's message, with the seed that reproduces it.
    var failures: [String] = []

    /// Counts one finished workload (its crashes during a compaction or a migration, and whether its
    /// syncs were ordered, are counted by the loop that drives it).
    mutating func add(_ run: SimulationRun) {
        add(
            FuzzTally(
                explored: run.statesChecked, runs: 1, compactions: run.compactions, migrations: run.migrationsApplied,
                blocked: run.blockedEnqueues, cascades: run.cascades, occurrences: run.occurrences,
                handovers: run.handovers, featureChanges: run.featureChanges, handoverClaims: run.handoverClaims,
                orderedLosses: run.orderedLosses, lostStates: run.lostStates))
    }

    /// Adds another shard's counts.
    mutating func add(_ other: FuzzTally) {
        explored += other.explored
        runs += other.runs
        compactions += other.compactions
        compactionCrashes += other.compactionCrashes
        migrations += other.migrations
        migrationCrashes += other.migrationCrashes
        blocked += other.blocked
        cascades += other.cascades
        occurrences += other.occurrences
        handovers += other.handovers
        featureChanges.merge(other.featureChanges, uniquingKeysWith: +)
        handoverClaims += other.handoverClaims
        orderedRuns += other.orderedRuns
        orderedLosses += other.orderedLosses
        lostStates += other.lostStates
        failures += other.failures
    }
}
