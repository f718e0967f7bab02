import Foundation
import Spool

/// One producer, one durable enqueue at a time: the latency of an acknowledgement.
///
/// Each enqueue is paired with a raw preallocated write + data sync of a
/// record's size, in a file of the same directory, taken just before it: the
/// two series see the same moments of the disk, so their ratio does not move
/// with what the disk does between workloads (on a shared virtual disk the
/// floor's p50 drifts by 10–20 % from one minute to the next).
func runEnqueue(_ context: Context) throws {
    let queue = try JobQueue(directory: context.freshPath("enqueue"), configuration: context.configuration)
    defer { try? queue.close() }
    let payload = Data(repeating: 0x61, count: 48)
    let count = context.options.count
    let floorBytes = [UInt8](repeating: 0xAB, count: Baseline.recordSize)
    var floorFile = try RawSyncFile(path: context.freshPath("enqueue-floor"), preallocating: floorBytes.count * count)
    defer { floorFile.close() }
    // Warm up: the first enqueue reserves the first chunk of the file.
    try queue.enqueue(NewJob(kind: "bench", payload: payload))
    var latencies = Latencies(capacity: count)
    var floorLatencies = Latencies(capacity: count)
    for _ in 0..<count {
        try floorLatencies.measure { try floorFile.writeAndSync(floorBytes) }
        try latencies.measure { _ = try queue.enqueue(NewJob(kind: "bench", payload: payload)) }
    }
    let floor = floorLatencies.percentiles
    context.add(Row(workload: "enqueue", name: "enqueue: paired floor (pwrite + fdatasync)", latency: floor))
    context.add(
        Row(
            workload: "enqueue", name: "enqueue (single producer)", latency: latencies.percentiles,
            floor: floor))
}
