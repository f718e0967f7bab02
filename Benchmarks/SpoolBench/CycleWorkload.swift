import Foundation
@_spi(Benchmarks) import Spool

/// Workers claiming and completing jobs from a full queue: two durable
/// transitions per job. Throughput in completed jobs per second; latency of
/// one claim + complete.
func runCycle(_ context: Context) throws {
    let duration = context.options.duration
    for workers in context.options.workers {
        let queue = try JobQueue(directory: context.freshPath("cycle-\(workers)"), configuration: context.configuration)
        defer { try? queue.close() }
        // Enough jobs that the workers never run dry within the duration.
        let payload = Data(repeating: 0x61, count: 48)
        for _ in 0..<max(context.options.count, 40_000) {
            try queue.enqueueWithoutWaiting(NewJob(kind: "bench", payload: payload))
        }
        try queue.waitUntilDurable()
        let before = queue.logStatistics
        let results = Shared<(completed: Int, latencies: Latencies, error: String?)>((0, Latencies(), nil))
        let start = Clock.nanoseconds()
        let deadline = start + UInt64(duration * 1e9)
        onThreads(workers) { _ in
            var latencies = Latencies(capacity: 4096)
            var done = 0
            var failure: String?
            while Clock.nanoseconds() < deadline {
                do {
                    let finished = try latencies.measure { () -> Bool in
                        guard let lease = try queue.claim() else { return false }
                        try queue.complete(lease)
                        return true
                    }
                    if !finished { break }
                    done += 1
                } catch {
                    failure = "\(error)"
                    break
                }
            }
            results.withLock {
                $0.completed += done
                $0.latencies.append(contentsOf: latencies)
                if let failure { $0.error = failure }
            }
        }
        let elapsed = Double(Clock.nanoseconds() - start) / 1e9
        let after = queue.logStatistics
        let (completed, latencies, error) = results.withLock { $0 }
        if let error { throw BenchError("a worker failed: \(error)") }
        context.add(Row(workload: "cycle", name: "cycle: claim + complete, \(workers) worker\(workers == 1 ? "" : "s")",
                        latency: latencies.percentiles, rate: Double(completed) / elapsed, unit: "jobs/s",
                        figures: ["workers": Double(workers),
                                  "acks_per_fsync": Double(2 * completed) / Double(max(1, after.dataSyncs - before.dataSyncs))]))
    }
}
