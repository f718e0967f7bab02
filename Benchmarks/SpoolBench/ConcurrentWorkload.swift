import Foundation
@_spi(Benchmarks) import Spool

/// N producer threads enqueueing durably for a fixed time: acknowledged
/// enqueues per second and acknowledgements per data sync (group commit).
func runConcurrent(_ context: Context) throws {
    let payload = Data(repeating: 0x61, count: 48)
    let duration = context.options.duration
    var singleRate: Double?
    for producers in context.options.producers {
        let queue = try JobQueue(directory: context.freshPath("concurrent-\(producers)"), configuration: context.configuration)
        defer { try? queue.close() }
        try queue.enqueue(NewJob(kind: "bench", payload: payload))
        let before = queue.logStatistics
        let run = runTimed(threads: producers, seconds: duration) {
            _ = try queue.enqueue(NewJob(kind: "bench", payload: payload))
            return true
        }
        let after = queue.logStatistics
        let (acknowledged, latencies, error, elapsed) = (run.operations, run.latencies, run.error, run.elapsed)
        if let error { throw BenchError("a producer failed: \(error)") }
        let rate = Double(acknowledged) / elapsed
        if producers == 1 { singleRate = rate }
        var figures: [String: Double] = [
            "producers": Double(producers),
            "acks_per_fsync": Double(acknowledged) / Double(max(1, after.dataSyncs - before.dataSyncs)),
            "full_syncs": Double(after.fullSyncs - before.fullSyncs),
        ]
        if let singleRate { figures["x_single_producer"] = rate / singleRate }
        context.add(Row(workload: "concurrent", name: "concurrent: \(producers) producer\(producers == 1 ? "" : "s")",
                        latency: latencies.percentiles, rate: rate, unit: "acks/s", figures: figures))
    }
}
