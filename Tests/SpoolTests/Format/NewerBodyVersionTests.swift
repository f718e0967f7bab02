import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A record of a newer body version is refused as newer wherever replay meets it (a snapshot's
/// first record, a stale record salvage passes over), and the refusal changes nothing.
@Suite(.blocking) struct NewerBodyVersionTests {
    private func configuration() -> Configuration {
        var configuration = testConfiguration()
        configuration.preallocationChunk = 0
        configuration.autoCompaction = nil
        return configuration
    }

    /// A queue whose snapshot (file 2) has a first record re-framed with body version (newest + 1), with
    /// file 1, which it replaced, still present, and a job enqueued after the compaction in file 3.
    private func queueWithNewerSnapshot(_ temporary: TemporaryDirectory) throws -> Configuration {
        let configuration = configuration()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("one".utf8), id: "one"))
        let first = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
        let firstBytes = try readFile(first)
        _ = try queue.compact()  // snapshot 2, active 3, file 1 deleted
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("two".utf8), id: "two"))
        try closeChecked(queue)
        try writeFile(first, firstBytes)  // as if the crash came before step 4

        let snapshot = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 2)
        let bytes = try readFile(snapshot)
        let start = LogFormat.fileHeaderSize
        let length =
            Int(bytes[start + 4]) | Int(bytes[start + 5]) << 8 | Int(bytes[start + 6]) << 16 | Int(bytes[start + 7])
            << 24
        var body = Array(bytes[(start + LogFormat.frameHeaderSize)..<(start + LogFormat.frameHeaderSize + length)])
        body[0] = TransactionCodec.bodyVersion + 1
        var rewritten = Array(bytes[0..<start])
        body.withUnsafeBytes { raw in
            _ = RecordFrame.append(
                body: raw, type: .transaction, lsn: 1, groupIndex: 0,
                seed: RecordFrame.checksumSeed(instanceID: Array(bytes[12..<28])), to: &rewritten)
        }
        rewritten += bytes[(start + LogFormat.frameHeaderSize + length)...]
        #expect(rewritten.count == bytes.count)
        try writeFile(snapshot, rewritten)
        return configuration
    }

    /// A newer build's snapshot is not taken for corruption (strict) nor skipped as stale (salvage,
    /// which then lost the job enqueued after the compaction): both refuse it as newer, unchanged.
    @Test func aSnapshotOfANewerBodyVersionIsRefusedAsNewer() throws {
        let temporary = TemporaryDirectory("review")
        defer { temporary.cleanup() }
        let configuration = try queueWithNewerSnapshot(temporary)
        let before = try directoryContents(temporary.queue)
        for mode in [RecoveryMode.strict, .salvage] {
            var reopen = configuration
            reopen.recoveryMode = mode
            do {
                let opened = try JobQueue(directory: temporary.queue, configuration: reopen)
                Issue.record(
                    "\(mode) opened a queue whose snapshot has a newer body version; jobs: \(try opened.jobs().map(\.id))"
                )
                try? opened.close()
            } catch let error as SpoolError {
                #expect(error.code == .newerFormat, "\(mode): \(error)")
                #expect(error.path?.hasSuffix(QueueDirectoryLayout.logFileName(sequence: 2)) == true, "\(error)")
            }
            #expect(try directoryContents(temporary.queue) == before, "\(mode) changed the directory")
        }
    }

    /// Salvage passes over a stale record (an LSN already read) unread, unless its body has a newer
    /// version: that one it refuses as newer; a stale record of a known version it still passes over.
    @Test func salvageRefusesAStaleRecordOfANewerBodyVersion() throws {
        let temporary = TemporaryDirectory("review")
        defer { temporary.cleanup() }
        var configuration = configuration()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("one".utf8), id: "one"))
        _ = try queue.enqueue(NewJob(kind: "a", payload: Data("two".utf8), id: "two"))
        try closeChecked(queue)
        let path = logFilePath(temporary.queue)
        let original = try readFile(path)
        let seed = RecordFrame.checksumSeed(instanceID: Array(original[12..<28]))

        func withStaleRecord(version: UInt8) throws {
            // A record numbered 1 again (stale), with an empty operation list.
            var bytes = original
            [version, 0].withUnsafeBytes { raw in
                _ = RecordFrame.append(body: raw, type: .transaction, lsn: 1, groupIndex: 0, seed: seed, to: &bytes)
            }
            try writeFile(path, bytes)
        }

        configuration.recoveryMode = .salvage
        try withStaleRecord(version: TransactionCodec.bodyVersion)
        let salvaged = try JobQueue(directory: temporary.queue, configuration: configuration)
        #expect(salvaged.recoveryReport.skipped.count == 1)
        #expect(try salvaged.jobs().map(\.id) == ["one", "two"])
        try closeChecked(salvaged)

        try writeFile(path, original)
        try withStaleRecord(version: TransactionCodec.bodyVersion + 1)
        let before = try directoryContents(temporary.queue)
        expectError(.newerFormat) { try JobQueue(directory: temporary.queue, configuration: configuration) }
        #expect(try directoryContents(temporary.queue) == before)
    }
}
