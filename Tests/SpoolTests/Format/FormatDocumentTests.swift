import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// FORMAT.md's worked example is checked against the bytes this build writes,
/// so the document cannot drift from the code.
@Suite(.blocking) struct FormatDocumentTests {
    /// The example's bytes: a file header and one enqueue record.
    static func exampleBytes() -> [UInt8] {
        let instanceID = Array(UInt8(0)..<16)
        var bytes = FileHeader(instanceID: instanceID, sequence: 1, firstLSN: 1).encoded()
        let body = TransactionCodec.encode([
            .enqueue(
                NewEnqueue(
                    id: "job-1", kind: "upload", payload: Data("hello".utf8), priority: 0,
                    createdAt: 1_800_000_000_000, runAt: 1_800_000_000_000, maxAttempts: 5, uniqueKey: nil))
        ])
        body.withUnsafeBytes {
            _ = RecordFrame.append(
                body: $0, type: .transaction, lsn: 1, groupIndex: 0,
                seed: RecordFrame.checksumSeed(instanceID: instanceID), to: &bytes)
        }
        return bytes
    }

    /// `xxd`-style lines: offset, 16 bytes in hex.
    static func hexDump(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { start in
            let row = bytes[start..<min(start + 16, bytes.count)]
            let offset = String(start, radix: 16)
            return String(repeating: "0", count: 4 - offset.count) + offset + ": "
                + row.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
        }
    }

    @Test func formatExample() throws {
        let expected = Self.hexDump(Self.exampleBytes())
        let expectedText = expected.joined(separator: "\n")
        let document = try String(contentsOfFile: packageRoot() + "/FORMAT.md", encoding: .utf8)
        let lines = document.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: "<!-- example-hex-begin -->"),
            let end = lines.firstIndex(of: "<!-- example-hex-end -->")
        else {
            Issue.record("FORMAT.md has no example markers; expected:\n\(expectedText)")
            return
        }
        let documented = lines[(start + 1)..<end].filter { $0.first?.isHexDigit == true }
        #expect(documented == expected, "FORMAT.md's example differs; this build writes:\n\(expectedText)")

        // The version 1 header of the same file, which this build reads (and no longer writes).
        let version1 = Self.hexDump(
            FileHeader(version: 1, instanceID: Array(UInt8(0)..<16), sequence: 1, firstLSN: nil).encoded())
        guard let v1Start = lines.firstIndex(of: "<!-- header-v1-hex-begin -->"),
            let v1End = lines.firstIndex(of: "<!-- header-v1-hex-end -->")
        else {
            Issue.record("FORMAT.md has no version 1 header markers; expected:\n\(version1.joined(separator: "\n"))")
            return
        }
        #expect(lines[(v1Start + 1)..<v1End].filter { $0.first?.isHexDigit == true } == version1)
        // And the version 2 header's dump in *File header* is the example's first 48 bytes.
        #expect(expected.prefix(3).allSatisfy { row in lines.contains { $0.hasPrefix(row + " ") } })

        // The example decodes back to what it says.
        let bytes = Self.exampleBytes()
        let header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
        #expect(header.sequence == 1 && header.version == 2 && header.firstLSN == 1)
        let found = try bytes.withUnsafeBytes {
            try RecordFrame.parse($0, at: header.size, seed: RecordFrame.checksumSeed(instanceID: header.instanceID))
                .get()
        }
        #expect(found.header.lsn == 1 && found.end == bytes.count)
    }
}

/// Rules of FORMAT.md a reader could otherwise only find by experiment, checked on records
/// written by hand from the document's tables.
extension FormatDocumentTests {
    /// A queue directory whose one log file holds `bodies`, one record each (LSN 1, 2, …).
    private static func queue(_ bodies: [[UInt8]], in temporary: TemporaryDirectory) throws -> String {
        let instanceID = Array(UInt8(0)..<16)
        var bytes = FileHeader(instanceID: instanceID, sequence: 1, firstLSN: 1).encoded()
        for (index, body) in bodies.enumerated() {
            body.withUnsafeBytes {
                _ = RecordFrame.append(
                    body: $0, type: .transaction, lsn: UInt64(index + 1), groupIndex: 0,
                    seed: RecordFrame.checksumSeed(instanceID: instanceID), to: &bytes)
            }
        }
        try FileManager.default.createDirectory(atPath: temporary.queue, withIntermediateDirectories: true)
        try writeFile(temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 1), bytes)
        try writeFile(temporary.queue + "/" + QueueDirectoryLayout.lockFileName, [])
        return temporary.queue
    }

    /// Condition names in any order are read as a set, a name twice is malformed, and ill-formed
    /// UTF-8 in a string reads with U+FFFD.
    @Test func conditionNamesInAnyOrderAndIllFormedUTF8() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        // Opcode 14: job `j`, kind `6b ff` (ill-formed), conditions `b` then `a` (unsorted), nothing else.
        let enqueue: [UInt8] = [
            0x03, 0x01, 0x0e, 0x01, 0x6a, 0x02, 0x6b, 0xff, 0x00, 0x00, 0x00, 0x02, 0x00,
            0x01, 0x00, 0x02, 0x01, 0x62, 0x01, 0x61, 0x00, 0x00, 0x00,
        ]
        let directory = try Self.queue([enqueue], in: temporary)
        let job = try #require(try LogInspector.withJobs(directory: directory) { $0.job("j") })
        #expect(job.kind == "k\u{FFFD}")
        #expect(job.constraints.requiredConditions == ["a", "b"])

        let twice = TemporaryDirectory()
        defer { twice.cleanup() }
        var repeated = enqueue
        repeated[17] = 0x61
        expectError(.corruption) { try LogInspector.verify(directory: try Self.queue([repeated], in: twice)) }
    }

    /// A `restore` in a file that is not a snapshot applies as in one: the job as recorded, its payload
    /// in that file, the next enqueue order above its sequence.
    @Test func aRestoreOutsideASnapshotIsApplied() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        // Body version 2, opcode 11: job `r`, kind `k`, enqueued, 0 attempts, max 1, priority 0,
        // sequence 5, created and run at 0, no deadline, no key, no error, no lease, payload `hi`.
        let restore: [UInt8] = [
            0x02, 0x01, 0x0b, 0x01, 0x72, 0x01, 0x6b, 0x01, 0x00, 0x02, 0x00, 0x05,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x68, 0x69,
        ]
        // Body version 1, opcode 1: job `e`, kind `k`, max 1, empty payload.
        let enqueue: [UInt8] = [0x01, 0x01, 0x01, 0x01, 0x65, 0x01, 0x6b, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00]
        let directory = try Self.queue([restore, enqueue], in: temporary)
        let (ids, restored, payload) = try LogInspector.withJobs(directory: directory) { queue in
            (queue.jobs().map(\.id.rawValue), queue.job("r"), try queue.payload(of: "r"))
        }
        #expect(ids == ["r", "e"])
        #expect(restored?.state == .enqueued && restored?.maxAttempts == 1)
        #expect(payload == Data("hi".utf8))
    }

    /// `abandon` finishes a job as failed, so the chain rule cancels the jobs waiting for it; a
    /// `migrate_job` step that makes a prerequisite succeeded releases them.
    @Test func abandonAndMigrateJobApplyTheChainRule() throws {
        func enqueue(_ id: String, after prerequisites: [String] = []) -> Spool.LogOperation {
            var options = EnqueueOptions()
            options.dependencies = prerequisites
            return .enqueue(
                Spool.LogOperation.Enqueue(
                    id: id, kind: "k", payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0),
                    priority: 0, createdAt: 10, runAt: 10, maxAttempts: 1, uniqueKey: nil,
                    options: options))
        }
        var state = QueueState()
        for operation in [enqueue("p"), enqueue("d", after: ["p"]), enqueue("e", after: ["d"])] {
            try state.apply(operation)
        }
        var abandoned = state
        try abandoned.apply(.abandon(id: "p", at: 50, reason: "unknown kind"))
        #expect(abandoned.jobs["p"]?.state == .failed)
        #expect(abandoned.jobs["d"]?.state == .cancelled && abandoned.jobs["d"]?.finishedAt == 50)
        #expect(abandoned.jobs["e"]?.state == .cancelled && abandoned.jobs["e"]?.finishedAt == 50)

        var migrated = state
        var image = MigratedJob(try #require(state.jobs["p"]))
        image.state = .succeeded
        image.finishedAt = 60
        for operation: Spool.LogOperation in [
            .migrationBegin(number: 1, at: 60), .migrateJob(image), .migrationCommit(number: 1),
        ] {
            try migrated.apply(operation)
        }
        #expect(migrated.jobs["p"]?.state == .succeeded)
        #expect(migrated.jobs["d"]?.state == .enqueued && migrated.jobs["d"]?.waitingFor == [])
        #expect(migrated.jobs["e"]?.waitingFor == ["d"])
        #expect(migrated.bestReadyJob(at: 100, kinds: .all)?.id == "d")
    }
}
