import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool enqueue` into a queue another process owns as `.shared` (issue #16): the command goes
/// through the queue's inbox instead of waiting for the owner, and the owner's ingestion enqueues the job.
@Suite(.blocking) struct EnqueueProducerCommandTests {
    /// A `.shared` configuration for the owner in this process.
    private static func shared() -> Configuration {
        var configuration = Configuration()
        configuration.sharing = .shared
        return configuration
    }

    @Test func enqueueIntoAQueueOwnedElsewhereGoesThroughTheInboxAndReturnsPromptly() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("enqueue-producer")
        defer { temporary.cleanup() }
        let owner = try JobQueue(directory: temporary.queue, configuration: Self.shared())
        let started = Date()
        let result = try ChildProcess.run(binary, ["enqueue", temporary.queue, "--kind", "mail", "--id", "m1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0 && result.output == "m1\n", "\(result.status) \(result.output)")
        // Waiting for the owner would take the command's whole lock wait; it must not wait at all.
        #expect(elapsed < 5, "the command took \(elapsed) s")
        #expect(try owner.job("m1") == nil, "not in the queue before the owner ingests it")
        #expect(try owner.ingestInbox() == 1)
        let job = try #require(try owner.job("m1"))
        #expect(job.kind == "mail" && job.state == .enqueued)
        try closeChecked(owner)
    }

    @Test func producerFlagWritesTheInboxEvenWithNoOwner() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("enqueue-producer-flag")
        defer { temporary.cleanup() }
        try JobQueue(directory: temporary.queue, configuration: Configuration()).close()
        let result = try ChildProcess.run(
            binary, ["enqueue", temporary.queue, "--kind", "mail", "--id", "p1", "--producer"])
        #expect(result.status == 0 && result.output == "p1\n", "\(result.status) \(result.output)")
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).count == 1, "one inbox file")
        // The log does not hold it: a read-only replay sees no job.
        #expect(try LogInspector.withJobs(directory: temporary.queue) { $0.jobs().isEmpty })
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        #expect(try queue.job("p1")?.state == .enqueued, "the open ingested it")
        try closeChecked(queue)
        let missing = try ChildProcess.run(
            binary, ["enqueue", temporary.queue + "/none", "--kind", "mail", "--producer"])
        #expect(missing.status == 1, "a producer needs an existing queue")
    }
}
