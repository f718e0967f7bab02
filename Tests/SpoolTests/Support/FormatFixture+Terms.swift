import Foundation
import Testing

@testable import Spool

extension FormatFixture {
    /// The producer's terms (format-2-terms, inbox body version 12): a producer whose configuration's budget (7)
    /// is not the owner's (3) records, in file `aaaa….inbox`, `terms-1` with no budget of its own, tagged
    /// `photos`, arriving parked under `upload:1` (`owner_attempts`, `park_on_ingest`, `tags`); `terms-2` arriving
    /// parked under `taken`, a key the owner's `local-parked` holds (so enqueued alone); `terms-3` with a budget
    /// of 2 and key `k` under policy replace, parked under `upload:3`. The owner ingests them and closes: the log
    /// holds their claims and parks, the file its records. A second producer then records, in file `bbbb….inbox`,
    /// `terms-4` without a budget and `terms-5` with one (a record of version 12, then one of version 10), which
    /// the next open ingests; `expected.json` is the state it holds.
    static func generateTerms(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        let configuration = configuration(clock: clock)
        var producerConfiguration = configuration
        producerConfiguration.retryPolicy = .table([10], maxAttempts: 7)
        var queue = try JobQueue(directory: queuePath, configuration: configuration)
        // A large payload first: the log rolls over, as in every fixture.
        _ = try queue.enqueue(NewJob(kind: "archive", payload: Data(count: 1100), id: "local-0"))
        _ = try queue.enqueue(NewJob(kind: "transfer", id: "local-parked"))
        let lease = try #require(try queue.claim(kind: "transfer", leaseDuration: 60))
        _ = try queue.park(lease, key: "taken", for: 86_400)
        try closeChecked(queue)

        let x = try QueueProducer(
            directory: queuePath, configuration: producerConfiguration,
            fileIDs: { [UInt8](repeating: 0xaa, count: 16) })
        clock.advance(by: 1)
        try x.enqueue(
            NewJob(kind: "upload", payload: Data("one".utf8), id: "terms-1", tags: ["photos"]),
            parkedUnder: "upload:1", for: 86_400)
        try x.enqueue(NewJob(kind: "upload", payload: Data("two".utf8), id: "terms-2"), parkedUnder: "taken", for: 600)
        try x.enqueue(
            NewJob(
                kind: "upload", payload: Data("three".utf8), id: "terms-3", maxAttempts: 2, uniqueKey: "k",
                uniquePolicy: .replace),
            parkedUnder: "upload:3", for: 3600)
        clock.advance(by: 1)
        queue = try JobQueue(directory: queuePath, configuration: configuration)
        try closeChecked(queue)
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)

        let y = try QueueProducer(
            directory: queuePath, configuration: producerConfiguration,
            fileIDs: { [UInt8](repeating: 0xbb, count: 16) })
        clock.advance(by: 1)
        try y.enqueue(NewJob(kind: "sync", payload: Data("four".utf8), id: "terms-4"))
        try y.enqueue(NewJob(kind: "sync", payload: Data("five".utf8), id: "terms-5", maxAttempts: 1))

        // The state the next open holds (it ingests the second producer's records).
        try writeStateOfNextOpen(of: queuePath, into: directory, configuration: configuration, clock: clock)
    }
}
