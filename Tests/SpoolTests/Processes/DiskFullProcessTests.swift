import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A real disk-full: the child `spool exercise` runs under a file-size limit
/// (`RLIMIT_FSIZE` through `ulimit -f`, with `SIGXFSZ` ignored so that writes
/// fail with `EFBIG` instead of killing it). Every failure must be a thrown,
/// typed error; nothing the child printed as acknowledged may be missing.
///
/// Not run under the thread sanitizer: its runtime dies of `SIGBUS` in a child under a file-size
/// limit before any Spool code runs (the child's stderr is `ThreadSanitizer: BUS on unknown address`,
/// and it acknowledges nothing), so the test would measure the sanitizer, not Spool.
@Suite(.serialized, .blocking) struct DiskFullProcessTests {
    @Test(
        .disabled(if: runsUnderThreadSanitizer, "the sanitizer's runtime dies of SIGBUS under a file-size limit"),
        arguments: [96, 200, 400])
    func writesPastAFileSizeLimitFailLoudlyAndLoseNothing(limitInSectors: Int) throws {
        let temp = TemporaryDirectory("spool-full")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // POSIX sh counts `ulimit -f` in 512-byte blocks.
        process.arguments = [
            "-c", "trap '' XFSZ; ulimit -f \(limitInSectors); exec \"$0\" exercise \"$1\" --threads 2",
            binary, temp.queue,
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus != 0, "the child ran past the limit without an error")
        #expect(
            complaint.contains("diskFull") || complaint.contains("needsReopen"),
            "not a typed disk-full error: \(complaint)")
        #expect(
            complaint.contains("EFBIG") || complaint.contains("errno 27") || complaint.contains("too large"),
            "the error does not name the errno: \(complaint)")

        var acknowledged: [String: String] = [:]
        for line in printed.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { acknowledged[parts[1]] = parts[0] }
        }
        #expect(!acknowledged.isEmpty, "the child acknowledged nothing before the disk filled")
        let queue = try JobQueue(directory: temp.queue, configuration: Configuration())
        for (id, event) in acknowledged {
            let job = try #require(try queue.job(JobID(id)), "acknowledged job \(id) is missing after the disk filled")
            if event == "completed" { #expect(job.state == .succeeded) }
            if event == "failed" { #expect(job.state == .failed) }
        }
        checkInvariants(queue.engine.stateSnapshot)
        try queue.enqueue(NewJob(kind: "after-the-disk-filled"))
        try closeChecked(queue)
    }
}
