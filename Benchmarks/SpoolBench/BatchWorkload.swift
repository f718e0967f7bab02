import Foundation
import Spool

/// Many jobs per call: one record, one sync, all or nothing.
func runBatch(_ context: Context) throws {
    let queue = try JobQueue(directory: context.freshPath("batch"), configuration: context.configuration)
    defer { try? queue.close() }
    let payload = Data(repeating: 0x61, count: 48)
    let size = context.options.batchSize
    let batches = (0...context.options.batches).map { _ in
        (0..<size).map { _ in NewJob(kind: "bench", payload: payload) }
    }
    var latencies = Latencies()
    var jobs = 0
    // The first batch warms up (and reserves the file's first chunk); it is not counted.
    try queue.enqueue(contentsOf: batches[0])
    let elapsed = try Clock.seconds {
        for batch in batches.dropFirst() {
            jobs += try latencies.measure { try queue.enqueue(contentsOf: batch) }.count
        }
    }
    context.add(
        Row(
            workload: "batch", name: "batch: \(size) jobs per call", latency: latencies.percentiles,
            rate: Double(jobs) / elapsed, unit: "jobs/s", figures: ["batch_size": Double(size)]))
}
