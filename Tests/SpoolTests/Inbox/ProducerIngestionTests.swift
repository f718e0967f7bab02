import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Producers (``QueueProducer``) and the owner's ingestion of their inbox files (FORMAT.md, *Producer inbox files*).
@Suite(.blocking) struct ProducerIngestionTests {
    static let directory = "/q"

    /// A queue created on `disk`, closed again (the producers write while no owner or one owner has it open).
    static func makeQueue(_ disk: SimulatedDisk) throws {
        try disk.createDirectory(at: directory)
        try JobQueue(directory: directory, configuration: configuration(disk)).close()
    }

    static func configuration(_ disk: SimulatedDisk) -> Configuration {
        var configuration = Configuration()
        configuration.fileSystem = disk
        configuration.clock = ManualClock()
        return configuration
    }

    static func inboxFiles(_ disk: SimulatedDisk) throws -> [String] {
        let inbox = InboxFormat.directory(ofQueue: directory)
        guard try disk.entryKind(at: inbox) == .directory else { return [] }
        return try disk.contentsOfDirectory(at: inbox).sorted()
    }

    /// Ingests again once the files read to their end have settled (``Configuration/inboxCheckInterval``
    /// later on the queue's clock), which removes them. Returns the jobs that ingestion enqueued.
    @discardableResult
    static func settle(_ queue: JobQueue) throws -> Int {
        let clock = try #require(queue.configuration.clock as? ManualClock)
        clock.advance(by: queue.configuration.inboxCheckInterval)
        return try queue.ingestInbox()
    }

    /// How many enqueue operations the log holds for each job id (a duplicate ingestion shows here even
    /// where apply would refuse the second enqueue of an id).
    static func enqueueCounts(_ disk: SimulatedDisk) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        _ = try QueueDirectory(path: directory, fileSystem: disk).inspect(mode: .strict) { _, _, _, operations in
            for case .enqueue(let op) in operations { counts[op.id, default: 0] += 1 }
        }
        return counts
    }

    @Test func aProducersJobsAreIngestedWithEveryOption() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let prerequisite = try queue.enqueue(NewJob(kind: "first", payload: Data()))
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let id = try producer.enqueue(
            NewJob(
                kind: "upload", payload: Data("photo".utf8), priority: 7, maxAttempts: 4, uniqueKey: "photo:1",
                dependencies: [prerequisite], constraints: JobConstraints(requiresNetwork: true)))
        let batch = try producer.enqueue(contentsOf: [
            NewJob(kind: "a", payload: Data([1])), NewJob(kind: "b", payload: Data([2]), delay: 60),
        ])
        #expect(try queue.job(id) == nil, "not ingested yet")
        #expect(try Self.inboxFiles(disk).count == 1)
        #expect(try queue.ingestInbox() == 3)
        let job = try #require(try queue.job(id))
        #expect(job.kind == "upload" && job.priority == 7 && job.maxAttempts == 4 && job.uniqueKey == "photo:1")
        #expect(job.isBlocked && job.constraints.requiresNetwork)
        #expect(try queue.payload(of: id) == Data("photo".utf8))
        #expect(try batch.map { try queue.job($0)?.kind } == ["a", "b"])
        #expect(try Self.inboxFiles(disk).count == 1, "kept for its producer to go on writing into")
        #expect(try queue.ingestInbox() == 0)
        #expect(try Self.inboxFiles(disk).count == 1, "not settled yet")
        #expect(try Self.settle(queue) == 0)
        #expect(try Self.inboxFiles(disk).isEmpty, "read to its end and settled: removed")
        // The producer notices its file is gone and goes on in a new one.
        let later = try producer.enqueue(NewJob(kind: "later", payload: Data()))
        #expect(try Self.inboxFiles(disk).count == 1)
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.job(later)?.kind == "later")
        try closeChecked(queue)
    }

    /// A policy without a unique key means nothing: the producer writes no `unique_policy` for it
    /// (FORMAT.md, opcode 41), so the owner can decode the record (the crash fuzzer found this).
    @Test func aPolicyWithoutAUniqueKeyIsIngestedAsAPlainEnqueue() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let ids = try producer.enqueue(contentsOf: [
            NewJob(kind: "a", payload: Data(), uniquePolicy: .append),
            NewJob(kind: "b", payload: Data(), uniquePolicy: .replace),
        ])
        #expect(try queue.ingestInbox() == 2)
        #expect(try ids.map { try queue.job($0)?.state } == [.enqueued, .enqueued])
        try closeChecked(queue)
    }

    /// An open whose ingestion could not sync the log fails: it does not hand out a queue that refuses
    /// every change, and the producer's job is still in its inbox for the next open.
    @Test func anOpenWhoseIngestionFailsToSyncFails() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let id = try producer.enqueue(NewJob(kind: "k", payload: Data([1])))
        // The next sync after the owner opened the inbox file fails: the ingestion's commit.
        var configuration = Self.configuration(disk)
        configuration.fileSystem = InboxOpenHook(disk: disk) { disk.inject(.sync(EIO)) }
        #expect(throws: SpoolError.self) { try JobQueue(directory: Self.directory, configuration: configuration) }
        #expect(disk.pendingFaults == 0, "the ingestion's sync met the fault")
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        #expect(try queue.job(id)?.state == .enqueued)
        try closeChecked(queue)
    }

    /// An empty inbox file may be a producer's, created and not yet written: the first ingestion that
    /// finds it leaves it (the producer then writes into it), the second removes it (a creation cut short).
    @Test func anEmptyInboxFileIsRemovedOnlyWhenTheNextIngestionFindsItEmptyToo() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let inbox = InboxFormat.directory(ofQueue: Self.directory)
        try disk.createDirectory(at: inbox)
        let name = InboxFormat.fileName(id: [UInt8](repeating: 7, count: InboxFormat.fileIDSize))
        try disk.openFile(at: inbox + "/" + name, mode: .createNew).close()
        #expect(try queue.ingestInbox() == 0)
        #expect(try Self.inboxFiles(disk) == [name], "a producer may be about to write its first record")
        #expect(try queue.ingestInbox() == 0)
        #expect(try Self.inboxFiles(disk).isEmpty, "found empty twice: a creation cut short")
        try closeChecked(queue)
    }

    @Test func openIngestsWhatProducersWroteWhileNoOwnerRan() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let id = try producer.enqueue(NewJob(kind: "k", payload: Data([9])))
        try producer.cancel(id)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        #expect(try queue.job(id)?.state == .cancelled)
        #expect(try Self.settle(queue) == 0)
        #expect(try Self.inboxFiles(disk).isEmpty)
        try closeChecked(queue)
    }

    @Test func refusedRequestsAreDroppedWithoutFailingTheIngestion() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let holder = try queue.enqueue(NewJob(kind: "k", payload: Data(), uniqueKey: "key"))
        let done = try queue.enqueue(NewJob(kind: "k", payload: Data()))
        try queue.cancel(done)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let kept = try producer.enqueue(NewJob(kind: "k", payload: Data(), uniqueKey: "key"))
        try producer.cancel(done)
        try producer.cancel(JobID("no-such-job"))
        let orphan = try producer.enqueue(NewJob(kind: "k", payload: Data(), dependencies: [JobID("missing")]))
        let taken = try producer.enqueue(NewJob(kind: "k", payload: Data(), id: holder))
        let good = try producer.enqueue(NewJob(kind: "k", payload: Data([1])))
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.job(kept) == nil, "policy keep: the holder stays, the producer's job is dropped")
        #expect(try queue.job(orphan) == nil && taken == holder && (try queue.job(holder))?.state == .enqueued)
        #expect(try queue.job(good)?.state == .enqueued)
        #expect(try Self.settle(queue) == 0)
        #expect(try Self.inboxFiles(disk).isEmpty)
        // Policy replace is resolved by the owner as JobQueue resolves it.
        let replacing = try producer.enqueue(
            NewJob(kind: "k", payload: Data(), uniqueKey: "key", uniquePolicy: .replace))
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.job(holder)?.state == .cancelled && (try queue.job(replacing))?.uniqueKey == "key")
        try closeChecked(queue)
    }

    @Test func aTornProducerTailIsCutAndTheFileRemoved() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let ids = try (0..<2).map { _ in try producer.enqueue(NewJob(kind: "k", payload: Data(count: 100))) }
        let name = try #require(try Self.inboxFiles(disk).first)
        let path = InboxFormat.directory(ofQueue: Self.directory) + "/" + name
        var bytes = try #require(disk.contents(of: path))
        // A third record's write cut short: its first 30 bytes of a frame.
        let third = InboxCodec.encode(
            [.cancel(id: ids[0].rawValue, at: 0)], stamp: nil, headroom: LogFormat.frameHeaderSize)
        bytes += third.prefix(30)
        disk.setContents(of: path, bytes)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        #expect(try ids.allSatisfy { try queue.job($0)?.state == .enqueued })
        #expect(try Self.settle(queue) == 0)
        #expect(try Self.inboxFiles(disk).isEmpty)
        try closeChecked(queue)
    }

    @Test func damageBeforeAnIntactRecordIsCorruptionNamingPathAndOffset() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        for _ in 0..<3 { try producer.enqueue(NewJob(kind: "k", payload: Data(count: 50))) }
        let name = try #require(try Self.inboxFiles(disk).first)
        let path = InboxFormat.directory(ofQueue: Self.directory) + "/" + name
        var bytes = try #require(disk.contents(of: path))
        let first = InboxFormat.headerSize
        let second =
            first + bytes.withUnsafeBytes { RecordFrame.declaredBodyLength($0, frameAt: first) }
            + LogFormat.frameHeaderSize
        bytes[second + LogFormat.frameHeaderSize + 3] ^= 0xFF
        disk.setContents(of: path, bytes)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        do {
            try queue.ingestInbox()
            Issue.record("a damaged record before an intact one was ingested")
        } catch let error as SpoolError {
            #expect(error.code == .corruption && error.path == path && error.offset == Int64(second), "\(error)")
        }
        #expect(try Self.inboxFiles(disk) == [name], "the damaged file is left as it is")
        #expect(disk.contents(of: path) == bytes)
        try closeChecked(queue)
    }

    /// A file whose lock is held (its producer is writing, or stopped mid-call) is read without the lock:
    /// its complete records are ingested, nothing else of it is judged, and it is not removed.
    @Test func aBusyInboxFilesCompleteRecordsAreIngestedAndTheProducerMovesOn() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let first = try producer.enqueue(NewJob(kind: "k", payload: Data()))
        let name = try #require(try Self.inboxFiles(disk).first)
        let held = try disk.openFile(at: InboxFormat.directory(ofQueue: Self.directory) + "/" + name, mode: .readWrite)
        #expect(try held.tryLockFile())
        #expect(try queue.ingestInbox() == 1, "a busy file's complete record is read without its lock")
        #expect(try queue.ingestInbox() == 0, "and only once")
        let second = try producer.enqueue(NewJob(kind: "k", payload: Data()))
        #expect(try Self.inboxFiles(disk).count == 2, "the producer left the busy file and made a new one")
        #expect(try queue.ingestInbox() == 1)
        #expect(try Self.inboxFiles(disk).count == 2, "a busy file is not removed")
        held.unlockFile()
        #expect(try queue.ingestInbox() == 0)
        #expect(try queue.job(first) != nil && queue.job(second) != nil)
        try closeChecked(queue)
    }

    /// A producer that goes on writing keeps its one file: each ingestion reads from where the last one
    /// stopped, and the file goes only once it has settled (``Configuration/inboxCheckInterval`` without
    /// growing) or reached ``InboxIngestor.removalSize``.
    @Test func aFileItsProducerGoesOnWritingIntoStaysUntilItSettles() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let clock = try #require(queue.configuration.clock as? ManualClock)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        try producer.enqueue(NewJob(kind: "k", payload: Data([1])))
        let name = try #require(try Self.inboxFiles(disk).first)
        #expect(try queue.ingestInbox() == 1)
        for round in 2...4 {
            try producer.enqueue(NewJob(kind: "k", payload: Data([UInt8(round)])))
            #expect(try Self.inboxFiles(disk) == [name], "the producer appends to the file it has")
            clock.advance(by: queue.configuration.inboxCheckInterval)
            #expect(try queue.ingestInbox() == 1, "only the new record")
        }
        clock.advance(by: queue.configuration.inboxCheckInterval / 2)
        #expect(try queue.ingestInbox() == 0)
        #expect(try Self.inboxFiles(disk) == [name], "not settled: read to its end only half an interval ago")
        clock.advance(by: queue.configuration.inboxCheckInterval / 2)
        #expect(try queue.ingestInbox() == 0)
        #expect(try Self.inboxFiles(disk).isEmpty)
        #expect(try queue.jobs().count == 4)
        // A file of 4 MiB or more goes at the first ingestion that finds nothing new in it, settled or not.
        let payload = Data(count: queue.configuration.maximumPayloadSize - 1024)
        let big = InboxIngestor.removalSize / payload.count + 1
        for _ in 0..<big { try producer.enqueue(NewJob(kind: "big", payload: payload)) }
        #expect(try queue.ingestInbox() == big)
        #expect(try Self.inboxFiles(disk).count == 1)
        #expect(try queue.ingestInbox() == 0)
        #expect(try Self.inboxFiles(disk).isEmpty, "a file that large goes without waiting")
        try closeChecked(queue)
    }

    /// A producer reserves its file ahead of its records (zeroes, synced with the record that needed them),
    /// so that a record that fits changes no metadata; the owner reads the zeroes as the end, nothing torn.
    @Test func aProducersFileIsReservedAheadAndItsZeroesAreTheEnd() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        try producer.enqueue(NewJob(kind: "k", payload: Data([1])))
        let name = try #require(try Self.inboxFiles(disk).first)
        let path = InboxFormat.directory(ofQueue: Self.directory) + "/" + name
        func size() -> Int { disk.contents(of: path)?.count ?? -1 }
        #expect(size() == Int(InboxFormat.firstReservation))
        try producer.enqueue(NewJob(kind: "k", payload: Data(count: 1000)))
        #expect(size() == Int(InboxFormat.firstReservation), "a record that fits leaves the size as it is")
        let bytes = try #require(disk.contents(of: path))
        let outcome = try bytes.withUnsafeBytes {
            try InboxScanner.scan($0, id: try #require(InboxFormat.fileID(fromName: name)), path: path, from: 0)
        }
        #expect(outcome.records.count == 2 && !outcome.hasTornTail, "the zeroes are the end")
        #expect(try queue.ingestInbox() == 2)
        // A record past the reservation: the file doubles.
        try producer.enqueue(NewJob(kind: "k", payload: Data(count: Int(InboxFormat.firstReservation))))
        #expect(size() == 2 * Int(InboxFormat.firstReservation))
        let mebibyte: Int64 = 1 << 20
        #expect(InboxFormat.reservation(after: mebibyte, needed: 0) == 2 * mebibyte)
        #expect(InboxFormat.reservation(after: 2 * mebibyte, needed: 0) == 3 * mebibyte, "by 1 MiB at most")
        #expect(InboxFormat.reservation(after: mebibyte, needed: 5 * mebibyte) == 5 * mebibyte)
        #expect(try queue.ingestInbox() == 1)
        try closeChecked(queue)
    }

    /// A record cut short inside the reservation is a torn tail though zeroes follow it, and a record
    /// whose last bytes are zero (its payload) is read whole though the file's non-zero bytes end in it.
    @Test func aTornRecordInsideTheReservationIsATornTail() throws {
        for payload in [Data(count: 500), Data(repeating: 5, count: 500)] {
            let disk = SimulatedDisk()
            try Self.makeQueue(disk)
            let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
            for _ in 0..<2 { try producer.enqueue(NewJob(kind: "k", payload: payload)) }
            let name = try #require(try Self.inboxFiles(disk).first)
            let path = InboxFormat.directory(ofQueue: Self.directory) + "/" + name
            let id = try #require(InboxFormat.fileID(fromName: name))
            let bytes = try #require(disk.contents(of: path))
            let whole = try bytes.withUnsafeBytes { try InboxScanner.scan($0, id: id, path: path, from: 0) }
            #expect(whole.records.count == 2 && !whole.hasTornTail)
            guard payload.first != 0 else { continue }
            // The second record's write cut short: its first 300 bytes, then the reservation's zeroes.
            let second = whole.records[0].end
            var torn = bytes
            torn.replaceSubrange((second + 300)..., with: repeatElement(0, count: torn.count - second - 300))
            let cut = try torn.withUnsafeBytes { try InboxScanner.scan($0, id: id, path: path, from: 0) }
            #expect(cut.records.count == 1 && cut.end == second && cut.hasTornTail)
        }
    }

    /// The owner's ingestion unlocks a file once it has read it, before its commit: a producer writing
    /// while the owner syncs the log appends to its file instead of leaving it for a new one (whose
    /// creation costs a directory sync).
    @Test func aProducerAppendsToItsFileWhileTheOwnerCommitsWhatItRead() throws {
        let temp = TemporaryDirectory("spool-ingestion-unlocks")
        defer { temp.cleanup() }
        let hooked = SyncHookFileSystem()
        var configuration = testConfiguration()
        configuration.fileSystem = hooked
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        let producer = try QueueProducer(directory: temp.queue, configuration: testConfiguration())
        try producer.enqueue(NewJob(kind: "k", payload: Data([1])))
        let inbox = temp.queue + "/inbox"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let during = Locked<JobID?>(nil)
        hooked.nextSync.withLock {
            $0 = { during.withLock { $0 = try? producer.enqueue(NewJob(kind: "k", payload: Data([2]))) } }
        }
        #expect(try queue.ingestInbox() == 1)
        let second = try #require(during.withLock { $0 }, "the producer's call during the owner's commit failed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox) == [name], "no new file")
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.job(second) != nil)
        try closeChecked(queue)
    }

    @Test func compactionKeepsHowFarAFileThatStillExistsWasIngested() throws {
        let disk = SimulatedDisk()
        try Self.makeQueue(disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        let id = try producer.enqueue(NewJob(kind: "k", payload: Data()))
        let name = try #require(try Self.inboxFiles(disk).first)
        let path = InboxFormat.directory(ofQueue: Self.directory) + "/" + name
        let bytes = try #require(disk.contents(of: path))
        let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        #expect(try queue.job(id) != nil)
        try Self.settle(queue)
        // The file back, as a crash between the ingestion's commit and the removal leaves it; the job
        // deleted, so that a second ingestion of its record would show.
        let restored = try disk.openFile(at: path, mode: .createNew)
        try restored.write(bytes, at: 0)
        try restored.syncData()
        try queue.delete(id)
        _ = try queue.compact()
        try queue.close()
        let reopened = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
        #expect(try reopened.job(id) == nil, "the record was ingested once, before the compaction")
        #expect(try Self.settle(reopened) == 0)
        #expect(try Self.inboxFiles(disk).isEmpty)
        try closeChecked(reopened)
    }

    /// Power lost at every I/O step of an ingestion (the commit, its sync, the removal): whatever survives,
    /// every acknowledged job is in the log exactly once, and the file is ingested no further.
    @Test func everyCrashOfAnIngestionLeavesEachJobExactlyOnce() throws {
        func setUp() throws -> (SimulatedDisk, [JobID], Int) {
            let disk = SimulatedDisk()
            try Self.makeQueue(disk)
            let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
            let ids = try (0..<3).map { try producer.enqueue(NewJob(kind: "k", payload: Data([UInt8($0)]))) }
            return (disk, ids, disk.steps)
        }
        // The owner's open (which ingests), then the ingestion that removes the settled file.
        func ingestAndRemove(_ disk: SimulatedDisk) throws {
            let queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(disk))
            try Self.settle(queue)
            try queue.close()
        }
        // The steps they take, counted on a disk that does not crash.
        let (probe, _, before) = try setUp()
        try ingestAndRemove(probe)
        #expect(try Self.inboxFiles(probe).isEmpty)
        let total = probe.steps - before
        #expect(total > 3)
        for step in 1...total {
            let (disk, ids, start) = try setUp()
            disk.crash(atStep: start + step)
            try? ingestAndRemove(disk)
            for image in [disk.crashImage(), disk.crashImage(allSurviving(disk))] {
                let queue: JobQueue
                do {
                    queue = try JobQueue(directory: Self.directory, configuration: Self.configuration(image))
                } catch {
                    Issue.record("step \(step): reopen failed: \(error)")
                    continue
                }
                #expect(try queue.ingestInbox() == 0)
                #expect(try Self.settle(queue) == 0)
                #expect(try Self.inboxFiles(image).isEmpty, "step \(step)")
                try closeChecked(queue)
                let counts = try Self.enqueueCounts(image)
                for id in ids {
                    #expect(
                        counts[id.rawValue] == 1, "step \(step): job \(id) enqueued \(counts[id.rawValue] ?? 0) times")
                }
            }
        }
    }

    /// Every unsynced change of every file survives (the kindest power loss).
    func allSurviving(_ disk: SimulatedDisk) -> [String: SimulatedDisk.Survival] {
        var survival: [String: SimulatedDisk.Survival] = [:]
        for (path, _) in disk.pendingChanges { survival[path] = SimulatedDisk.Survival(mask: .max, tear: .none) }
        return survival
    }
}

/// ``SimulatedDisk``, running a one-shot hook when an inbox file is opened for writing (by the owner's ingestion).
final class InboxOpenHook: SimulatedDiskWrapper, @unchecked Sendable {
    // @unchecked: `hook` is guarded by its `Locked`.
    let disk: SimulatedDisk
    let hook: Locked<(() -> Void)?>

    init(disk: SimulatedDisk, _ hook: @escaping () -> Void) {
        self.disk = disk
        self.hook = Locked(hook)
    }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        let file = try disk.openFile(at: path, mode: mode)
        if path.hasSuffix(".inbox"), case .readWrite = mode {
            hook.withLock { hook -> (() -> Void)? in
                defer { hook = nil }
                return hook
            }?()
        }
        return file
    }
}

/// A damaged inbox file is loud everywhere (issue #32 item 6): an open names it in its report (and opens:
/// the other files are ingested), every ingestion throws its error, and `spool verify` refuses it —
/// each naming the file and the offset of the damage.
@Suite(.blocking) struct DamagedInboxTests {
    @Test func openReportsItIngestionThrowsItAndVerifyRefusesIt() throws {
        let temporary = TemporaryDirectory("damaged-inbox")
        defer { temporary.cleanup() }
        try JobQueue(directory: temporary.queue, configuration: testConfiguration()).close()
        let damaged = try QueueProducer(directory: temporary.queue, configuration: testConfiguration())
        for _ in 0..<3 { try damaged.enqueue(NewJob(kind: "k", payload: Data(count: 50))) }
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let path = inbox + "/" + name
        var bytes = try readFile(path)
        // The second record's first bytes changed: damage before an intact record.
        let second = try inboxRecords(in: bytes, name: name, path: path)[0].end
        bytes[second + 2] ^= 0xFF
        try writeFile(path, bytes)
        let sound = try QueueProducer(directory: temporary.queue, configuration: testConfiguration())
        let ingested = try sound.enqueue(NewJob(kind: "k", payload: Data()))

        func expectNamed(_ error: SpoolError, _ what: String) {
            #expect(
                error.code == .corruption && error.path == path && error.offset == Int64(second), "\(what): \(error)")
        }
        do {
            _ = try LogInspector.verify(directory: temporary.queue)
            Issue.record("verify accepted a damaged inbox file")
        } catch let error as SpoolError {
            expectNamed(error, "verify")
        }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        let report = try #require(queue.recoveryReport.inboxFilesNotIngested.first)
        #expect(report.path == path && report.offset == Int64(second) && report.reason.contains("corruption"))
        #expect(try queue.job(ingested) != nil, "the other files are ingested")
        do {
            try queue.ingestInbox()
            Issue.record("an ingestion passed over the damaged file")
        } catch let error as SpoolError {
            expectNamed(error, "ingestInbox")
        }
        try queue.close()
    }
}
