import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A producer stopped with SIGSTOP (mid-call or between calls) blocks no one (issue #16): the owner's
/// ingestion and the other producers go on, the only lock held is the stopped producer's on its own
/// inbox file, and after SIGCONT every acknowledged id is in the queue exactly once.
@Suite(.blocking) struct StoppedProducerTests {
    /// The inodes of the files in the queue's inbox folder.
    static func inboxInodes(of queue: String) -> Set<String> {
        let inbox = InboxFormat.directory(ofQueue: queue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []
        return Set(
            names.compactMap { name in
                (try? FileManager.default.attributesOfItem(atPath: inbox + "/" + name)[.systemFileNumber] as? NSNumber)
                    .map { "\($0.uint64Value)" }
            })
    }

    @Test(.enabled(if: ProcLocks.isAvailable))
    func aStoppedProducerBlocksNeitherTheOwnerNorTheOtherProducers() throws {
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let temporary = TemporaryDirectory("stopped-producer")
        defer { temporary.cleanup() }
        var configuration = Configuration()
        configuration.sharing = .shared
        let owner = try JobQueue(directory: temporary.queue, configuration: configuration)
        let count = 150
        // The producer to stop has far more to do than it could finish between its first acknowledgement
        // and the stop, however late this thread runs (CI once saw a producer of 150 done before it).
        let stoppedCount = 600
        let producers = try (0..<3).map {
            try ProducerChild(
                binary, directory: temporary.queue, count: $0 == 0 ? stoppedCount : count, prefix: "p\($0)")
        }
        defer {
            for producer in producers where !producer.hasEnded {
                kill(producer.pid, SIGCONT)
                producer.kill9()
            }
        }
        let deadline = Date().addingTimeInterval(60)
        let stopped = producers[0]
        #expect(stopped.wait(forLines: 1, until: deadline), "the producer to stop starts")
        kill(stopped.pid, SIGSTOP)
        let others = Array(producers.dropFirst())
        for producer in others { #expect(producer.wait(forLines: 3, until: deadline), "each producer starts") }
        // Every ingestion returns while the producer is stopped, and the others' ids keep coming in.
        var ingestions = 0
        var ingested = 0
        while others.contains(where: { !$0.hasEnded }), Date() < deadline {
            ingested += try owner.ingestInbox()
            ingestions += 1
            // Wait for an event (a running producer's next acknowledgement, or its end), not a time.
            if let running = others.first(where: { !$0.hasEnded }) {
                _ = running.wait(forLines: running.acknowledged.count + 1, until: deadline)
            }
        }
        for producer in others {
            #expect(producer.waitForEnd(until: deadline), "a running producer finishes")
            #expect(producer.process.terminationStatus == 0)
            #expect(producer.acknowledged.count == count)
        }
        ingested += try owner.ingestInbox()
        for id in others.flatMap(\.acknowledged) {
            #expect(try owner.job(JobID(id)) != nil, "\(id) ingested while a producer is stopped")
        }
        #expect(ingested >= 2 * count, "\(ingested) ingested over \(ingestions) ingestions")
        #expect(!stopped.hasEnded, "still stopped")

        // The only lock held (if any) is the stopped producer's, on a file of the inbox.
        let held = try ProcLocks.locks(in: temporary.queue)
        let inbox = Self.inboxInodes(of: temporary.queue)
        #expect(held.count <= 1, "\(held)")
        for lock in held {
            #expect(lock.pid == stopped.pid, "\(lock) is not the stopped producer's")
            #expect(inbox.contains(lock.inode), "\(lock) is not on an inbox file")
        }

        kill(stopped.pid, SIGCONT)
        #expect(stopped.waitForEnd(until: deadline), "the stopped producer finishes after SIGCONT")
        #expect(stopped.process.terminationStatus == 0 && stopped.acknowledged.count == stoppedCount)
        _ = try owner.ingestInbox()
        let acknowledged = producers.flatMap(\.acknowledged)
        #expect(Set(acknowledged).count == acknowledged.count, "no id acknowledged twice")
        let jobs = try owner.jobs()
        #expect(jobs.count == 2 * count + stoppedCount, "every acknowledged id, once: \(jobs.count)")
        #expect(Set(jobs.map(\.id.rawValue)) == Set(acknowledged))
        #expect(try ProcLocks.locks(in: temporary.queue).isEmpty)
        try closeChecked(owner)
    }
}
