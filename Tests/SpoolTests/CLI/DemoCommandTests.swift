import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool demo`, run as the built executable: it reaches its end, and shows the runtime, progress,
/// checkpoints, stop reasons, snoozes and parking.
@Suite(.blocking) struct DemoCommandTests {
    @Test func theDemoShowsTheRuntimeFromHandlersToChainsStopsAndParking() throws {
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
            #"import-library, attempt 1: checkpoint "3", progressUpdates(.id(id)) → 3 of 10 photos"#,
            "runner.expire() → enqueued, attempts 0/5 (given back), last stop: system time expired",
            #"next launch, attempt 1 again: lastCheckpoint "3", reaches 7 of 10 photos, snoozes 60s → enqueued, "#
                + "due t+325s, attempts 1 → 0 (given back), last stop: snoozed",
            #"t+325s: lastCheckpoint "7" → succeeded, attempts 1/5: the interruption and the snooze spent none"#,
            "runner.suspend() → upload-trip-video enqueued, attempts 0/5 (given back), starts 1",
            "runner.resume() → upload-trip-video starts again (starts 2) → succeeded, attempts 1/5; runner.idle() returns",
            "parkedJobs() → upload-beach (running, attempt 1), upload-dunes (running, attempt 1); "
                + "upload-notes, only leased → enqueued, attempt 1 spent, last stop: orphaned",
            "completeParked(key:) → succeeded, attempts 1/5 (counted once)",
            "reconcileParked(stillPending: []) → upload-dunes enqueued, retry t+330s "
                + "(parked: the system no longer has the work of key uploads:upload-dunes)",
            "Done: 17 jobs: 3 enqueued, 10 succeeded, 1 failed, 3 cancelled.",
        ] {
            #expect(demo.output.contains(line), "missing: \(line)\n\(demo.output)")
        }
    }
}
