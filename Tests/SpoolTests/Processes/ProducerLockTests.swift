import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A producer holds no file lock between its calls (issue #16): `/proc/locks` (Linux) shows none of this process.
@Suite(.blocking) struct ProducerLockTests {
    /// The locks of this process on files in `directory` (other suites running in this process at the
    /// same time hold locks on their own queues).
    static func locksOfThisProcess(in directory: String) throws -> [ProcLocks.Lock] {
        try ProcLocks.locks(of: ProcessInfo.processInfo.processIdentifier, in: directory)
    }

    @Test(.enabled(if: ProcLocks.isAvailable))
    func noLockIsHeldBetweenProducerCalls() throws {
        let temporary = TemporaryDirectory("producer-locks")
        defer { temporary.cleanup() }
        try JobQueue(directory: temporary.queue).close()
        #expect(try Self.locksOfThisProcess(in: temporary.queue).isEmpty, "the closed queue holds nothing")
        let producer = try QueueProducer(directory: temporary.queue)
        var ids: [JobID] = []
        for index in 0..<3 {
            ids.append(try producer.enqueue(NewJob(kind: "k", payload: Data([UInt8(index)]))))
            #expect(try Self.locksOfThisProcess(in: temporary.queue).isEmpty, "after call \(index)")
        }
        try producer.cancel(ids[0])
        #expect(try Self.locksOfThisProcess(in: temporary.queue).isEmpty, "after the cancel")
        // The record lock is really taken during a call: the file, locked by this process, shows in /proc/locks.
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let file = try POSIXFileSystem().openFile(at: inbox + "/" + name, mode: .readWrite)
        #expect(try file.tryLockFile())
        #expect(try Self.locksOfThisProcess(in: temporary.queue).count == 1)
        file.unlockFile()
        #expect(try Self.locksOfThisProcess(in: temporary.queue).isEmpty)
        file.close()
        let queue = try JobQueue(directory: temporary.queue)
        #expect(try queue.job(ids[0])?.state == .cancelled && queue.job(ids[2])?.state == .enqueued)
        try closeChecked(queue)
    }
}
