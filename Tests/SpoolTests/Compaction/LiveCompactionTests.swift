import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Compaction while the queue is live: payload reads racing the deletion of old files, and the trigger's arithmetic.
@Suite(.blocking) struct LiveCompactionTests {
    /// A queue on `fileSystem`, compacting only when a test says so.
    private static func openQueue(in temporary: TemporaryDirectory, fileSystem: HookedFileSystem) throws -> JobQueue {
        var configuration = testConfiguration()
        configuration.fileSystem = fileSystem
        configuration.autoCompaction = nil
        return try JobQueue(directory: temporary.queue, configuration: configuration)
    }

    /// A payload read opens an old log file; before it caches the handle, a compaction deletes
    /// the file and forgets the handles below its snapshot. The read must not then cache the
    /// handle of the deleted file: it would hold the file's space (and a descriptor) for as
    /// long as the queue is open.
    @Test func aPayloadReadRacingACompactionKeepsNoHandleOfADeletedFile() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let fileSystem = HookedFileSystem()
        let queue = try Self.openQueue(in: temporary, fileSystem: fileSystem)
        defer { try? closeChecked(queue) }
        let payload = Data("the payload".utf8)
        let id = try queue.enqueue(NewJob(kind: "k", payload: payload))
        let old = queue.engine.writer.fileSequence
        try queue.engine.lockedRollOver()
        let oldPath = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: old)
        let compaction = Locked<Result<CompactionReport, any Error>?>(nil)
        // The read's open of the old file is followed at once by a whole compaction (on this thread).
        fileSystem.afterReadOnlyOpen.withLock { hook in
            hook = (
                QueueDirectoryLayout.logFileName(sequence: old), 0,
                {
                    let result = Result { try queue.compact() }
                    compaction.withLock { $0 = result }
                }
            )
        }
        #expect(try queue.payload(of: id) == payload)
        let report = try #require(compaction.withLock { $0 })
        _ = try report.get()
        #expect(!FileManager.default.fileExists(atPath: oldPath), "the compaction deleted the old file")
        #expect(fileSystem.live(oldPath) == 0, "a handle of the deleted \(oldPath) is kept open")
        #expect(try queue.payload(of: id) == payload)
    }

    /// A job expired by a compaction between the lookup of its location and the read of its
    /// payload (whose file the compaction deleted) is reported as not found, not as an I/O failure.
    @Test func aPayloadReadOfAJobAConcurrentCompactionExpiredIsJobNotFound() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retention = 10
        configuration.autoCompaction = nil
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        defer { try? closeChecked(queue) }
        let id = try queue.enqueue(NewJob(kind: "k", payload: Data("bytes".utf8)))
        let lease = try #require(try queue.claim())
        _ = try queue.complete(lease)
        try queue.engine.lockedRollOver()
        clock.advance(by: 60)
        // JobQueue.payload(of:): the lookup, then (a compaction meanwhile) the read.
        let stored = try #require(try queue.engine.job(id))
        let report = try queue.compact()
        #expect(report.jobsExpired == 1)
        expectError(.jobNotFound) { try queue.engine.payload(of: stored) }
    }

    /// Extreme but accepted settings of automatic compaction must not trap in the trigger's arithmetic.
    @Test(arguments: [
        AutoCompaction(minimumLogBytes: .min, obsoleteRatio: 0.5),
        AutoCompaction(minimumLogBytes: 0, obsoleteRatio: .infinity),
    ])
    func theTriggerArithmeticDoesNotTrap(auto: AutoCompaction) throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        var configuration = testConfiguration()
        configuration.autoCompaction = auto
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        defer { try? closeChecked(queue) }
        _ = try queue.enqueue(NewJob(kind: "k"))
        let lease = try #require(try queue.claim())
        _ = try queue.complete(lease)
        _ = queue.engine.waitForBackgroundCompaction()
        _ = try queue.enqueue(NewJob(kind: "k"))
        #expect(queue.engine.waitForBackgroundCompaction() == nil)
    }

    /// `close()` while a `compact()` (another thread's) writes its snapshot: the compaction must
    /// not go on writing into the directory after close released it (another opener may own it
    /// by then), so it gives up before its snapshot is renamed into the log, and close waits for it.
    @Test(.onThePool) func closeDuringACompactionLeavesNoSnapshotWrittenAfterIt() async throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let fileSystem = HookedFileSystem()
        let queue = try Self.openQueue(in: temporary, fileSystem: fileSystem)
        let payload = Data("the payload".utf8)
        let id = try await queue.enqueue(NewJob(kind: "k", payload: payload))
        let old = queue.engine.writer.fileSequence
        try queue.engine.lockedRollOver()
        let snapshot = queue.engine.writer.fileSequence + 1
        let outcome = Locked<(compact: (any Error)?, close: (any Error)?)>((nil, nil))
        // The compaction opens the old file to measure it, then to read the payload: after that
        // second open, another thread closes the queue.
        let closed = DispatchSemaphore(value: 0)
        let closeReturnedEarly = Locked(false)
        fileSystem.afterReadOnlyOpen.withLock { hook in
            hook = (
                QueueDirectoryLayout.logFileName(sequence: old), 1,
                {
                    Thread {
                        do { try closeChecked(queue) } catch { outcome.withLock { $0.close = error } }
                        closed.signal()
                    }.start()
                    while !queue.engine.lock.withLock({ queue.engine.status.isClosed }) {}
                    // The compaction is still writing (this hook runs inside it): close must wait for it,
                    // keeping the directory until it has stopped. A close that returned let the directory go.
                    if closed.wait(timeout: .now() + 0.5) == .success {
                        closeReturnedEarly.withLock { $0 = true }
                        closed.signal()
                    }
                }
            )
        }
        // Blocking work on a thread of its own, not on Swift's cooperative pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                do { _ = try queue.compact() } catch { outcome.withLock { $0.compact = error } }
                closed.wait()
                continuation.resume()
            }.start()
        }
        let (compactError, closeError) = outcome.withLock { $0 }
        #expect(closeError == nil, "\(String(describing: closeError))")
        #expect(!closeReturnedEarly.withLock { $0 }, "close() returned while a compaction was still writing")
        #expect((compactError as? SpoolError)?.code == .closed, "\(String(describing: compactError))")
        let names = try FileManager.default.contentsOfDirectory(atPath: temporary.queue)
        #expect(
            !names.contains(QueueDirectoryLayout.logFileName(sequence: snapshot)),
            "the snapshot was renamed into the log after close: \(names.sorted())")
        #expect(!names.contains(QueueDirectoryLayout.snapshotTempName(sequence: snapshot)))
        let reopened = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        defer { try? closeChecked(reopened) }
        #expect(try reopened.payload(of: id) == payload)
    }

    /// close() lets go of the handles of the older log files it kept for payload reads: the
    /// queue object may outlive its close (and another opener may compact those files away).
    @Test func closeKeepsNoHandleOfAnOlderLogFile() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let fileSystem = HookedFileSystem()
        let queue = try Self.openQueue(in: temporary, fileSystem: fileSystem)
        let id = try queue.enqueue(NewJob(kind: "k", payload: Data("bytes".utf8)))
        let old = queue.engine.writer.fileSequence
        try queue.engine.lockedRollOver()
        #expect(try queue.payload(of: id) == Data("bytes".utf8))
        try closeChecked(queue)
        let oldPath = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: old)
        #expect(fileSystem.live(oldPath) == 0, "a closed queue still holds \(oldPath) open")
        withExtendedLifetime(queue) {}
    }
}
