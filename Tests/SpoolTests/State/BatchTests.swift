import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `enqueue(contentsOf:)`: one record, one sync, all or nothing.
@Suite(.blocking) struct BatchTests {
    private func open(_ directory: String) throws -> JobQueue {
        try JobQueue(directory: directory, configuration: testConfiguration())
    }

    /// The offsets of the frames in a closed log file.
    private func frameStarts(_ bytes: [UInt8]) -> [Int] {
        var starts: [Int] = []
        var offset = LogFormat.fileHeaderSize
        while offset + LogFormat.frameHeaderSize <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + 4 + $1]) << (8 * $1) }
            guard length > 0 else { break }
            starts.append(offset)
            offset += LogFormat.frameHeaderSize + length
        }
        return starts
    }

    @Test(.onThePool) func aBatchIsOneRecordAndReplaysAsTheLiveStateWas() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try open(temp.queue)
        try await queue.enqueue(NewJob(kind: "single", id: "first"))
        let jobs = (0..<50).map { NewJob(kind: "k\($0 % 3)", payload: Data("payload \($0)".utf8), priority: $0 % 5) }
        let ids = try await queue.enqueue(contentsOf: jobs)
        #expect(ids.count == 50 && Set(ids).count == 50)
        #expect(queue.engine.writer.lastAppendedLSN == 2)
        #expect(try queue.payload(of: ids[7]) == Data("payload 7".utf8))
        let live = comparableJobs(queue.engine.stateSnapshot)
        try closeChecked(queue)

        let reopened = try open(temp.queue)
        #expect(reopened.recoveryReport.recordsReplayed == 2)
        #expect(comparableJobs(reopened.engine.stateSnapshot) == live)
        #expect(try reopened.jobs().map(\.id) == ["first"] + ids)
        checkInvariants(reopened.engine.stateSnapshot)
        try closeChecked(reopened)
    }

    @Test func aBatchCutAnywhereIsEntirelyThereOrEntirelyAbsent() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try open(temp.queue)
        try queue.enqueue(NewJob(kind: "k", id: "before-1"))
        try queue.enqueue(NewJob(kind: "k", id: "before-2"))
        let batch = (0..<300).map {
            NewJob(kind: "k", payload: Data(repeating: UInt8($0 % 251), count: 90), id: JobID("batch-\($0)"))
        }
        try queue.enqueue(contentsOf: batch)
        try closeChecked(queue)

        let bytes = try readFile(logFilePath(temp.queue))
        let batchStart = try #require(frameStarts(bytes).last)
        #expect(bytes.count - batchStart > 30_000)
        var cuts = Array(stride(from: batchStart, to: bytes.count, by: 997))
        cuts.append(bytes.count - 1)
        for cut in cuts {
            // Cut short, and cut with zeroes after it (as a preallocated file looks after a crash).
            for zeroFilled in [false, true] {
                let damaged =
                    Array(bytes[..<cut]) + (zeroFilled ? [UInt8](repeating: 0, count: bytes.count - cut + 4096) : [])
                try writeFile(logFilePath(temp.queue), damaged)
                let reopened = try open(temp.queue)
                #expect(
                    try reopened.jobs().map(\.id.rawValue) == ["before-1", "before-2"],
                    "cut at \(cut), zeroes \(zeroFilled)")
                try closeChecked(reopened)
            }
        }
        try writeFile(logFilePath(temp.queue), bytes)
        let whole = try open(temp.queue)
        #expect(try whole.jobs().count == 302)
        try closeChecked(whole)
    }

    @Test func anInvalidJobFailsTheWholeBatchAndWritesNothing() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try open(temp.queue)
        try queue.enqueue(NewJob(kind: "k", id: "existing"))
        let lsn = queue.engine.writer.lastAppendedLSN
        let valid = (0..<5).map { NewJob(kind: "k", id: JobID("ok-\($0)")) }
        let invalid: [[NewJob]] = [
            valid + [NewJob(kind: "")],
            [NewJob(kind: "k", delay: -1)] + valid,
            valid + [NewJob(kind: "k", payload: Data(count: queue.configuration.maximumPayloadSize + 1))],
            valid + [NewJob(kind: "k", id: "existing")],
            valid + [NewJob(kind: "k", id: "ok-2")],
            valid + [NewJob(kind: "k", maxAttempts: 0)],
        ]
        for jobs in invalid {
            expectError(.invalidArgument) { try queue.enqueue(contentsOf: jobs) }
            #expect(queue.engine.writer.lastAppendedLSN == lsn)
            #expect(try queue.jobs().map(\.id.rawValue) == ["existing"])
        }
        #expect(try queue.enqueue(contentsOf: []) == [])
        #expect(queue.engine.writer.lastAppendedLSN == lsn)
        try closeChecked(queue)
        let reopened = try open(temp.queue)
        #expect(try reopened.jobs().map(\.id.rawValue) == ["existing"])
        try closeChecked(reopened)
    }

    @Test func aBatchOverTheRecordLimitIsRefused() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try open(temp.queue)
        let payload = Data(count: queue.configuration.maximumPayloadSize)
        let jobs = (0..<(LogFormat.maximumBodySize / payload.count + 1)).map { _ in NewJob(kind: "k", payload: payload)
        }
        expectError(.invalidArgument) { try queue.enqueue(contentsOf: jobs) }
        #expect(try queue.jobs().isEmpty)
        #expect(queue.engine.writer.lastAppendedLSN == 0)
        try queue.enqueue(NewJob(kind: "k"))
        try closeChecked(queue)
    }

    @Test func uniqueKeysInsideABatchResolveInOrder() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try open(temp.queue)
        try queue.enqueue(NewJob(kind: "k", id: "held", uniqueKey: "old"))
        let ids = try queue.enqueue(contentsOf: [
            NewJob(kind: "k", id: "a1", uniqueKey: "a"),
            NewJob(kind: "k", id: "a2", uniqueKey: "a"),  // keep: a1's id
            NewJob(kind: "k", id: "b1", uniqueKey: "b"),
            NewJob(kind: "k", id: "b2", uniqueKey: "b", uniquePolicy: .replace),  // cancels b1
            NewJob(kind: "k", id: "b3", uniqueKey: "b"),  // keep: b2's id
            NewJob(kind: "k", id: "x", uniqueKey: "old"),  // keep: held
            NewJob(kind: "k", id: "c1", uniqueKey: "c"),
            NewJob(kind: "k", id: "c2", uniqueKey: "c", uniquePolicy: .replace),  // cancels c1
            NewJob(kind: "k", id: "c3", uniqueKey: "c", uniquePolicy: .replace),  // cancels c2
            NewJob(kind: "k", id: "a1", uniqueKey: "a"),  // keep: not an id clash
        ])
        #expect(ids.map(\.rawValue) == ["a1", "a1", "b1", "b2", "b2", "held", "c1", "c2", "c3", "a1"])
        func check(_ queue: JobQueue) throws {
            #expect(try queue.job("a2") == nil)
            #expect(try queue.job("b1")?.state == .cancelled)
            #expect(try queue.job("b2")?.state == .enqueued)
            #expect(try queue.job("b3") == nil)
            #expect(try queue.job("x") == nil)
            #expect(try queue.job("c1")?.state == .cancelled)
            #expect(try queue.job("c2")?.state == .cancelled)
            #expect(try queue.job("c3")?.state == .enqueued)
            let keys = queue.engine.stateSnapshot.uniqueKeys
            #expect(keys == ["old": "held", "a": "a1", "b": "b2", "c": "c3"])
            checkInvariants(queue.engine.stateSnapshot)
        }
        try check(queue)
        // Replacing a job outside the batch cancels it in the batch's record.
        let replaced = try queue.enqueue(contentsOf: [
            NewJob(kind: "k", id: "new", uniqueKey: "old", uniquePolicy: .replace)
        ])
        #expect(replaced == ["new"])
        #expect(try queue.job("held")?.state == .cancelled)
        try closeChecked(queue)
        let reopened = try open(temp.queue)
        #expect(try reopened.job("new")?.state == .enqueued)
        #expect(reopened.recoveryReport.recordsReplayed == 3)
        try closeChecked(reopened)
    }
}
