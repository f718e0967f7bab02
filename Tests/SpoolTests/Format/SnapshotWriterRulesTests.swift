import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// What a writer of snapshots must follow and a reader holds them to (FORMAT.md, *Snapshots and compaction*,
/// "Writing a snapshot"), issue #32 item 5: one rule for the same bytes in open, appending and `spool verify`.
@Suite(.blocking) struct SnapshotWriterRulesTests {
    static let t = DiskFieldRangeTests.t

    /// An unfinished job restored waiting for a job that is missing, succeeded or failed does not apply;
    /// one waiting for an unfinished job restored before it does; a finished job's list is not judged.
    @Test func anUnfinishedRestoreWaitsOnlyForUnfinishedJobsRestoredBeforeIt() throws {
        func restored(_ jobs: [StoredJob]) -> Result<QueueState, Refusal> {
            var state = QueueState()
            return Result { () throws(Refusal) in
                for job in jobs { try state.apply(.restore(job)) }
                return state
            }
        }
        let waiting = DiskFieldRangeTests.job("w", .enqueued, sequence: 5, waitingFor: ["p"])
        let cascaded = DiskFieldRangeTests.job("c", .cancelled, sequence: 6, finishedAt: Self.t, waitingFor: ["p"])
        let open = DiskFieldRangeTests.job("p", .enqueued, sequence: 1)
        let done = DiskFieldRangeTests.job("p", .succeeded, sequence: 1, finishedAt: Self.t)
        let failed = DiskFieldRangeTests.job("p", .failed, sequence: 1, finishedAt: Self.t)
        #expect(throws: Never.self) { try restored([open, waiting]).get() }
        for prerequisites in [[], [done], [failed]] {
            guard
                case .failure(.restoredWaitingForFinished(let id, let prerequisite)) = restored(
                    prerequisites + [waiting])
            else {
                Issue.record("a restore waiting for \(prerequisites.map(\.state)) applied")
                continue
            }
            #expect(id == "w" && prerequisite == "p")
        }
        // After its prerequisite in the snapshot, not before.
        #expect(throws: Refusal.self) { try restored([waiting, open]).get() }
        #expect(throws: Never.self) { try restored([cascaded]).get() }
    }

    /// The same bytes on disk: a snapshot whose restore waits for a job it does not hold is refused by
    /// open and by `spool verify` alike, as `corruption` naming the snapshot and the record's offset;
    /// salvage skips that restore.
    @Test func openAndVerifyRefuseTheSameSnapshotNamingItsFileAndOffset() throws {
        let temporary = TemporaryDirectory("snapshot-rules")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "k", id: "prereq-AAAA"))
        _ = try queue.enqueue(NewJob(kind: "k", id: "dependent", dependencies: ["prereq-AAAA"]))
        _ = try queue.compact()
        try closeChecked(queue)
        // The dependent's waiting-for id rewritten to a job the snapshot does not hold, the frame sealed again.
        let snapshot = try #require(
            try LogReplay.logFiles(in: temporary.queue, fileSystem: POSIXFileSystem()).first {
                try LogReplay(directory: temporary.queue, fileSystem: POSIXFileSystem(), mode: .strict).isSnapshot($0)
            })
        var bytes = try readFile(snapshot.path)
        let header = try #require(try? bytes.withUnsafeBytes { try FileHeader.decode($0).get() })
        let id = Array("prereq-AAAA".utf8)
        let occurrences = (0...(bytes.count - id.count)).filter { Array(bytes[$0..<($0 + id.count)]) == id }
        try #require(occurrences.count == 2, "the restore of the prerequisite, then the dependent's list")
        bytes.replaceSubrange(occurrences[1]..<(occurrences[1] + id.count), with: Array("prereq-ZZZZ".utf8))
        var offset = header.size
        var patchedRecord: Int?
        while offset < bytes.count {
            let length = bytes.withUnsafeBytes { RecordFrame.declaredBodyLength($0, frameAt: offset) }
            let end = RecordFrame.end(ofFrameAt: offset, bodyLength: length)
            if (offset..<end).contains(occurrences[1]) {
                var frame = Array(bytes[offset..<end])
                let lsn = frame.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
                RecordFrame.seal(
                    &frame, type: .transaction, lsn: lsn, groupIndex: 0,
                    seed: RecordFrame.checksumSeed(instanceID: header.instanceID))
                bytes.replaceSubrange(offset..<end, with: frame)
                patchedRecord = offset
                break
            }
            offset = end
        }
        let recordOffset = try #require(patchedRecord)
        try writeFile(snapshot.path, bytes)

        func expectRefused(_ body: () throws -> Void, _ what: String) {
            do {
                try body()
                Issue.record("\(what) accepted the snapshot")
            } catch let error as SpoolError {
                #expect(error.code == .corruption, "\(what): \(error)")
                #expect(error.path == snapshot.path && error.offset == Int64(recordOffset), "\(what): \(error)")
                #expect(error.message.contains("prereq-ZZZZ"), "\(what): \(error)")
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        expectRefused({ _ = try JobQueue(directory: temporary.queue, configuration: configuration) }, "open")
        expectRefused({ _ = try LogInspector.verify(directory: temporary.queue) }, "verify")
        configuration.recoveryMode = .salvage
        queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        #expect(try queue.job("prereq-AAAA") != nil && queue.job("dependent") == nil)
        #expect(queue.recoveryReport.skipped.contains { $0.path == snapshot.path })
        try queue.close()
    }
}
