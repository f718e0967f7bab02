import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The `spool` tool, run as the built executable with arguments a person or a script may get
/// wrong: bytes that are not UTF-8, numbers out of range, odd directories, control characters.
@Suite(.blocking) struct HostileCommandLineTests {
    private let binary: String
    private let temporary = TemporaryDirectory("spool-hostile-cli")

    init() throws {
        binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
    }

    private var queue: String { temporary.queue }

    private func spool(_ arguments: [String], input: [UInt8]? = nil) throws -> RawCommand.Result {
        try RawCommand.run(binary, arguments, input: input, scratch: temporary.path)
    }

    @Test func argumentsThatAreNotUTF8AreRefusedAndNothingIsCreated() throws {
        defer { temporary.cleanup() }
        let invalid: [UInt8] = [0x61, 0xFF, 0x62]
        for option in ["--payload", "--kind", "--id", "--unique-key"] {
            var arguments: [[UInt8]] = ["enqueue", queue].map { Array($0.utf8) }
            if option != "--kind" { arguments += [Array("--kind".utf8), Array("k".utf8)] }
            arguments += [Array(option.utf8), invalid]
            let result = try RawCommand.run(binary, arguments, scratch: temporary.path)
            #expect(result.status == 2, "\(option): exit \(result.status): \(result.error)")
            #expect(result.error.contains("--\(option.dropFirst(2)) is not valid UTF-8"), "\(option): \(result.error)")
            #expect(!FileManager.default.fileExists(atPath: queue), "\(option): the queue was created")
            // The same as --option=VALUE.
            let inline = try RawCommand.run(
                binary, Array(arguments.dropLast(2)) + [Array((option + "=").utf8) + invalid],
                scratch: temporary.path)
            #expect(inline.status == 2, "\(option)=: exit \(inline.status): \(inline.error)")
        }
        let directory = try RawCommand.run(
            binary,
            [
                Array("enqueue".utf8), Array((queue + "-").utf8) + [0xFF],
                Array("--kind".utf8), Array("k".utf8),
            ], scratch: temporary.path)
        #expect(directory.status == 2 && directory.error.contains("DIR is not valid UTF-8"), "\(directory.error)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: temporary.path).allSatisfy { !$0.hasPrefix("queue") })
    }

    @Test func aPayloadFileGivesExactBytesAndLongPayloads() throws {
        defer { temporary.cleanup() }
        let bytes: [UInt8] = [0xFF, 0x00, 0xC3, 0x28, 0x0A]
        let path = temporary.path + "/payload.bin"
        try writeFile(path, bytes)
        let fromFile = try spool(["enqueue", queue, "--kind", "k", "--id", "binary", "--payload-file", path])
        #expect(fromFile.status == 0, "\(fromFile.error)")
        // Over what one command-line argument may hold on Linux (128 KiB), from standard input.
        let long = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let fromInput = try spool(
            ["enqueue", queue, "--kind", "k", "--id", "long", "--payload-file", "-"], input: long)
        #expect(fromInput.status == 0, "\(fromInput.error)")
        let opened = try JobQueue(directory: queue, configuration: testConfiguration())
        #expect(try opened.payload(of: "binary") == Data(bytes))
        #expect(try opened.payload(of: "long") == Data(long))
        try closeChecked(opened)

        let both = try spool(["enqueue", queue, "--kind", "k", "--payload", "x", "--payload-file", path])
        #expect(both.status == 2, "\(both.error)")
        let missing = try spool(["enqueue", queue, "--kind", "k", "--payload-file", temporary.path + "/missing"])
        #expect(
            missing.status == 1 && missing.error.contains("errno \(ENOENT)") && missing.error.contains("missing"),
            "\(missing.error)")
        let limit = Configuration().maximumPayloadSize
        let tooLong = try spool(
            ["enqueue", queue, "--kind", "k", "--payload-file", "-"],
            input: [UInt8](repeating: 1, count: limit + 1))
        #expect(tooLong.status == 1 && tooLong.error.contains("\(limit)"), "\(tooLong.error)")
    }

    @Test func exerciseRefusesNegativeCounts() throws {
        defer { temporary.cleanup() }
        let harness = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let exercise = { (arguments: [String]) in
            try RawCommand.run(harness, ["exercise", self.queue] + arguments, scratch: self.temporary.path)
        }
        for arguments in [
            ["--threads", "-1", "--operations", "1"], ["--threads", "0", "--operations", "1"],
            ["--operations", "-1"], ["--operations", "0"],
        ] {
            let result = try exercise(arguments)
            #expect(
                result.status == 2 && result.error.contains("must be from"),
                "\(arguments): exit \(result.status): \(result.error)")
        }
        let fine = try exercise(["--threads", "2", "--operations", "3"])
        #expect(fine.status == 0, "\(fine.error)")
    }

    @Test func messagesStateTheRealLimits() throws {
        defer { temporary.cleanup() }
        let delay = try spool(["enqueue", queue, "--kind", "k", "--delay", "1e11"])
        #expect(delay.status == 1 && delay.error.contains("under \(Int64(JobLimits.maxDelay)) s"), "\(delay.error)")
        _ = try spool(["enqueue", queue, "--kind", "k"])
        for lease in ["1e10", "1e-9", "0"] {
            let claim = try spool(["claim", queue, "--lease", lease])
            #expect(
                claim.status == 1 && claim.error.contains("at least \(JobLimits.minLeaseDuration) s")
                    && claim.error.contains("under \(Int64(JobLimits.maxLeaseDuration)) s"),
                "--lease \(lease): \(claim.error)")
        }
        for priority in ["9223372036854775808", "-9223372036854775809", "2147483648"] {
            let result = try spool(["enqueue", queue, "--kind", "k", "--priority", priority])
            #expect(
                result.status == 2 && result.error.contains("from \(Int32.min) to \(Int32.max)"),
                "--priority \(priority): \(result.error)")
        }
        let words = try spool(["enqueue", queue, "--kind", "k", "--priority", "high"])
        #expect(words.status == 2 && words.error.contains("whole number"), "\(words.error)")
        let attempts = try spool(["enqueue", queue, "--kind", "k", "--max-attempts", "0"])
        #expect(
            attempts.status == 2 && attempts.error.contains("from 1 to \(JobLimits.maxAttempts)"), "\(attempts.error)")
    }

    @Test func aLockThatIsALinkAnEmptyDirectoryArgumentAndAnEmptyLogFile() throws {
        defer { temporary.cleanup() }
        _ = try spool(["enqueue", queue, "--kind", "k"])
        let lock = queue + "/" + QueueDirectoryLayout.lockFileName
        try FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: temporary.path + "/elsewhere")
        let linked = try spool(["enqueue", queue, "--kind", "k"])
        #expect(
            linked.status == 1 && linked.error.contains("notAQueue") && linked.error.contains("symbolic link"),
            "enqueue: \(linked.error)")
        // A reading command takes no lock, so it never opens LOCK: the link is not followed, nor refused.
        let listed = try spool(["list", queue])
        #expect(listed.status == 0 && !FileManager.default.fileExists(atPath: temporary.path + "/elsewhere"))

        for command in [["enqueue", "", "--kind", "k"], ["list", ""], ["show", "", "x"], ["stats", ""]] {
            let empty = try spool(command)
            #expect(empty.status == 2 && empty.error.contains("DIR is empty"), "\(command[0]): \(empty.error)")
        }
        expectError(.invalidArgument) { _ = try JobQueue(directory: "", configuration: testConfiguration()) }
        expectError(.invalidArgument) { try LogInspector.verify(directory: "") }

        // A queue whose only log file is empty (its creation was cut before the header was written).
        let fresh = temporary.path + "/fresh"
        try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
        try writeFile(fresh + "/" + QueueDirectoryLayout.logFileName(sequence: 1), [])
        try writeFile(fresh + "/" + QueueDirectoryLayout.lockFileName, [])
        let stats = try spool(["stats", fresh])
        #expect(
            stats.status == 0 && stats.output.contains("format: file version none;"), "\(stats.output) \(stats.error)")
    }

    @Test func controlCharactersInIdsAreEscapedInText() throws {
        defer { temporary.cleanup() }
        let enqueued = try spool(["enqueue", queue, "--kind", "k\u{1B}[31m", "--id", "a\nb"])
        #expect(enqueued.status == 0 && enqueued.output == "a\\nb\n", "\(enqueued.output)")
        let list = try spool(["list", queue])
        #expect(
            list.output.contains("a\\nb") && list.output.contains("k\\u001b[31m") && !list.output.contains("\u{1B}"),
            "\(list.output)")
        #expect(list.output.split(separator: "\n").count == 3, "\(list.output)")
        let show = try spool(["show", queue, "a\nb"])
        #expect(show.output.contains("a\\nb") && !show.output.contains("a\nb"), "\(show.output)")
        // JSON output keeps the exact text.
        let json = try spool(["show", queue, "a\nb", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.outputBytes)) as? [String: Any])
        #expect(object["id"] as? String == "a\nb" && object["kind"] as? String == "k\u{1B}[31m")
        // An error naming a job prints it escaped, on one line.
        let missing = try spool(["cancel", queue, "x\ny\u{85}"])
        #expect(
            missing.status == 1 && missing.error.contains("x\\ny\\u0085")
                && missing.error.split(separator: "\n").count == 1,
            "\(missing.error)")
        // A summary line.
        let cancelled = try spool(["cancel", queue, "a\nb"])
        #expect(cancelled.output == "a\\nb: cancelled\n", "\(cancelled.output)")
    }

    @Test func helpMatchesWhatEnqueueAndRetryDo() throws {
        defer { temporary.cleanup() }
        let enqueueHelp = try spool(["enqueue", "--help"])
        #expect(enqueueHelp.output.contains("--policy append"), "\(enqueueHelp.output)")
        #expect(enqueueHelp.output.contains("--payload-file PATH"), "\(enqueueHelp.output)")

        // retry's help and the library agree: an enqueued job (here waiting out a retry's backoff) is
        // made due now with a full budget.
        let opened = try JobQueue(directory: queue, configuration: Configuration())
        try opened.enqueue(NewJob(kind: "k", id: "waiting"))
        let lease = try #require(try opened.claim())
        let backingOff = try opened.fail(lease, error: "boom")
        #expect(backingOff.state == .enqueued && backingOff.nextRetryAt != nil)
        try closeChecked(opened)
        let retryHelp = try spool(["retry", "--help"])
        #expect(retryHelp.output.contains("failed, cancelled or enqueued job"), "\(retryHelp.output)")
        let retried = try spool(["retry", queue, "waiting", "--json"])
        #expect(retried.status == 0, "\(retried.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(retried.outputBytes)) as? [String: Any])
        #expect(
            object["attempts"] as? Int == 0 && object["nextRetryAt"] is NSNull
                && object["state"] as? String == "enqueued")
    }

    @Test func versionNamesTheLibraryAndTheFormatVersions() throws {
        defer { temporary.cleanup() }
        let version = try spool(["--version"])
        #expect(version.status == 0)
        let bodies = (TransactionCodec.baseBodyVersion...TransactionCodec.bodyVersion).map(String.init).joined(
            separator: ", ")
        #expect(version.output.hasPrefix("spool \(SpoolVersion.library)\n"), "\(version.output)")
        #expect(
            version.output.contains("writes: log file format \(LogFormat.currentVersion); record bodies \(bodies)"),
            "\(version.output)")
        #expect(
            version.output.contains(
                "reads: log file formats \(LogFormat.oldestReadableVersion)-\(LogFormat.currentVersion); "
                    + "record bodies \(bodies)"), "\(version.output)")
        let usage = try spool(["--help"])
        #expect(usage.output.contains("spool --version"), "\(usage.output)")
    }
}
