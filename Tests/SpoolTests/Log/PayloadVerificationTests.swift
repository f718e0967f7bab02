import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Payloads stay on disk after open and are read when a job is claimed or fetched: every such
/// read is checked against the CRC-32C replay (or the write) computed of the bytes, so bytes
/// changed on disk since (bit rot, a latent sector error, a stray write) are a `corruption`
/// naming the file and offset, never a job's parameters.
@Suite(.blocking) struct PayloadVerificationTests {
    static let payload = Data("the parameters of the job, as the app wrote them".utf8)

    /// Changes one byte of the payload of job `id` in its log file, behind the queue's back.
    private func damagePayload(of id: JobID, in queue: JobQueue, at index: Int64 = 5) throws -> (
        path: String, offset: Int64
    ) {
        let location = try #require(try queue.engine.job(id)).payload
        let path = queue.directory + "/" + QueueDirectoryLayout.logFileName(sequence: location.fileSequence)
        try flipByte(of: path, at: location.offset + index)
        return (path, location.offset)
    }

    /// Inverts the byte at `offset` of the file at `path` (a real write: the queue's reads see it).
    private func flipByte(of path: String, at offset: Int64) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [~byte])
    }

    /// Expects a `corruption` naming `path` and `offset`, and no bytes.
    private func expectCorruption<T>(
        at place: (path: String, offset: Int64), _ what: String,
        code: SpoolError.Code = .corruption,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> T
    ) {
        do {
            let value = try body()
            Issue.record("\(what) returned \(value) from a damaged payload", sourceLocation: sourceLocation)
        } catch let error as SpoolError {
            #expect(error.code == code, "\(what): \(error)", sourceLocation: sourceLocation)
            #expect(error.path == place.path, "\(what): \(error)", sourceLocation: sourceLocation)
            #expect(error.offset == place.offset, "\(what): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(what): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Replayed payloads (reopened queue): `payload(of:)` and `claim` refuse the changed bytes, and
    /// the job next to it, unchanged, still reads and claims.
    @Test func aReplayedPayloadChangedOnDiskIsCorruptionForPayloadAndClaim() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        do {
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "damaged", priority: 1))
            try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "intact"))
            try closeChecked(queue)
        }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        let place = try damagePayload(of: "damaged", in: queue)
        #expect(place.path == logFilePath(temp.queue))
        expectCorruption(at: place, "payload(of:)") { try queue.payload(of: "damaged") }
        expectCorruption(at: place, "claim") { try queue.claim() }
        #expect(try queue.payload(of: "intact") == Self.payload)
        let lease = try #require(try queue.claim())
        #expect(lease.job.id == "intact" && lease.payload == Self.payload)
    }

    /// A payload the live path wrote (no reopen) has its checksum too, from the bytes written;
    /// a payload in an older log file (read through the log file readers) as well.
    @Test func aPayloadWrittenLiveOrInAnOlderFileIsVerified() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.logFileSize = 4096
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        defer { try? closeChecked(queue) }
        try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "old"))
        for index in 0..<60 {
            try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: JobID("filler-\(index)")))
        }
        try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "live"))
        let old = try #require(try queue.engine.job("old")).payload.fileSequence
        let live = try #require(try queue.engine.job("live")).payload.fileSequence
        #expect(old < live, "the test needs the two payloads in different files")
        #expect(try queue.payload(of: "old") == Self.payload)
        #expect(try queue.payload(of: "live") == Self.payload)
        let oldPlace = try damagePayload(of: "old", in: queue)
        let livePlace = try damagePayload(of: "live", in: queue, at: Int64(Self.payload.count - 1))
        expectCorruption(at: oldPlace, "payload(of:) in an older file") { try queue.payload(of: "old") }
        expectCorruption(at: livePlace, "payload(of:) in the active file") { try queue.payload(of: "live") }
        #expect(try queue.payload(of: "filler-0") == Self.payload)
    }

    /// Compaction copies live payloads into the snapshot: a changed one stops it with the
    /// corruption instead of being written there under a fresh, valid checksum.
    @Test func compactionRefusesToCopyAChangedPayload() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "damaged"))
        let place = try damagePayload(of: "damaged", in: queue)
        expectCorruption(at: place, "compact") { try queue.compact() }
        // Once a compaction failed every call refuses with needsReopen (#14 item 2), naming the damage still.
        expectCorruption(at: place, "payload(of:) after the compaction failed", code: .needsReopen) {
            try queue.payload(of: "damaged")
        }
    }

    /// The runner's claim reads the payload: the handler never runs with changed bytes, and the
    /// runner stops by itself with the corruption.
    @Test(.onThePool) func theRunnerNeverHandsChangedBytesToAHandler() async throws {
        let fixture = try RuntimeFixture()
        let handled = Locked<[Data]>([])
        try fixture.runner.register(kind: "k") { payload, _ in handled.withLock { $0.append(payload) } }
        try await fixture.queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "damaged"))
        let place = try damagePayload(of: "damaged", in: fixture.queue)
        let start = fixture.eventCount
        fixture.runner.start()
        // Stopped by itself, or (were the bytes handed over) the job's success: either ends the wait.
        await fixture.waitForEvent(after: start) {
            if case .stopped = $0 { return true }
            return $0.isSuccess
        }
        #expect(handled.withLock { $0 }.isEmpty)
        let failure = try #require(fixture.runner.failure)
        #expect(
            failure.code == .corruption && failure.path == place.path && failure.offset == place.offset, "\(failure)")
        try await fixture.tearDown(replay: false)  // the log holds the byte the test changed: a replay refuses it
    }

    /// The read-only inspection (what `spool show` reads through) verifies its payload reads too.
    @Test func inspectionRefusesAChangedPayload() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        do {
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "damaged"))
            try queue.enqueue(NewJob(kind: "k", payload: Self.payload, id: "intact"))
            try closeChecked(queue)
        }
        // Inspection replays the log, so a byte changed before it is a damaged record: the byte is
        // changed after the replay, while the inspected queue is in use. The damaged job's payload
        // is the first copy of the bytes in the file (its record comes first).
        let path = logFilePath(temp.queue)
        let offset = Int64(try #require(try readFile(path).firstRange(of: Array(Self.payload))).lowerBound)
        try LogInspector.withJobs(directory: temp.queue) { inspected in
            #expect(try inspected.payload(of: "damaged") == Self.payload)
            try flipByte(of: path, at: offset + 3)
            do {
                let bytes = try inspected.payload(of: "damaged")
                Issue.record("the inspection returned \(bytes.count) bytes changed on disk")
            } catch let error as SpoolError {
                #expect(error.code == .corruption && error.path == path && error.offset == offset, "\(error)")
            }
            #expect(try inspected.payload(of: "intact") == Self.payload)
        }
    }
}
