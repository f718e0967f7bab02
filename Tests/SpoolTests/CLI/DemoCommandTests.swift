import Foundation
import Testing

@testable import Spool

/// `spool demo`, run as the built executable: it reaches its end, and shows the runtime.
@Suite struct DemoCommandTests {
    @Test func theDemoShowsTheRuntimeFromHandlersToCancellationAndChains() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let demo = try ChildProcess.run(binary, ["demo"])
        #expect(demo.status == 0, "\(demo.output)")
        for line in [
            #"resize-beach payload {"name":"beach.heic","width":1024} → succeeded, attempt 1"#,
            "runner.unhandledJobs() → [sync]",
            "t+200s   attempt 1/5 failed (HTTP 503 from the upload server) → next retry t+205s",
            "t+220s   attempt 3/5 failed (HTTP 503 from the upload server) → next retry t+265s",
            "t+265s   attempt 4/5 → succeeded",
            "the runner saw the change and cancelled the handler (job cancelled)",
            "upload-album is cancelled, attempts 1/5",
            "stopped: no handler left running, 0 jobs running",
            "stays enqueued: the device reports no network yet",
            "publish-album → succeeded, then notify-friends → succeeded",
            "convert-video throws TerminalJobFailure → failed for good (unsupported codec: ProRes RAW)",
            "share-video, waiting for it, → cancelled in the same record",
            "Done: 12 jobs: 1 enqueued, 7 succeeded, 1 failed, 3 cancelled.",
        ] {
            #expect(demo.output.contains(line), "missing: \(line)\n\(demo.output)")
        }
    }
}
