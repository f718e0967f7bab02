import Foundation
@_spi(Benchmarks) import Spool

/// N producers enqueueing durably for a fixed time: acknowledged enqueues per
/// second and acknowledgements per data sync (group commit), measured twice:
/// with producer threads calling the blocking API, and with producer tasks
/// calling the async API (which is how a Swift app would enqueue from many places).
func runConcurrent(_ context: Context) throws {
    let payload = Data(repeating: 0x61, count: 48)
    let duration = context.options.duration
    for mode in context.options.producerModes {
        var singleRate: Double?
        for producers in context.options.producers {
            let queue = try JobQueue(directory: context.freshPath("concurrent-\(mode)-\(producers)"),
                                     configuration: context.configuration)
            defer { try? queue.close() }
            try queue.enqueue(NewJob(kind: "bench", payload: payload))
            let before = queue.logStatistics
            let run: TimedRun
            switch mode {
            case .threads:
                run = runTimed(threads: producers, seconds: duration) {
                    _ = try queue.enqueue(NewJob(kind: "bench", payload: payload))
                    return true
                }
            case .tasks:
                run = runTimed(tasks: producers, seconds: duration) {
                    _ = try await queue.enqueue(NewJob(kind: "bench", payload: payload))
                    return true
                }
            }
            let after = queue.logStatistics
            if let error = run.error { throw BenchError("a producer failed: \(error)") }
            let rate = Double(run.operations) / run.elapsed
            if producers == 1 { singleRate = rate }
            var figures: [String: Double] = [
                "producers": Double(producers),
                "acks_per_fsync": Double(run.operations) / Double(max(1, after.dataSyncs - before.dataSyncs)),
                "full_syncs": Double(after.fullSyncs - before.fullSyncs),
            ]
            if let singleRate { figures["x_single_producer"] = rate / singleRate }
            let plural = producers == 1 ? "" : "s"
            context.add(Row(workload: "concurrent", name: "concurrent: \(producers) producer \(mode.noun)\(plural)",
                            latency: run.latencies.percentiles, rate: rate, unit: "acks/s", figures: figures))
        }
    }
}

/// How the concurrent workload's producers run.
enum ProducerMode: CaseIterable, CustomStringConvertible {
    /// One thread per producer, calling the blocking `enqueue`.
    case threads
    /// One Swift task per producer, calling `await enqueue`, on the cooperative pool.
    case tasks

    var noun: String { self == .threads ? "thread" : "task" }
    /// Its name on the command line.
    var name: String { noun + "s" }
    var description: String { noun }
}
