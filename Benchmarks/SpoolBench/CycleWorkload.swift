import Foundation
import Spool

/// Workers claiming and completing jobs from a full queue: two durable
/// transitions per job (the app's own `claim` and `complete`, each its own
/// record and sync). Throughput in completed jobs per second; latency of
/// one claim + complete. Then the same stream worked by a ``JobRunner``
/// (``runRunnerCycle(_:workers:)``), whose workers hand one job's outcome and
/// the next claim to the queue together.
///
/// A last row runs one worker on a queue that also holds 40,000 jobs no claim
/// may take — 20,000 requiring a network the device does not have, 20,000
/// blocked by a prerequisite — to show that claims skip them at bucket level
/// instead of scanning them. Another runs one worker beside 40,000 jobs of a paused kind and of a kind at
/// its rate limit (with 21 kinds controlled in all): claims subtract the closed kinds, they scan no job.
func runCycle(_ context: Context) throws {
    let duration = context.options.duration
    for workers in context.options.workers + [-1, -2] {
        let waitingJobs = workers == -1
        let controlledJobs = workers == -2
        let workers = workers < 0 ? 1 : workers
        let queue = try JobQueue(
            directory: context.freshPath(
                "cycle-\(workers)\(waitingJobs ? "-waiting" : "")\(controlledJobs ? "-controlled" : "")"),
            configuration: context.configuration)
        defer { try? queue.close() }
        let payload = Data(repeating: 0x61, count: 48)
        if controlledJobs {
            // 40,000 jobs no claim may take: 20,000 of a paused kind, 20,000 of a kind whose rate-limit
            // window is full; and 10 more paused kinds and 10 rate-limited ones with room, so that every
            // claim of the bench kind meets the controls.
            try queue.setRateLimit(RateLimit(starts: 1, per: 1e8), kind: "bench-limited")
            try queue.enqueue(NewJob(kind: "bench-limited", payload: payload))
            _ = try queue.claim(kind: "bench-limited")
            try queue.pause(kind: "bench-paused")
            for index in 0..<10 {
                try queue.pause(kind: "paused-\(index)")
                try queue.setRateLimit(RateLimit(starts: 1_000_000_000, per: 1), kind: "limited-\(index)")
            }
            for index in 0..<40_000 {
                try queue.enqueueWithoutWaiting(
                    NewJob(
                        kind: index % 2 == 0 ? "bench-paused" : "bench-limited", payload: payload, priority: 1))
            }
        }
        if waitingJobs {
            let network = JobConstraints(requiresNetwork: true)
            let prerequisite = try queue.enqueueWithoutWaiting(NewJob(kind: "bench", delay: 1e7))
            for index in 0..<40_000 {
                try queue.enqueueWithoutWaiting(
                    index % 2 == 0
                        ? NewJob(kind: "bench", payload: payload, priority: 1, constraints: network)
                        : NewJob(kind: "bench", payload: payload, priority: 1, dependencies: [prerequisite]))
            }
        }
        // Enough jobs that the workers never run dry within the duration.
        for _ in 0..<max(context.options.count, Int(40_000 * max(1, duration))) {
            try queue.enqueueWithoutWaiting(NewJob(kind: "bench", payload: payload))
        }
        try queue.waitUntilDurable()
        let before = queue.logStatistics
        let run = runTimed(threads: workers, seconds: duration) {
            guard let lease = try queue.claim() else { return false }
            try queue.complete(lease)
            return true
        }
        let after = queue.logStatistics
        let (completed, latencies, error, elapsed) = (run.operations, run.latencies, run.error, run.elapsed)
        if let error { throw BenchError("a worker failed: \(error)") }
        let name =
            controlledJobs
            ? "cycle: claim + complete, 1 worker, 40,000 jobs of a paused and a rate-limited kind (21 kinds controlled)"
            : waitingJobs
                ? "cycle: claim + complete, 1 worker, 40,000 jobs waiting (network, prerequisite)"
                : "cycle: claim + complete, \(workers) worker\(workers == 1 ? "" : "s")"
        context.add(
            Row(
                workload: "cycle", name: name,
                latency: latencies.percentiles, rate: Double(completed) / elapsed, unit: "jobs/s",
                figures: [
                    "workers": Double(workers),
                    "acks_per_fsync": Double(2 * completed) / Double(max(1, after.dataSyncs - before.dataSyncs)),
                    "sync_us": meanSyncMicroseconds(from: before, to: after),
                ]))
    }
    for workers in context.options.workers {
        try runRunnerCycle(context, workers: workers)
    }
}

/// A ``JobRunner`` with `workers` slots working a full queue with a handler that does nothing:
/// the runtime's cost per job. The latency (one worker only) is the time from one handler's
/// start to the next one's: recording the outcome, claiming the next job, starting its handler.
/// `syncs_per_job` is the data syncs the run made per completed job, `sync_us` the mean sync.
///
/// With one worker the run alternates with its own floor, as the single-producer enqueue pairs
/// with one: ``floorRounds`` rounds of 500 raw preallocated writes + data syncs in the same
/// directory, then the runner for a share of the duration (stopped and started again). The two
/// series see the same minutes of the disk, whose p50 drifts by 10–20 % between workloads.
private func runRunnerCycle(_ context: Context, workers: Int) throws {
    let duration = context.options.duration
    let queue = try JobQueue(
        directory: context.freshPath("runner-cycle-\(workers)"), configuration: context.configuration)
    defer { try? queue.close() }
    let payload = Data(repeating: 0x61, count: 48)
    for _ in 0..<max(context.options.count, Int(40_000 * max(1, duration))) {
        try queue.enqueueWithoutWaiting(NewJob(kind: "bench", payload: payload))
    }
    try queue.waitUntilDurable()
    let starts = Shared([UInt64]())
    starts.withLock { $0.reserveCapacity(1 << 16) }
    let runner = try JobRunner(queue: queue, options: .init(maxConcurrentJobs: workers))
    try runner.register(kind: "bench") { _, _ in
        starts.withLock { $0.append(Clock.nanoseconds()) }
    }
    let paired = workers == 1
    let rounds = paired ? floorRounds : 1
    let floorBytes = [UInt8](repeating: 0xAB, count: Baseline.recordSize)
    var floorFile = try RawSyncFile(
        path: context.freshPath("runner-cycle-floor"), preallocating: paired ? floorBytes.count * 500 * rounds : 0)
    defer { floorFile.close() }
    var floorLatencies = Latencies(capacity: 500 * rounds)
    var latencies = Latencies(capacity: 1 << 16)
    let before = queue.logStatistics
    var elapsed = 0.0
    for _ in 0..<rounds {
        if paired {
            for _ in 0..<500 { try floorLatencies.measure { try floorFile.writeAndSync(floorBytes) } }
        }
        starts.withLock { $0.removeAll(keepingCapacity: true) }
        let started = Clock.nanoseconds()
        runner.start()
        Thread.sleep(forTimeInterval: duration / Double(rounds))
        let stopped = DispatchSemaphore(value: 0)
        Task.detached {
            await runner.stop(.finishRunning)
            stopped.signal()
        }
        stopped.wait()
        elapsed += Double(Clock.nanoseconds() - started) / 1e9
        if let failure = runner.failure { throw BenchError("the runner failed: \(failure)") }
        let times = starts.withLock { $0 }
        if paired {
            for index in times.indices.dropFirst() {
                latencies.record(microseconds: Double(times[index] - times[index - 1]) / 1000)
            }
        }
    }
    let after = queue.logStatistics
    let completed = try queue.counts()[.succeeded]
    let floor = paired ? floorLatencies.percentiles : nil
    if let floor {
        context.add(Row(workload: "cycle", name: "cycle: runner's paired floor (pwrite + fdatasync)", latency: floor))
    }
    context.add(
        Row(
            workload: "cycle",
            name: "cycle: runner, \(workers) worker\(workers == 1 ? "" : "s") (handler start to start)",
            latency: paired ? latencies.percentiles : nil, rate: Double(completed) / elapsed, unit: "jobs/s",
            figures: [
                "workers": Double(workers),
                "syncs_per_job": Double(after.dataSyncs - before.dataSyncs) / Double(max(1, completed)),
                "sync_us": meanSyncMicroseconds(from: before, to: after),
            ],
            floor: floor))
}

/// The rounds in which the 1-worker runner alternates with its paired floor.
private let floorRounds = 4

/// The mean time of one data sync between two readings of a queue's log statistics, in µs: the part
/// of a job's cycle the disk takes, so that the rest is the library's own.
private func meanSyncMicroseconds(from before: LogStatistics, to after: LogStatistics) -> Double {
    Double(after.dataSyncNanoseconds - before.dataSyncNanoseconds) / Double(max(1, after.dataSyncs - before.dataSyncs))
        / 1000
}
