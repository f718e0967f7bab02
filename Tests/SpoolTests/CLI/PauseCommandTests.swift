import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool pause` and `spool resume`, run as the built executable: the pause is durable, and a claim
/// by `spool claim` honours it.
@Suite(.blocking) struct PauseCommandTests {
    @Test func aKindPausedByTheCommandIsNotClaimedUntilResumed() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        try queue.enqueue(NewJob(kind: "upload", id: "u1"))
        try closeChecked(queue)

        let paused = try ChildProcess.run(binary, ["pause", temporary.queue, "upload"])
        #expect(paused.status == 0, "\(paused.output)")
        #expect(paused.output.hasPrefix("kind upload paused\npaused: upload since "))
        let again = try ChildProcess.run(binary, ["pause", temporary.queue, "upload"])
        #expect(again.output.hasPrefix("kind upload was paused already"))
        #expect(try ChildProcess.run(binary, ["claim", temporary.queue]).status == 3, "nothing ready")
        let resumed = try ChildProcess.run(binary, ["resume", temporary.queue, "upload"])
        #expect(resumed.status == 0 && resumed.output == "kind upload resumed\n", "\(resumed.output)")
        #expect(try ChildProcess.run(binary, ["claim", temporary.queue]).status == 0)
        #expect(try ChildProcess.run(binary, ["pause", temporary.queue]).status == 2, "KIND is required")
    }
}
