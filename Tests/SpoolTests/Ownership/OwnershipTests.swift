import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Ownership under ``ProcessSharing/shared`` in one process, with an injected clock: two `JobQueue`s
/// on one directory stand for two processes (the lock registry lets `.shared` owners share it).
@Suite(.blocking) struct OwnershipTests {
    private func shared(_ clock: ManualClock, lease: TimeInterval = 30) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.sharing = .shared
        configuration.ownershipLease = lease
        configuration.autoCompaction = nil
        return configuration
    }

    private func ownerRecord(_ directory: String) throws -> OwnerRecord? {
        try OwnershipFence.read(directory + "/" + OwnerRecord.fileName, fileSystem: POSIXFileSystem())
    }

    @Test func aSecondOwnerIsRefusedWhileTheLeaseHoldsNamingTheFileAndTheTime() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let first = try JobQueue(directory: temp.queue, configuration: shared(clock))
        defer { try? first.close() }
        let record = try #require(try ownerRecord(temp.queue))
        #expect(record.epoch == 1 && record.generation == 1)
        #expect(record.leaseUntil == Millis.from(clock.now()) + 30_000)
        #expect(record.processID == getpid())
        clock.advance(by: 29)
        do {
            _ = try JobQueue(directory: temp.queue, configuration: shared(clock))
            Issue.record("a second owner opened while the lease held")
        } catch let error as SpoolError {
            #expect(error.code == .ownedElsewhere)
            #expect(error.path == temp.queue + "/OWNER")
            #expect(error.message.contains("\(Millis.date(record.leaseUntil))"), "\(error)")
        }
        // Refused, it wrote nothing.
        #expect(try ownerRecord(temp.queue) == record)
    }

    /// The lease expired (the owner was idle, or stopped): another takes over; the stale owner's next
    /// write is refused with `ownershipLost`, so is every later call, and the log holds nothing of it.
    @Test func aStaleOwnerIsRefusedAfterATakeoverAndNothingInterleaves() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let stale = try JobQueue(directory: temp.queue, configuration: shared(clock))
        _ = try stale.enqueue(NewJob(kind: "a", id: "a-1"))
        clock.advance(by: 31)
        let owner = try JobQueue(directory: temp.queue, configuration: shared(clock))
        #expect(try ownerRecord(temp.queue)?.epoch == 2)
        _ = try owner.enqueue(NewJob(kind: "b", id: "b-1"))
        expectError(.ownershipLost) { try stale.enqueue(NewJob(kind: "a", id: "a-2")) }
        expectError(.ownershipLost, "reads too: the stale state may be out of date") { try stale.job("a-1") }
        expectError(.ownershipLost) { try stale.enqueue(NewJob(kind: "a", id: "a-3")) }
        try? stale.close()
        _ = try owner.enqueue(NewJob(kind: "b", id: "b-2"))
        let ids = try owner.jobs().map(\.id.rawValue)
        #expect(ids == ["a-1", "b-1", "b-2"])
        try closeChecked(owner)
        // The log as a reader sees it: the stale owner's refused jobs are nowhere.
        let records = try LogInspector.records(directory: temp.queue)
        let enqueued = records.flatMap(\.operations).filter { $0.name == "enqueue" }.map(\.jobID.rawValue)
        #expect(enqueued == ["a-1", "b-1", "b-2"])
    }

    /// Commits renew the lease once half of it has gone: an owner that writes keeps its role.
    @Test func writesRenewTheLeaseAfterHalfOfIt() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let owner = try JobQueue(directory: temp.queue, configuration: shared(clock))
        defer { try? owner.close() }
        clock.advance(by: 10)
        _ = try owner.enqueue(NewJob(kind: "a"))
        #expect(try ownerRecord(temp.queue)?.generation == 1, "renewed before half the lease had gone")
        clock.advance(by: 10)
        _ = try owner.enqueue(NewJob(kind: "a"))
        let renewed = try #require(try ownerRecord(temp.queue))
        #expect(renewed.generation == 2 && renewed.epoch == 1)
        #expect(renewed.leaseUntil == Millis.from(clock.now()) + 30_000)
        clock.advance(by: 25)  // 45 s after open: past the first lease, inside the renewed one
        expectError(.ownedElsewhere) { try JobQueue(directory: temp.queue, configuration: shared(clock)) }
    }

    /// The runner's renewal (``QueueEngine/renewOwnership()``) keeps an idle owner's lease.
    @Test func anIdleOwnerKeepsItsRoleByRenewing() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let owner = try JobQueue(directory: temp.queue, configuration: shared(clock))
        defer { try? owner.close() }
        clock.advance(by: 20)
        try owner.renewOwnership()
        clock.advance(by: 20)
        expectError(.ownedElsewhere) { try JobQueue(directory: temp.queue, configuration: shared(clock)) }
    }

    /// A clean close ends the lease: the next owner takes over at once, with the next epoch.
    @Test func aCleanCloseHandsTheRoleOnAtOnce() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let first = try JobQueue(directory: temp.queue, configuration: shared(clock))
        _ = try first.enqueue(NewJob(kind: "a", id: "a-1"))
        try first.close()
        #expect(try ownerRecord(temp.queue)?.leaseUntil == 0)
        let second = try JobQueue(directory: temp.queue, configuration: shared(clock))
        #expect(try ownerRecord(temp.queue)?.epoch == 2)
        #expect(try second.job("a-1") != nil)
        try closeChecked(second)
    }

    /// An exclusive opener honours a `.shared` owner's lease, and takes the next epoch when it has
    /// expired, so that the `.shared` owner's next write is refused.
    @Test func anExclusiveOpenerHonoursTheLeaseAndFencesTheSharedOwner() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let stale = try JobQueue(directory: temp.queue, configuration: shared(clock))
        _ = try stale.enqueue(NewJob(kind: "a", id: "a-1"))
        // In one process the registry refuses an exclusive open beside a `.shared` one; the lease
        // rule is checked through the function the exclusive open calls.
        expectError(.locked) { try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock)) }
        expectError(.ownedElsewhere) {
            try OwnershipFence.recordExclusiveOwner(directory: temp.queue, fileSystem: POSIXFileSystem(), clock: clock)
        }
        clock.advance(by: 31)
        try OwnershipFence.recordExclusiveOwner(directory: temp.queue, fileSystem: POSIXFileSystem(), clock: clock)
        let record = try #require(try ownerRecord(temp.queue))
        #expect(record.epoch == 2 && record.leaseUntil == 0)
        expectError(.ownershipLost) { try stale.enqueue(NewJob(kind: "a", id: "a-2")) }
        try? stale.close()
        let exclusive = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        #expect(try ownerRecord(temp.queue)?.epoch == 3)
        #expect(try exclusive.jobs().map(\.id.rawValue) == ["a-1"])
        try closeChecked(exclusive)
    }

    /// An exclusive queue (the default) writes no `OWNER` file: a queue of the previous release
    /// opens, and stays, as it was.
    @Test func anExclusiveQueueWritesNoOwnerFile() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        _ = try queue.enqueue(NewJob(kind: "a"))
        try closeChecked(queue)
        #expect(!FileManager.default.fileExists(atPath: temp.queue + "/OWNER"))
        let again = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try closeChecked(again)
        #expect(!FileManager.default.fileExists(atPath: temp.queue + "/OWNER"))
    }

    @Test func anOwnershipLeaseOutOfRangeIsRefused() throws {
        let temp = TemporaryDirectory("spool-owner")
        defer { temp.cleanup() }
        for lease in [0, -1, .nan, 1e10] as [TimeInterval] {
            expectError(.invalidArgument, "\(lease)") {
                try JobQueue(directory: temp.queue, configuration: shared(ManualClock(), lease: lease))
            }
        }
    }

    #if os(Linux)
        /// The POSIX locks `/proc/locks` lists for this process on `LOCK` (matched by its inode).
        /// This process's locks on the queue's `LOCK`, as `/proc/locks` lists them.
        private func locksHeld(onLockFileOf directory: String) throws -> [ProcLocks.Lock] {
            #expect(FileManager.default.fileExists(atPath: directory + "/LOCK"))
            return try ProcLocks.locks(onFilesAt: [directory + "/LOCK"]).filter { $0.pid == getpid() }
        }

        /// Between calls a `.shared` owner holds no lock on anything in the directory; an exclusive
        /// one holds `LOCK` (so the probe can see a lock when there is one).
        @Test func aSharedOwnerHoldsNoLockBetweenCalls() throws {
            let temp = TemporaryDirectory("spool-owner")
            defer { temp.cleanup() }
            let clock = ManualClock()
            let owner = try JobQueue(directory: temp.queue, configuration: shared(clock))
            #expect(try locksHeld(onLockFileOf: temp.queue).isEmpty)
            for index in 0..<5 {
                _ = try owner.enqueue(NewJob(kind: "a", id: JobID("job-\(index)")))
                #expect(try locksHeld(onLockFileOf: temp.queue).isEmpty)
                let lease = try #require(try owner.claim())
                #expect(try locksHeld(onLockFileOf: temp.queue).isEmpty)
                _ = try owner.complete(lease)
                #expect(try locksHeld(onLockFileOf: temp.queue).isEmpty)
                clock.advance(by: 20)  // renewals too
            }
            try closeChecked(owner)

            let exclusive = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
            _ = try exclusive.enqueue(NewJob(kind: "a"))
            #expect(try locksHeld(onLockFileOf: temp.queue).count == 1)
            try closeChecked(exclusive)
            #expect(try locksHeld(onLockFileOf: temp.queue).isEmpty)
        }
    #endif
}
