import Dispatch
import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

@Suite(.blocking) struct FaultInjectionTests {
    private func open(_ directory: String, _ fileSystem: FaultyFileSystem) throws -> JobQueue {
        var configuration = testConfiguration()
        configuration.fileSystem = fileSystem
        return try JobQueue(directory: directory, configuration: configuration)
    }

    @Test(arguments: [
        FaultyFileSystem.Fault.write(ENOSPC), .shortWriteThen(ENOSPC), .write(EIO), .sync(EIO), .write(EFBIG),
    ])
    func aFailedWriteOrSyncIsThrownPoisonsTheQueueAndLosesNothingAcknowledged(fault: FaultyFileSystem.Fault) throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        let queue = try open(temp.queue, fileSystem)
        try queue.enqueue(NewJob(kind: "k", id: "safe-1"))
        try queue.enqueue(NewJob(kind: "k", id: "safe-2"))
        fileSystem.inject(fault)
        do {
            try queue.enqueue(NewJob(kind: "k", id: "doomed"))
            Issue.record("an enqueue reported success although its write or sync failed")
        } catch let error as SpoolError {
            switch fault {
            case .write(let code), .sync(let code), .shortWriteThen(let code), .snapshotWrite(let code):
                #expect(error.errno == code, "\(error)")
                #expect(error.code == ((code == ENOSPC || code == EFBIG) ? .diskFull : .ioFailure))
                #expect(error.path == logFilePath(temp.queue))
            case .holdSync, .holdSyncThenFail, .logRead:
                Issue.record("not one of this test's faults")
            }
        }
        // No retry of the sync is trusted: every later change is refused until reopen.
        expectError(.needsReopen) { try queue.enqueue(NewJob(kind: "k", id: "after")) }
        expectError(.needsReopen) { try queue.claim() }
        try? queue.close()

        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        let ids = try reopened.jobs().map(\.id.rawValue)
        #expect(ids.prefix(2) == ["safe-1", "safe-2"])
        #expect(!ids.contains("after"))
        checkInvariants(reopened.engine.stateSnapshot)
        try reopened.enqueue(NewJob(kind: "k", id: "fresh"))
        try closeChecked(reopened)
    }

    @Test(.onThePool) func concurrentCallersShareSyncsAndAllLearnOfAFailure() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        let queue = try open(temp.queue, fileSystem)
        // Many concurrent enqueues succeed, each durable.
        try await withThrowingTaskGroup(of: JobID.self) { group in
            for index in 0..<64 {
                group.addTask { try await queue.enqueue(NewJob(kind: "k", id: JobID("job-\(index)"))) }
            }
            var count = 0
            for try await _ in group { count += 1 }
            #expect(count == 64)
        }
        fileSystem.inject(.sync(EIO))
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask { (try? await queue.enqueue(NewJob(kind: "k", id: JobID("late-\(index)")))) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        // The first sync after the fault fails every call it covered, and the poisoned queue refuses the rest.
        #expect(outcomes.count == 16 && outcomes.allSatisfy { !$0 }, "\(outcomes)")
        try? queue.close()
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count >= 64)
        try closeChecked(reopened)
    }

    /// A record appended while the sync that fails is under way stays buffered, unwritten, when the
    /// writer fails. Reading its payload back must not find another record's bytes at its offset
    /// (the failed group's bytes are gone from the buffer the offsets were counted in): it is refused.
    @Test func aPayloadLeftUnwrittenByAFailedSyncIsRefusedNotReadFromTheWrongBytes() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        let queue = try open(temp.queue, fileSystem)
        try queue.enqueue(NewJob(kind: "k", id: "safe"))
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        fileSystem.inject(.holdSyncThenFail(entered: entered, release: release, EIO))
        let leaderDone = DispatchSemaphore(value: 0)
        let leaderPayload = Data(repeating: 0x4C, count: 64)
        Thread {
            _ = try? queue.enqueue(NewJob(kind: "k", payload: leaderPayload, id: "in-flight"))
            leaderDone.signal()
        }.start()
        #expect(entered.wait(timeout: .now() + hangGuard) == .success)
        // Appended behind the held sync, so still buffered when that sync fails: several, so that
        // an offset counted with the failed group's bytes still falls inside the buffer without them.
        for index in 0..<4 {
            let payload = Data(repeating: 0x50 + UInt8(index), count: 64)
            _ = try queue.engine.enqueue(NewJob(kind: "k", payload: payload, id: JobID("pending-\(index)")))
        }
        release.signal()
        #expect(leaderDone.wait(timeout: .now() + hangGuard) == .success)

        // Every read refuses after the failure (issue #14 item 2), the acknowledged job's too.
        expectError(.needsReopen) { try queue.payload(of: "safe") }
        do {
            let read = try queue.payload(of: "pending-0")
            Issue.record(
                "read \(read.count) bytes of a payload the failed writer never wrote: \(Array(read.prefix(4)))")
        } catch let error as SpoolError {
            #expect(error.code == .needsReopen, "\(error)")
        }
        try? queue.close()
    }

    /// Replay reads each log file whole; a read that fails is a typed error naming the file and
    /// the errno (not a crash, as touching a mapped page that cannot be read would be), and the
    /// queue opens once the disk reads again.
    @Test func aReadErrorDuringOpenIsATypedErrorNamingTheFile() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        let queue = try open(temp.queue, fileSystem)
        try queue.enqueue(NewJob(kind: "k", id: "kept"))
        try closeChecked(queue)
        fileSystem.inject(.logRead(EIO))
        do {
            _ = try open(temp.queue, fileSystem)
            Issue.record("the queue opened although reading its log failed")
        } catch let error as SpoolError {
            #expect(error.errno == EIO && error.code == .ioFailure, "\(error)")
            #expect(error.path == logFilePath(temp.queue), "\(error)")
        }
        let reopened = try open(temp.queue, fileSystem)
        #expect(try reopened.jobs().map(\.id.rawValue) == ["kept"])
        try closeChecked(reopened)
    }
}
