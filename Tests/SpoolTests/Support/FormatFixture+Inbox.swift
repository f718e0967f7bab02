import Foundation
import Testing

@testable import Spool

extension FormatFixture {
    /// The producer inbox files and their ingestion (format-2-inbox): a producer's enqueue with options and
    /// policy replace, a cancel request, both ingested (`inbox_ingested`, the file removed); a second
    /// producer's file whose first record was ingested and whose removal a crash lost, kept through a
    /// compaction (`inbox_ingested` in the snapshot); then a second record in it (as a crash between two
    /// ingestion transactions leaves a file), which the queue's next open ingests. The file is left
    /// *partly ingested*; `expected.json` is the state the next open (which ingests the rest) holds.
    static func generateInbox(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        let configuration = configuration(clock: clock)
        let queue = try JobQueue(directory: queuePath, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "sync", payload: Data("local".utf8), id: "local-1", uniqueKey: "sync:a"))
        _ = try queue.enqueue(NewJob(kind: "sync", id: "local-2"))
        clock.advance(by: 1)
        let producer = try QueueProducer(directory: queuePath, configuration: configuration)
        try producer.enqueue(
            NewJob(
                kind: "sync", payload: Data("from the extension".utf8), id: "inbox-1", priority: 2,
                uniqueKey: "sync:a", uniquePolicy: .replace, constraints: JobConstraints(requiresNetwork: true)))
        try producer.cancel("local-2")
        clock.advance(by: 1)
        _ = try queue.ingestInbox()

        let second = try QueueProducer(directory: queuePath, configuration: configuration)
        try second.enqueue(NewJob(kind: "upload", payload: Data([1, 2, 3]), id: "inbox-2"))
        let inbox = InboxFormat.directory(ofQueue: queuePath)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let bytes = try readFile(inbox + "/" + name)
        _ = try queue.ingestInbox()
        // The removal lost: the file back, as a power loss after the ingestion's commit leaves it.
        try writeFile(inbox + "/" + name, bytes)
        clock.advance(by: 1)
        _ = try queue.compact()
        // A second record after the ingested one, framed as the producer frames it.
        let id = try #require(InboxFormat.fileID(fromName: name))
        let new = NewEnqueue(
            id: "inbox-3", kind: "upload", payload: Data([4]), priority: 0, createdAt: Millis.from(clock.now()),
            runAt: Millis.from(clock.now()), maxAttempts: 3, uniqueKey: "sync:a")
        var frame = InboxCodec.encode(
            [.enqueue(new, InboxTerms(policy: .append))], stamp: nil, headroom: LogFormat.frameHeaderSize)
        RecordFrame.seal(&frame, type: .transaction, lsn: 2, groupIndex: 0, seed: InboxFormat.checksumSeed(id: id))
        try writeFile(inbox + "/" + name, bytes + frame)
        try queue.close()
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)

        // The state the next open holds (it ingests the second record).
        try writeStateOfNextOpen(of: queuePath, into: directory, configuration: configuration, clock: clock)
    }

    /// Writes `directory/expected.json`: the state a copy of the queue at `queuePath` holds once opened (an
    /// open that ingests what the inbox holds), the copy removed again.
    static func writeStateOfNextOpen(
        of queuePath: String, into directory: String, configuration: Configuration, clock: ManualClock
    ) throws {
        let scratch = directory + "/../.fixture-next-open-scratch"
        try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.copyItem(atPath: queuePath, toPath: scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let queue = try JobQueue(directory: scratch, configuration: configuration)
        let expected = try FixtureState(queue: queue, clockAdvance: clock.now().timeIntervalSince(start))
        try closeChecked(queue)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(expected).write(to: URL(fileURLWithPath: directory + "/expected.json"))
    }
}
