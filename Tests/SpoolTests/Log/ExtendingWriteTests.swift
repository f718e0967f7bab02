import Dispatch
import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A commit group of at least ``LogWriter/directWriteMinimum`` bytes (a batch) that does not fit the
/// reserved space is written past it, extending the file, and made durable with a full sync: no zeroes
/// are written ahead of it.
@Suite(.blocking) struct ExtendingWriteTests {
    /// A batch whose record is about `bytes` long: jobs with 200-byte payloads (~225 bytes each).
    private func batch(_ prefix: String, bytes: Int) -> [NewJob] {
        (0..<(bytes / 225)).map {
            NewJob(kind: "k", payload: Data(repeating: 7, count: 200), id: JobID("\(prefix)\($0)"))
        }
    }

    /// A queue in `temp` on `fileSystem`, holding one small job: the file's first chunk is reserved.
    private func queueHoldingOneSmallJob(on fileSystem: any FileSystem, in temp: TemporaryDirectory) throws -> JobQueue
    {
        var configuration = testConfiguration()
        configuration.fileSystem = fileSystem
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", id: "small"))
        return queue
    }

    private func fileSize(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).int64Value
    }

    @Test func aLargeGroupPastTheReservationExtendsTheFileWithOneFullSyncAndNoZeroes() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let audit = SyncAuditFileSystem()
        let queue = try queueHoldingOneSmallJob(on: audit, in: temp)
        var statistics = queue.engine.writer.currentStatistics
        let firstReserved = LogWriter.firstReservation - Int64(LogFormat.fileHeaderSize)
        #expect(statistics.fullSyncs == 1 && statistics.reservedBytes == firstReserved, "\(statistics)")

        // ~450 KB: more than the 256 KiB reserved, and over the minimum.
        try queue.enqueue(contentsOf: batch("a", bytes: 450_000))
        statistics = queue.engine.writer.currentStatistics
        let endOfA = queue.engine.writer.appendedEnd
        #expect(endOfA > 400_000 && endOfA > LogWriter.firstReservation)
        #expect(statistics.extendingWrites == 1, "\(statistics)")
        #expect(
            statistics.fullSyncs == 1 && statistics.reservedBytes == firstReserved,
            "no reservation, so no zeroes, for the large group: \(statistics)")
        #expect(try fileSize(logFilePath(temp.queue)) == endOfA, "the file ends where the group ends")

        // A small record after it reserves again, from the group's end (doubling the reserved space).
        try queue.enqueue(NewJob(kind: "k", id: "small-2"))
        statistics = queue.engine.writer.currentStatistics
        #expect(statistics.fullSyncs == 2 && statistics.extendingWrites == 1, "\(statistics)")
        #expect(try fileSize(logFilePath(temp.queue)) == 2 * endOfA)

        // A large group that fits the reserved space is written inside it with a data sync.
        let syncsBefore = statistics.dataSyncs
        try queue.enqueue(contentsOf: batch("b", bytes: 300_000))
        statistics = queue.engine.writer.currentStatistics
        #expect(queue.engine.writer.appendedEnd < 2 * endOfA)
        #expect(
            statistics.fullSyncs == 2 && statistics.extendingWrites == 1 && statistics.dataSyncs == syncsBefore + 1,
            "\(statistics)")

        // And one that does not fit extends the file again.
        try queue.enqueue(contentsOf: batch("c", bytes: 600_000))
        statistics = queue.engine.writer.currentStatistics
        #expect(statistics.fullSyncs == 2 && statistics.extendingWrites == 2, "\(statistics)")
        #expect(audit.violations.isEmpty, "\(audit.violations)")
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count == 2 + 2000 + 1333 + 2666)
        try closeChecked(reopened)
    }

    @Test func aLargeRecordIsWrittenAndSyncedBeforeItsCallerWaits() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        let queue = try queueHoldingOneSmallJob(on: fileSystem, in: temp)
        // Past the first reservation (a full sync), then a small record that reserves twice as much.
        try queue.enqueue(contentsOf: batch("a", bytes: 450_000))
        try queue.enqueue(NewJob(kind: "k", id: "small-2"))
        let before = queue.engine.writer.currentStatistics

        // A large record inside the reserved space: data-synced, so the held sync catches it.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        fileSystem.inject(.holdSync(entered: entered, release: release))
        let pending = try queue.engine.enqueue(contentsOf: batch("b", bytes: 300_000))
        // No one waits for it yet, and its sync has started: the flusher took it when it was appended.
        #expect(entered.wait(timeout: .now() + hangGuard) == .success, "the record's sync did not start before a wait")
        release.signal()
        let ids = try queue.engine.durably { _ in pending }
        let after = queue.engine.writer.currentStatistics
        #expect(after.dataSyncs == before.dataSyncs + 1 && after.extendingWrites == before.extendingWrites, "\(after)")
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count == 2 + 2000 + ids.count)
        try closeChecked(reopened)
    }

    @Test func groupsBelowTheMinimumStillGoIntoReservedSpace() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let audit = SyncAuditFileSystem()
        let queue = try queueHoldingOneSmallJob(on: audit, in: temp)
        // ~200 KB, below the minimum, past the first 256 KiB once two are written: reserved ahead.
        try queue.enqueue(contentsOf: batch("a", bytes: 200_000))
        try queue.enqueue(contentsOf: batch("b", bytes: 200_000))
        let statistics = queue.engine.writer.currentStatistics
        #expect(statistics.extendingWrites == 0 && statistics.fullSyncs == 2, "\(statistics)")
        #expect(try fileSize(logFilePath(temp.queue)) == 2 * LogWriter.firstReservation)
        #expect(audit.violations.isEmpty, "\(audit.violations)")
        try closeChecked(queue)
    }

    /// Power lost at each I/O step of a large group written past the reservation, with the unsynced
    /// bytes lost, kept, or torn: the batch is there whole or not at all, and whole if it was acknowledged.
    @Test func aCrashDuringALargeGroupLosesAllOfItOrNothing() throws {
        let jobs = batch("a", bytes: 300_000)
        var outcomes: Set<String> = []
        for crashIn in 1...6 {
            let disk = SimulatedDisk()
            var configuration = testConfiguration()
            configuration.fileSystem = disk
            let queue = try JobQueue(directory: "/queue", configuration: configuration)
            try queue.enqueue(NewJob(kind: "k", id: "before"))
            disk.crash(atStep: disk.steps + crashIn)
            let acknowledged = (try? queue.enqueue(contentsOf: jobs)) != nil
            let pending = disk.pendingChanges
            let survivals: [SimulatedDisk.Survival] = [
                .nothing, .init(mask: .max, tear: .none),
                .init(mask: .max, tear: .prefix(150_000)),
                .init(mask: .max, tear: .laterSectors(from: 4096)),
            ]
            for survival in survivals {
                let image = disk.crashImage(Dictionary(uniqueKeysWithValues: pending.map { ($0.path, survival) }))
                var reopenedConfiguration = testConfiguration()
                reopenedConfiguration.fileSystem = image
                let reopened = try JobQueue(directory: "/queue", configuration: reopenedConfiguration)
                let ids = Set(try reopened.jobs().map(\.id.rawValue))
                #expect(ids.contains("before"))
                let fromBatch = ids.count - 1
                #expect(
                    fromBatch == 0 || fromBatch == jobs.count, "crash in \(crashIn), \(survival): \(fromBatch) jobs")
                if acknowledged { #expect(fromBatch == jobs.count, "crash in \(crashIn), \(survival)") }
                outcomes.insert(fromBatch == 0 ? "lost" : "kept")
                try closeChecked(reopened)
            }
            if queue.engine.writer.currentStatistics.extendingWrites == 1 { outcomes.insert("extended") }
        }
        // The crashes hit the group itself: some images lose it, some keep it, and it was written past the reservation.
        #expect(outcomes == ["lost", "kept", "extended"], "\(outcomes)")
    }
}
