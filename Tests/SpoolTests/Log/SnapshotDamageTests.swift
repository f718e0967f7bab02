import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Damage to a snapshot from outside the crash model (a truncating tool, a bad block) is loud and says
/// where (issue #32 item 6): a snapshot says how many records it holds (`snapshot_extent`), so one cut at
/// any record boundary is `corruption` naming the snapshot and the offset where it ends; a damaged header
/// or first record is named with its offset, not reported as missing files.
@Suite(.blocking) struct SnapshotDamageTests {
    /// A queue compacted into a snapshot of several records (jobs with large payloads), closed. Returns
    /// the snapshot's path and the offsets where each of its records ends.
    static func compactedQueue(_ temporary: TemporaryDirectory) throws -> (path: String, ends: [Int]) {
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration(clock: clock))
        for index in 0..<6 {
            _ = try queue.enqueue(NewJob(kind: "k", payload: Data(repeating: UInt8(index), count: 300 << 10)))
        }
        _ = try queue.compact()
        try closeChecked(queue)
        let replay = LogReplay(directory: temporary.queue, fileSystem: POSIXFileSystem(), mode: .strict)
        let snapshot = try #require(
            try LogReplay.logFiles(in: temporary.queue, fileSystem: POSIXFileSystem()).first {
                try replay.isSnapshot($0)
            })
        let bytes = try readFile(snapshot.path)
        let header = try #require(try? bytes.withUnsafeBytes { try FileHeader.decode($0).get() })
        var ends: [Int] = []
        var offset = header.size
        while offset < bytes.count {
            offset = RecordFrame.end(
                ofFrameAt: offset,
                bodyLength: bytes.withUnsafeBytes { RecordFrame.declaredBodyLength($0, frameAt: offset) })
            ends.append(offset)
        }
        return (snapshot.path, ends)
    }

    @Test func aSnapshotCutAtAnyRecordBoundaryIsCorruptionNamingItsEnd() throws {
        let temporary = TemporaryDirectory("snapshot-cut")
        defer { temporary.cleanup() }
        let (path, ends) = try Self.compactedQueue(temporary)
        #expect(ends.count >= 3, "a snapshot of several records")
        let whole = try readFile(path)
        #expect(ends.last == whole.count)
        for end in ends.dropLast() {
            try writeFile(path, Array(whole[..<end]))
            for (what, attempt) in [
                ("open", { _ = try JobQueue(directory: temporary.queue, configuration: testConfiguration()) }),
                ("verify", { _ = try LogInspector.verify(directory: temporary.queue) }),
            ] as [(String, () throws -> Void)] {
                do {
                    try attempt()
                    Issue.record("\(what) accepted a snapshot cut at \(end)")
                } catch let error as SpoolError {
                    #expect(error.code == .corruption && error.path == path, "\(what) at \(end): \(error)")
                    #expect(error.offset == Int64(end), "\(what) at \(end): \(error)")
                    #expect(error.message.contains("records its first record announces"), "\(error)")
                }
            }
        }
        // Salvage opens, and reports where the snapshot ends.
        try writeFile(path, Array(whole[..<ends[1]]))
        var salvage = testConfiguration()
        salvage.recoveryMode = .salvage
        let queue = try JobQueue(directory: temporary.queue, configuration: salvage)
        #expect(queue.recoveryReport.skipped.contains { $0.path == path && $0.offset == Int64(ends[1]) })
        try queue.close()
    }

    /// A snapshot whose first two records are swapped (each intact) is named with its file and the offset of
    /// its first record, by open and by `spool verify`, not reported as missing files without an offset.
    @Test func aSnapshotWithItsFirstRecordsSwappedIsNamedWithItsOffset() throws {
        let temporary = TemporaryDirectory("snapshot-swap")
        defer { temporary.cleanup() }
        let (path, ends) = try Self.compactedQueue(temporary)
        let whole = try readFile(path)
        let headerSize = try #require(try? whole.withUnsafeBytes { try FileHeader.decode($0).get() }).size
        let swapped =
            Array(whole[..<headerSize]) + Array(whole[ends[0]..<ends[1]]) + Array(whole[headerSize..<ends[0]])
            + Array(whole[ends[1]...])
        try writeFile(path, swapped)
        for (what, attempt) in [
            ("open", { _ = try JobQueue(directory: temporary.queue, configuration: testConfiguration()) }),
            ("verify", { _ = try LogInspector.verify(directory: temporary.queue) }),
        ] as [(String, () throws -> Void)] {
            do {
                try attempt()
                Issue.record("\(what) accepted a snapshot with its records swapped")
            } catch let error as SpoolError {
                #expect(error.code == .corruption && error.path == path, "\(what): \(error)")
                #expect(error.offset == Int64(headerSize), "\(what): \(error)")
                #expect(error.message.contains("is not a snapshot's"), "\(what): \(error)")
            }
        }
    }

    /// A snapshot holding more records than its extent announces says so (not that it ends early).
    @Test func aSnapshotLongerThanItsExtentSaysWhichWayItIsOff() throws {
        let temporary = TemporaryDirectory("snapshot-long")
        defer { temporary.cleanup() }
        let (path, ends) = try Self.compactedQueue(temporary)
        var bytes = try readFile(path)
        let header = try #require(try? bytes.withUnsafeBytes { try FileHeader.decode($0).get() })
        // An intact record that applies anywhere, numbered one past the last.
        let body = TransactionCodec.encode([PlannedOperation(.inboxIngested(file: "x.inbox", offset: 0))])
        body.withUnsafeBytes {
            _ = RecordFrame.append(
                body: $0, type: .transaction, lsn: UInt64(ends.count + 1), groupIndex: 0,
                seed: RecordFrame.checksumSeed(instanceID: header.instanceID), to: &bytes)
        }
        try writeFile(path, bytes)
        do {
            _ = try LogInspector.verify(directory: temporary.queue)
            Issue.record("verify accepted a snapshot longer than its extent")
        } catch let error as SpoolError {
            #expect(error.code == .corruption && error.path == path, "\(error)")
            #expect(error.message.contains("more than the"), "\(error)")
            #expect(!error.message.contains("ends early"), "\(error)")
        }
    }

    @Test func aDamagedSnapshotHeaderOrFirstRecordIsNamedWithItsOffset() throws {
        let temporary = TemporaryDirectory("snapshot-head")
        defer { temporary.cleanup() }
        let (path, _) = try Self.compactedQueue(temporary)
        let whole = try readFile(path)
        let headerSize = try #require(try? whole.withUnsafeBytes { try FileHeader.decode($0).get() }).size
        for (damaged, offset) in [(20, 0), (headerSize + 30, headerSize)] {
            var bytes = whole
            bytes[damaged] ^= 0xFF
            try writeFile(path, bytes)
            do {
                _ = try LogInspector.verify(directory: temporary.queue)
                Issue.record("verify accepted a snapshot damaged at \(damaged)")
            } catch let error as SpoolError {
                #expect(error.code == .corruption && error.path == path && error.offset == Int64(offset), "\(error)")
                #expect(!error.message.contains("are missing (no snapshot"), "\(error)")
            }
        }
    }
}
