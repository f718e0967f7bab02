import Foundation
import SpoolTestSupport
import Testing

@testable import Spool
@testable import SpoolCommands

/// `spool verify` checks the invariants of the state its replay built, and reports broken ones.
@Suite(.blocking) struct VerifyInvariantTests {
    @Test func aSoundQueuePassesTheInvariantCheck() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "k", id: "first", uniqueKey: "key"))
        try queue.enqueue(NewJob(kind: "k", id: "second", dependencies: ["first"]))
        _ = try #require(try queue.claim())
        try closeChecked(queue)
        let (_, broken) = try LogInspector.verifyInvariants(directory: temporary.queue)
        #expect(broken.isEmpty, "\(broken)")
        let verify = try ChildProcess.run(binary, ["verify", temporary.queue])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(!verify.output.contains("invariant"), "\(verify.output)")
    }

    @Test func brokenInvariantsAreReportedWithTheirJobAndExitOne() {
        let lines = Lines()
        let console = Console(writeOut: { lines.append($0) }, writeErr: { lines.append($0) })
        let broken = [
            BrokenInvariant(.leaseExactlyWhileRunning, jobID: "job-7", "running without a lease"),
            BrokenInvariant(.countsByState, jobID: nil, "enqueued count 2, table 1"),
        ]
        #expect(VerifyCommand.report(broken, directory: "/q", console) == ExitStatus.failure)
        let text = lines.text
        #expect(text.contains("breaks 2 invariants"), "\(text)")
        #expect(text.contains("leaseExactlyWhileRunning (job job-7): running without a lease"), "\(text)")
        #expect(text.contains("countsByState: enqueued count 2, table 1"), "\(text)")
        #expect(VerifyCommand.report([], directory: "/q", console) == ExitStatus.success)
    }
}

/// Lines a test console captured.
private final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var captured: [String] = []
    func append(_ line: String) {
        lock.lock()
        captured.append(line)
        lock.unlock()
    }
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return captured.joined()
    }
}
