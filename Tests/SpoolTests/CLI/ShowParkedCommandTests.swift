import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool show` and `spool list` print a parked job's key and deadline and a job's checkpoint.
@Suite(.blocking) struct ShowParkedCommandTests {
    @Test func showPrintsTheParkedKeyTheDeadlineAndTheCheckpoint() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        try queue.enqueue(NewJob(kind: "upload", id: "photo-7"))
        let lease = try #require(try queue.claim())
        try queue.checkpoint(lease, Data("chunk".utf8))
        let deadline = Date(timeIntervalSince1970: 4_000_000_000)
        try queue.park(lease, key: "uploads:42", deadline: deadline)
        try closeChecked(queue)

        let show = try ChildProcess.run(binary, ["show", temporary.queue, "photo-7"])
        #expect(show.status == 0, "\(show.output)")
        let lines = show.output.split(separator: "\n").map(String.init)
        let parked = try #require(lines.first { $0.hasPrefix("parked") }, "\(show.output)")
        #expect(parked.contains("key uploads:42, until 2096-10-02T07:06:40"), "\(parked)")
        #expect(lines.contains { $0.hasPrefix("checkpoint") && $0.hasSuffix("5 bytes") }, "\(show.output)")
        let list = try ChildProcess.run(binary, ["list", temporary.queue])
        #expect(list.output.contains("parked until"), "\(list.output)")
    }
}
