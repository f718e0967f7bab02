import Foundation
@_spi(Benchmarks) import Spool

/// Workers claiming and completing jobs from a full queue: two durable
/// transitions per job. Throughput in completed jobs per second; latency of
/// one claim + complete.
///
/// A last row runs one worker on a queue that also holds 40,000 jobs no claim
/// may take — 20,000 requiring a network the device does not have, 20,000
/// blocked by a prerequisite — to show that claims skip them at bucket level
/// instead of scanning them.
func runCycle(_ context: Context) throws {
    let duration = context.options.duration
    for workers in context.options.workers + [-1] {
        let waitingJobs = workers < 0
        let workers = waitingJobs ? 1 : workers
        let queue = try JobQueue(directory: context.freshPath("cycle-\(workers)\(waitingJobs ? "-waiting" : "")"),
                                 configuration: context.configuration)
        defer { try? queue.close() }
        let payload = Data(repeating: 0x61, count: 48)
        if waitingJobs {
            let network = JobConstraints(requiresNetwork: true)
            let prerequisite = try queue.enqueueWithoutWaiting(NewJob(kind: "bench", delay: 1e7))
            for index in 0..<40_000 {
                try queue.enqueueWithoutWaiting(index % 2 == 0
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
        let name = waitingJobs ? "cycle: claim + complete, 1 worker, 40,000 jobs waiting (network, prerequisite)"
                               : "cycle: claim + complete, \(workers) worker\(workers == 1 ? "" : "s")"
        context.add(Row(workload: "cycle", name: name,
                        latency: latencies.percentiles, rate: Double(completed) / elapsed, unit: "jobs/s",
                        figures: ["workers": Double(workers),
                                  "acks_per_fsync": Double(2 * completed) / Double(max(1, after.dataSyncs - before.dataSyncs))]))
    }
}
