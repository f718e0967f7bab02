import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// No async call waits on the disk on a thread of Swift's cooperative pool (issue 45): the writes
/// and syncs of an async enqueue's commit group, and of its roll-over, run on Spool's own threads;
/// and no reservation goes past the size at which a file rolls over.
@Suite(.blocking) struct PoolThreadSyncTests {
    @Test(.timeLimit(.minutes(1)), .onThePool) func anAsyncEnqueueWritesAndSyncsOffTheCallersPoolThreadAcrossRollOvers()
        async throws
    {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let disk = DiskCallRecorder()
        var configuration = testConfiguration()
        configuration.fileSystem = disk
        configuration.logFileSize = 8 << 10
        let queue = try await JobQueue.open(directory: temp.queue, configuration: configuration)
        let opening = disk.take()
        #expect(!opening.isEmpty && opening.allSatisfy { !$0.insideTask }, "open's disk work: \(opening)")
        for index in 0..<40 {
            try await queue.enqueue(NewJob(kind: "k", payload: Data(repeating: 7, count: 1000), id: JobID("j\(index)")))
        }
        // Concurrent callers too: some of them lead no group, some find a roll-over to wait for.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await queue.enqueue(
                        NewJob(kind: "k", payload: Data(repeating: 8, count: 900), id: JobID("c\(index)")))
                }
            }
            try await group.waitForAll()
        }
        let calls = disk.take()
        #expect(queue.engine.writer.fileSequence > 4, "the enqueues should have rolled the log over")
        #expect(calls.contains { $0.call == "fdatasync" } && calls.contains { $0.call == "syncDirectory" })
        let onThePool = calls.filter(\.insideTask)
        #expect(onThePool.isEmpty, "disk calls made inside a task (on a pool thread): \(onThePool)")
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count == 56)
        try closeChecked(reopened)
    }

    @Test func aBlockingEnqueueStillSyncsOnItsOwnThread() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let disk = DiskCallRecorder()
        var configuration = testConfiguration()
        configuration.fileSystem = disk
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        _ = disk.take()
        let caller = pthread_self()
        try queue.enqueue(NewJob(kind: "k", id: "one"))
        let syncs = disk.take().filter { $0.call == "fdatasync" }
        #expect(syncs.count == 1 && syncs.allSatisfy { pthread_equal($0.thread, caller) != 0 })
        try closeChecked(queue)
    }

    @Test func noReservationGoesPastTheRollOverSize() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let disk = DiskCallRecorder()
        var configuration = testConfiguration()
        configuration.fileSystem = disk
        configuration.preallocationChunk = 1 << 20
        configuration.logFileSize = 600 << 10
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        for index in 0..<40 {
            try queue.enqueue(NewJob(kind: "k", payload: Data(repeating: 1, count: 60_000), id: JobID("j\(index)")))
        }
        #expect(queue.engine.writer.fileSequence >= 3)
        let reservations = disk.take().compactMap(\.reservedEnd)
        #expect(!reservations.isEmpty)
        #expect(reservations.allSatisfy { $0 <= 600 << 10 }, "reservations ending at \(reservations)")
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count == 40)
        try closeChecked(reopened)
    }
}

/// The real file system, recording each write, sync and reservation with the thread it ran on
/// and whether it ran inside a Swift task (on a thread of the cooperative pool).
final class DiskCallRecorder: RealFileSystemWrapper, @unchecked Sendable {
    // @unchecked: `calls` is guarded by its `Locked`.
    struct Call: CustomStringConvertible {
        var call: String
        var path: String
        var thread: pthread_t
        var insideTask: Bool
        /// Where a reservation ends.
        var reservedEnd: Int64?
        var description: String { "\(call) \((path as NSString).lastPathComponent)\(insideTask ? " in a task" : "")" }
    }
    let real = POSIXFileSystem()
    private let calls = Locked<[Call]>([])

    func record(_ call: String, _ path: String, reservedEnd: Int64? = nil) {
        let insideTask = withUnsafeCurrentTask { $0 != nil }
        calls.withLock {
            $0.append(
                Call(call: call, path: path, thread: pthread_self(), insideTask: insideTask, reservedEnd: reservedEnd))
        }
    }

    /// The calls recorded since the last take.
    func take() -> [Call] {
        calls.withLock { calls in
            defer { calls = [] }
            return calls
        }
    }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        RecordedFile(try real.openFile(at: path, mode: mode), recorder: self)
    }

    func syncDirectory(at path: String) throws {
        record("syncDirectory", path)
        try real.syncDirectory(at: path)
    }
}

private final class RecordedFile: StorageFile, @unchecked Sendable {
    // @unchecked: immutable references; the wrapped file is thread-safe.
    let inner: any StorageFile
    let recorder: DiskCallRecorder
    init(_ inner: any StorageFile, recorder: DiskCallRecorder) {
        self.inner = inner
        self.recorder = recorder
    }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { try inner.read(at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        recorder.record("pwrite", path)
        try inner.write(bytes, at: offset)
    }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws {
        recorder.record("fdatasync", path)
        try inner.syncData()
    }
    func orderedSync() throws {
        recorder.record("orderedSync", path)
        try inner.orderedSync()
    }
    func fullSync() throws {
        recorder.record("fsync", path)
        try inner.fullSync()
    }
    func truncate(to size: Int64) throws { try inner.truncate(to: size) }
    func tryLockFile() throws -> Bool { try inner.tryLockFile() }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
    func preallocate(offset: Int64, length: Int64) throws {
        recorder.record("preallocate", path, reservedEnd: offset + length)
        try inner.preallocate(offset: offset, length: length)
    }
    func close() { inner.close() }
}
