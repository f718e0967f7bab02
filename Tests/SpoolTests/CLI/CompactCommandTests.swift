import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool compact` and `spool stats`, run as the built executable.
@Suite(.blocking) struct CompactCommandTests {
    @Test func compactThenStats() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        // The system clock, as the command uses: the job it completes is not past the retention.
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        for index in 0..<20 { _ = try queue.enqueue(NewJob(kind: "k", payload: Data("job \(index)".utf8))) }
        _ = try queue.complete(try #require(try queue.claim()))
        try closeChecked(queue)

        let compacted = try ChildProcess.run(binary, ["compact", temporary.queue])
        #expect(compacted.status == 0)
        #expect(compacted.output.contains("20 jobs"), "\(compacted.output)")
        let stats = try ChildProcess.run(binary, ["stats", temporary.queue])
        #expect(stats.status == 0)
        #expect(stats.output.contains("enqueued: 19"), "\(stats.output)")
        #expect(stats.output.contains("succeeded: 1"), "\(stats.output)")
        #expect(stats.output.contains("log files: 2"), "\(stats.output)")
        #expect(stats.output.contains("created: "), "\(stats.output)")
        #expect(stats.output.contains("expired by retention: 0"), "\(stats.output)")
    }
}
