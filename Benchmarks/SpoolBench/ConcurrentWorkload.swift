import Foundation
import Spool

/// N producers enqueueing durably for a fixed time: acknowledged enqueues per
/// second and acknowledgements per data sync (group commit), measured twice:
/// with producer threads calling the blocking API, and with producer tasks
/// calling the async API (which is how a Swift app would enqueue from many places).
///
/// Each producer count has a queue of its own, and the counts take turns in
/// ``concurrentRounds`` rounds, so that every count, the single producer the
/// others are compared with among them, sees the same stretches of the disk:
/// on a shared virtual disk the sync time drifts by 10–20 % within a minute.
func runConcurrent(_ context: Context) throws {
    let payload = Data(repeating: 0x61, count: 48)
    let slice = context.options.duration / Double(concurrentRounds)
    for mode in context.options.producerModes {
        var runs: [(producers: Int, queue: JobQueue, before: LogStatistics, total: TimedRun)] = []
        defer { for run in runs { try? run.queue.close() } }
        for producers in context.options.producers {
            let queue = try JobQueue(
                directory: context.freshPath("concurrent-\(mode)-\(producers)"),
                configuration: context.configuration)
            runs.append((producers, queue, queue.logStatistics, TimedRun()))
            // Warm up: the first enqueue reserves the first chunk of the file.
            try queue.enqueue(NewJob(kind: "bench", payload: payload))
            runs[runs.count - 1].before = queue.logStatistics
        }
        for _ in 0..<concurrentRounds {
            for index in runs.indices {
                let queue = runs[index].queue
                let run: TimedRun
                switch mode {
                case .threads:
                    run = runTimed(threads: runs[index].producers, seconds: slice) {
                        _ = try queue.enqueue(NewJob(kind: "bench", payload: payload))
                        return true
                    }
                case .tasks:
                    run = runTimed(tasks: runs[index].producers, seconds: slice) {
                        _ = try await queue.enqueue(NewJob(kind: "bench", payload: payload))
                        return true
                    }
                }
                if let error = run.error { throw BenchError("a producer failed: \(error)") }
                runs[index].total.operations += run.operations
                runs[index].total.elapsed += run.elapsed
                runs[index].total.latencies.append(contentsOf: run.latencies)
            }
        }
        let singleRate = runs.first { $0.producers == 1 }.map { Double($0.total.operations) / $0.total.elapsed }
        for run in runs {
            let after = run.queue.logStatistics
            let rate = Double(run.total.operations) / run.total.elapsed
            let syncs = Double(max(1, after.dataSyncs - run.before.dataSyncs))
            // What bounds the rate: acknowledgements per sync, and how long one sync and one
            // whole cycle of the log writer take (the cycle less the sync is the leader's own work).
            var figures: [String: Double] = [
                "producers": Double(run.producers),
                "acks_per_fsync": Double(run.total.operations) / syncs,
                "full_syncs": Double(after.fullSyncs - run.before.fullSyncs),
                "sync_us": Double(after.dataSyncNanoseconds - run.before.dataSyncNanoseconds) / syncs / 1000,
                "cycle_us": run.total.elapsed / syncs * 1e6,
            ]
            if let singleRate { figures["x_single_producer"] = rate / singleRate }
            let plural = run.producers == 1 ? "" : "s"
            context.add(
                Row(
                    workload: "concurrent", name: "concurrent: \(run.producers) producer \(mode.noun)\(plural)",
                    latency: run.total.latencies.percentiles, rate: rate, unit: "acks/s", figures: figures))
        }
    }
    // Half of 32 producers: how many callers one sync wakes at 32 (see the README's Performance section).
    if context.options.producerModes.contains(.tasks) { runWakeUpCost(context, tasks: 16) }
}

/// How many turns each producer count of the concurrent workload takes.
let concurrentRounds = 3

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
