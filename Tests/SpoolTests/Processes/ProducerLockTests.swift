import Foundation
import Testing

@testable import Spool

/// A producer holds no file lock between its calls (issue #16): `/proc/locks` (Linux) shows none of this process.
@Suite struct ProducerLockTests {
    /// The lines of `/proc/locks` naming this process.
    static func locksOfThisProcess() throws -> [String] {
        let pid = ProcessInfo.processInfo.processIdentifier
        let text = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter {
            $0.split(separator: " ", omittingEmptySubsequences: true).contains { $0 == "\(pid)" }
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/locks")))
    func noLockIsHeldBetweenProducerCalls() throws {
        let temporary = TemporaryDirectory("producer-locks")
        defer { temporary.cleanup() }
        try JobQueue(directory: temporary.queue).close()
        #expect(try Self.locksOfThisProcess().isEmpty, "the closed queue holds nothing")
        let producer = try QueueProducer(directory: temporary.queue)
        var ids: [JobID] = []
        for index in 0..<3 {
            ids.append(try producer.enqueue(NewJob(kind: "k", payload: Data([UInt8(index)]))))
            #expect(try Self.locksOfThisProcess().isEmpty, "after call \(index)")
        }
        try producer.cancel(ids[0])
        #expect(try Self.locksOfThisProcess().isEmpty, "after the cancel")
        // The record lock is really taken during a call: the file, locked by this process, shows in /proc/locks.
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let file = try POSIXFileSystem().openFile(at: inbox + "/" + name, mode: .readWrite)
        #expect(try file.tryLockFile())
        #expect(try Self.locksOfThisProcess().count == 1)
        file.unlockFile()
        #expect(try Self.locksOfThisProcess().isEmpty)
        file.close()
        let queue = try JobQueue(directory: temporary.queue)
        #expect(try queue.job(ids[0])?.state == .cancelled && queue.job(ids[2])?.state == .enqueued)
        try closeChecked(queue)
    }
}
