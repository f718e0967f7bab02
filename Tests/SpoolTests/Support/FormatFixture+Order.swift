import Foundation
import Testing

@testable import Spool

extension FormatFixture {
    /// The inbox records that carry their producer's order (format-2-order, body version 10): two producers
    /// whose files' names sort against the order of their calls (x's `eeee….inbox` after y's `1111….inbox`)
    /// make causal chains, each call after the last returned — x enqueues `order-1` under key `sync:k`, y
    /// appends `order-2` to that key, x enqueues `order-3` tagged `trip`, y cancels by tag `trip`
    /// (`cancel_tagged`), x enqueues `order-4` tagged `trip` — all left in the inbox. `expected.json` is the
    /// state the next open (which ingests them, merged by their `acknowledged` readings) holds: `order-2`
    /// waits for `order-1`, `local-1` (the owner's, tagged `trip`) and `order-3` are cancelled, `order-4` is not.
    static func generateOrder(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        let configuration = configuration(clock: clock)
        let queue = try JobQueue(directory: queuePath, configuration: configuration)
        // A large payload first: the log rolls over, as in every fixture.
        _ = try queue.enqueue(NewJob(kind: "archive", payload: Data(count: 1100), id: "local-0"))
        _ = try queue.enqueue(NewJob(kind: "trip", payload: Data("local".utf8), id: "local-1", tags: ["trip"]))
        try closeChecked(queue)
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)

        let x = try QueueProducer(
            directory: queuePath, configuration: configuration, fileIDs: { [UInt8](repeating: 0xee, count: 16) })
        let y = try QueueProducer(
            directory: queuePath, configuration: configuration, fileIDs: { [UInt8](repeating: 0x11, count: 16) })
        clock.advance(by: 1)
        try x.enqueue(NewJob(kind: "sync", payload: Data("first".utf8), id: "order-1", uniqueKey: "sync:k"))
        clock.advance(by: 1)
        try y.enqueue(
            NewJob(kind: "sync", payload: Data("then".utf8), id: "order-2", uniqueKey: "sync:k", uniquePolicy: .append))
        clock.advance(by: 1)
        try x.enqueue(NewJob(kind: "trip", payload: Data([3]), id: "order-3", tags: ["trip"]))
        clock.advance(by: 1)
        try y.cancel(tagged: "trip")
        clock.advance(by: 1)
        try x.enqueue(NewJob(kind: "trip", payload: Data([4]), id: "order-4", tags: ["trip"]))

        // The state the next open holds (it ingests the inbox).
        try writeStateOfNextOpen(of: queuePath, into: directory, configuration: configuration, clock: clock)
    }
}
