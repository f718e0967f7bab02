import Foundation
import Spool

/// One producer, one durable enqueue at a time: the latency of an acknowledgement.
func runEnqueue(_ context: Context) throws {
    let queue = try JobQueue(directory: context.freshPath("enqueue"), configuration: context.configuration)
    defer { try? queue.close() }
    let payload = Data(repeating: 0x61, count: 48)
    // Warm up: the first enqueue reserves the first chunk of the file.
    try queue.enqueue(NewJob(kind: "bench", payload: payload))
    var latencies = Latencies(capacity: context.options.count)
    for _ in 0..<context.options.count {
        try latencies.measure { _ = try queue.enqueue(NewJob(kind: "bench", payload: payload)) }
    }
    context.add(Row(workload: "enqueue", name: "enqueue (single producer)", latency: latencies.percentiles))
}
