import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A producer's reads (issue #16, item 5): the state of its jobs, read from the log without becoming the
/// owner and without any lock, while the owner writes, rolls over and compacts.
@Suite(.blocking) struct ProducerReadTests {
    static let directory = "/q"

    static func configuration(_ fileSystem: any FileSystem, clock: ManualClock = ManualClock()) -> Configuration {
        var configuration = Configuration()
        configuration.fileSystem = fileSystem
        configuration.clock = clock
        configuration.sharing = .shared
        return configuration
    }

    /// A `.shared` owner of a new queue on `disk`, and a producer of it.
    static func ownerAndProducer(_ disk: SimulatedDisk) throws -> (JobQueue, QueueProducer) {
        try disk.createDirectory(at: directory)
        let clock = ManualClock()
        let owner = try JobQueue(directory: directory, configuration: configuration(disk, clock: clock))
        let producer = try QueueProducer(directory: directory, configuration: configuration(disk, clock: clock))
        return (owner, producer)
    }

    @Test func aJobShowsOnceTheOwnerIngestsItAndAwaitsIngestionUntilThen() throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        let id = try producer.enqueue(NewJob(kind: "upload", payload: Data("photo".utf8), uniqueKey: "photo:1"))
        let second = try producer.enqueue(NewJob(kind: "upload", payload: Data("photo 2".utf8)))
        #expect(try producer.job(id) == nil, "not in the log before the owner ingests it")
        #expect(try producer.jobs().isEmpty)
        #expect(try producer.isAwaitingIngestion(id))
        #expect(try producer.awaitingIngestion() == [id, second], "in the order recorded")

        #expect(try owner.ingestInbox() == 2)
        let job = try #require(try producer.job(id))
        #expect(job.kind == "upload" && job.state == .enqueued && job.uniqueKey == "photo:1")
        #expect(try !producer.isAwaitingIngestion(id))
        #expect(try producer.awaitingIngestion().isEmpty)
        #expect(try producer.jobs(uniqueKey: "photo:1").map(\.id) == [id])
        #expect(try producer.jobs(kind: "upload").map(\.id) == [id, second])
        #expect(try producer.jobs(kind: "other").isEmpty)
        try closeChecked(owner)
    }

    @Test(.onThePool) func theAsyncFormsReadTheSame() async throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        let id = try await producer.enqueue(NewJob(kind: "upload", payload: Data(), uniqueKey: "u"))
        #expect(try await producer.job(id) == nil)
        #expect(try await producer.awaitingIngestion() == [id])
        #expect(try await producer.isAwaitingIngestion(id))
        _ = try await owner.ingestInbox()
        #expect(try await producer.job(id)?.state == .enqueued)
        #expect(try await producer.jobs(state: .enqueued, kind: "upload", uniqueKey: "u").map(\.id) == [id])
        #expect(try await producer.counts().byState[.enqueued] == 1)
        #expect(try await !producer.isAwaitingIngestion(id))
        try owner.close()
    }

    @Test func aJobAwaitsIngestionWhileItsFileIsListedAndTheLogDoesNotCoverItsRecord() throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        let first = try producer.enqueue(NewJob(kind: "k", payload: Data()))
        #expect(try owner.ingestInbox() == 1, "the owner ingests the first record and removes the file")
        // A new file for the next record (the first one was removed): the first stays ingested.
        let second = try producer.enqueue(NewJob(kind: "k", payload: Data()))
        #expect(try producer.awaitingIngestion() == [second])
        #expect(try producer.job(first)?.state == .enqueued)
        try closeChecked(owner)
    }

    @Test func aRequestTheOwnerDroppedIsNeitherAJobNorAwaiting() throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        // Its prerequisite does not exist: the owner drops it when it ingests it.
        let id = try producer.enqueue(NewJob(kind: "k", payload: Data(), dependencies: ["missing"]))
        #expect(try producer.isAwaitingIngestion(id))
        _ = try owner.ingestInbox()
        #expect(try producer.job(id) == nil)
        #expect(try !producer.isAwaitingIngestion(id), "ingested (and dropped): awaiting no more")
        try closeChecked(owner)
    }

    @Test func aProducerSeesTheOwnersStateChanges() throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        let id = try producer.enqueue(NewJob(kind: "upload", payload: Data()))
        _ = try owner.ingestInbox()
        let lease = try #require(try owner.claim())
        #expect(try producer.job(id)?.state == .running)
        #expect(try producer.jobs(state: .running).map(\.id) == [id])
        #expect(try producer.counts().byState[.running] == 1)
        _ = try owner.complete(lease)
        #expect(try producer.job(id)?.state == .succeeded)
        #expect(try producer.jobs(state: .running).isEmpty)
        #expect(try producer.jobs(state: .succeeded, kind: "upload").map(\.id) == [id])
        try producer.cancel(id)
        _ = try owner.ingestInbox()
        #expect(try producer.job(id)?.state == .succeeded, "a cancel of a finished job is dropped")
        try closeChecked(owner)
    }

    @Test func readsWhileTheOwnerHoldsTheQueueOpenWritesAndRollsOver() throws {
        let disk = SimulatedDisk()
        try disk.createDirectory(at: Self.directory)
        var ownerConfiguration = Self.configuration(disk)
        ownerConfiguration.logFileSize = 4096
        let owner = try JobQueue(directory: Self.directory, configuration: ownerConfiguration)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(disk))
        for index in 0..<60 {
            try owner.enqueue(NewJob(kind: "k", payload: Data(repeating: 7, count: 200), id: JobID("j\(index)")))
            #expect(try producer.jobs().count == index + 1, "after enqueue \(index)")
        }
        let files = try LogReplay.logFiles(in: Self.directory, fileSystem: disk)
        #expect(files.count > 2, "the owner rolled over while the producer read (\(files.count) files)")
        try closeChecked(owner)
    }

    @Test func readsRacingAnOwnerThatWritesRollsOverAndCompactsSeeOnlyGrowingPrefixes() throws {
        let temporary = TemporaryDirectory("producer-read-race")
        defer { temporary.cleanup() }
        var ownerConfiguration = Self.configuration(POSIXFileSystem())
        ownerConfiguration.logFileSize = 8192
        ownerConfiguration.durability = .ordered
        let owner = try JobQueue(directory: temporary.queue, configuration: ownerConfiguration)
        let producer = try QueueProducer(
            directory: temporary.queue, configuration: Self.configuration(POSIXFileSystem()))
        let total = 300
        let done = Locked(false)
        let writer = Thread {
            for index in 0..<total {
                _ = try? owner.enqueue(
                    NewJob(kind: "k", payload: Data(repeating: 3, count: 100), id: JobID("j\(index)")))
                if index % 100 == 99 { _ = try? owner.compact() }
            }
            done.withLock { $0 = true }
        }
        writer.start()
        var seen = 0
        var reads = 0
        while !done.withLock({ $0 }) {
            let ids = try producer.jobs().map(\.id.rawValue)
            // A prefix of what the owner wrote: j0 … j(n-1), in order, never fewer than the last read saw.
            #expect(ids == (0..<ids.count).map { "j\($0)" }, "read \(reads) is not a prefix")
            #expect(ids.count >= seen, "read \(reads) went back from \(seen) to \(ids.count)")
            seen = ids.count
            reads += 1
        }
        #expect(try producer.jobs().count == total)
        try closeChecked(owner)
    }

    @Test func aTornTailAtTheActiveFilesEndIsLeftAsItIs() throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        try owner.enqueue(NewJob(kind: "k", payload: Data(), id: "a"))
        let path = try #require(try LogReplay.logFiles(in: Self.directory, fileSystem: disk).last?.path)
        // An unfinished write of the owner: the first bytes of a frame after the last record.
        let intact = try #require(disk.contents(of: path))
        let records = Int(try LogInspectorReplay.validEnd(disk))
        var torn = Array(intact.prefix(records))
        torn += [0x55, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        disk.setContents(of: path, torn)
        #expect(try producer.job("a")?.state == .enqueued)
        #expect(disk.contents(of: path) == torn, "the read changed nothing on disk")
        try owner.close()
    }

    @Test func aReadAfterACompactionAndOneDuringItFindEveryJob() throws {
        let temporary = TemporaryDirectory("producer-read-compaction")
        defer { temporary.cleanup() }
        let hooked = HookedFileSystem()
        let configuration = Self.configuration(hooked)
        let owner = try JobQueue(directory: temporary.queue, configuration: configuration)
        for index in 0..<5 { try owner.enqueue(NewJob(kind: "k", payload: Data([1]), id: JobID("j\(index)"))) }
        let producer = try QueueProducer(directory: temporary.queue, configuration: configuration)
        // After the read opened the first log file for its replay (the second open of it: the first is the
        // newer-format check), the owner compacts, which removes that file: the read starts again.
        let compacted = Locked(false)
        hooked.afterReadOnlyOpen.withLock {
            $0 = (
                suffix: QueueDirectoryLayout.logFileName(sequence: 1), skip: 1,
                body: {
                    _ = try? owner.compact()
                    compacted.withLock { $0 = true }
                }
            )
        }
        #expect(try producer.jobs().map(\.id.rawValue) == (0..<5).map { "j\($0)" })
        #expect(compacted.withLock { $0 }, "the compaction ran during the read")
        #expect(try hooked.entryKind(at: logFilePath(temporary.queue)) == nil, "file 1 is gone")
        try owner.enqueue(NewJob(kind: "k", payload: Data([2]), id: "after"))
        #expect(try producer.jobs().count == 6, "a read after the compaction")
        #expect(try producer.job("after")?.state == .enqueued)
        try closeChecked(owner)
    }

    @Test func corruptionFoundTwiceInARowIsReportedAsCorruption() throws {
        let disk = SimulatedDisk()
        let (owner, producer) = try Self.ownerAndProducer(disk)
        try owner.enqueue(NewJob(kind: "k", payload: Data(), id: "a"))
        try owner.enqueue(NewJob(kind: "k", payload: Data(), id: "b"))
        try owner.close()
        let path = logFilePath(Self.directory)
        var bytes = try #require(disk.contents(of: path))
        // A byte of the first record's body: damage followed by an intact later record.
        bytes[LogFormat.fileHeaderSize + LogFormat.frameHeaderSize + 2] ^= 0xff
        disk.setContents(of: path, bytes)
        do {
            _ = try producer.jobs()
            Issue.record("the damaged log was read")
        } catch let error as SpoolError {
            #expect(error.code == .corruption, "\(error)")
            #expect(error.path == path)
        }
    }

    @Test func aLogThatChangesUnderEveryAttemptFailsWithLockedNamingTheFile() throws {
        let disk = SimulatedDisk()
        let (owner, _) = try Self.ownerAndProducer(disk)
        try owner.enqueue(NewJob(kind: "k", payload: Data(), id: "a"))
        // Every listing names a file that is gone when it is read, as if the owner removed one each time.
        let vanishing = VanishingLogFileSystem(disk: disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(vanishing))
        do {
            _ = try producer.job("a")
            Issue.record("the read succeeded")
        } catch let error as SpoolError {
            #expect(error.code == .locked, "\(error)")
            #expect(error.path == Self.directory + "/" + VanishingLogFileSystem.ghost, "\(error)")
        }
        #expect(vanishing.listings.withLock { $0 } >= QueueDirectory.lockFreeReadAttempts)
        try owner.close()
    }

    @Test func aReadTakesNoLock() throws {
        let disk = SimulatedDisk()
        let (owner, _) = try Self.ownerAndProducer(disk)
        let id = try owner.enqueue(NewJob(kind: "k", payload: Data()))
        let counting = LockCountingFileSystem(disk: disk)
        let producer = try QueueProducer(directory: Self.directory, configuration: Self.configuration(counting))
        let pending = try producer.enqueue(NewJob(kind: "k", payload: Data()))
        counting.reset()
        #expect(try producer.job(id)?.state == .enqueued)
        _ = try producer.jobs(state: .enqueued)
        #expect(try producer.isAwaitingIngestion(pending))
        _ = try QueueDirectory(path: Self.directory, fileSystem: counting).inspectWithoutLock { $0.state.jobs.count }
        #expect(counting.lockCalls.withLock { $0 } == [], "no lock was taken or tried")
        #expect(counting.writes.withLock { $0 } == 0, "nothing was written")
        try owner.close()
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/locks")))
    func noLockIsHeldDuringAReadOfAQueueAnExclusiveOwnerHasOpen() throws {
        let temporary = TemporaryDirectory("producer-read-locks")
        defer { temporary.cleanup() }
        // An exclusive owner holds LOCK for as long as the queue is open: the read must neither wait for it
        // nor take a lock of its own (a shared one on LOCK would show as a second line of this process).
        let owner = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        let id = try owner.enqueue(NewJob(kind: "k", payload: Data([1])))
        let before = try ProcLocks.locks(of: getpid(), in: temporary.queue).map(\.inode)
        #expect(before.count == 1, "the exclusive owner's lock on LOCK: \(before)")
        let hooked = HookedFileSystem()
        var configuration = testConfiguration()
        configuration.fileSystem = hooked
        let producer = try QueueProducer(directory: temporary.queue, configuration: configuration)
        let during = Locked<[String]?>(nil)
        let queueDirectory = temporary.queue
        hooked.afterReadOnlyOpen.withLock {
            $0 = (
                suffix: QueueDirectoryLayout.logFileName(sequence: 1), skip: 1,
                body: {
                    during.withLock { $0 = try? ProcLocks.locks(of: getpid(), in: queueDirectory).map(\.inode) }
                }
            )
        }
        #expect(try producer.job(id)?.state == .enqueued)
        #expect(during.withLock { $0 } == before, "while the read had the log open, only the owner's lock")
        let inspected = try LogInspector.withJobs(directory: temporary.queue) { $0.job(id)?.state }
        #expect(inspected == .enqueued, "the inspector reads while the exclusive owner has the queue open")
        try closeChecked(owner)
    }
}

/// Where the intact records of a queue's last log file end, as a read-only replay finds them.
enum LogInspectorReplay {
    static func validEnd(_ disk: SimulatedDisk) throws -> Int64 {
        try QueueDirectory(path: ProducerReadTests.directory, fileSystem: disk).inspect(mode: .strict)
            .lastFileValidEnd
    }
}

/// A simulated disk whose every listing of the queue directory names, besides its files, a log file
/// that is not there (`wal-…09.log` after the others): what a reader sees when each read meets a removal.
final class VanishingLogFileSystem: SimulatedDiskWrapper, @unchecked Sendable {
    static let ghost = QueueDirectoryLayout.logFileName(sequence: 9)
    let disk: SimulatedDisk
    let listings = Locked(0)
    init(disk: SimulatedDisk) { self.disk = disk }

    func contentsOfDirectory(at path: String) throws -> [String] {
        let names = try disk.contentsOfDirectory(at: path)
        guard path == ProducerReadTests.directory else { return names }
        listings.withLock { $0 += 1 }
        return names + [Self.ghost]
    }
}

/// A simulated disk that records every lock call (directory locks, brief locks, file locks) and counts
/// writes, so that a test can say a reader took no lock and wrote nothing.
final class LockCountingFileSystem: FileSystem, @unchecked Sendable {
    let disk: SimulatedDisk
    let lockCalls = Locked<[String]>([])
    let writes = Locked(0)
    init(disk: SimulatedDisk) { self.disk = disk }

    func reset() {
        lockCalls.withLock { $0 = [] }
        writes.withLock { $0 = 0 }
    }

    func entryKind(at path: String) throws -> FileEntryKind? { try disk.entryKind(at: path) }
    func createDirectory(at path: String) throws {
        writes.withLock { $0 += 1 }
        try disk.createDirectory(at: path)
    }
    func contentsOfDirectory(at path: String) throws -> [String] { try disk.contentsOfDirectory(at: path) }
    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        if mode != .readOnly { writes.withLock { $0 += 1 } }
        return LockCountingFile(try disk.openFile(at: path, mode: mode), owner: self)
    }
    func rename(from source: String, to destination: String) throws {
        writes.withLock { $0 += 1 }
        try disk.rename(from: source, to: destination)
    }
    func removeFile(at path: String) throws {
        writes.withLock { $0 += 1 }
        try disk.removeFile(at: path)
    }
    func syncDirectory(at path: String) throws { try disk.syncDirectory(at: path) }
    func lockDirectory(at path: String, exclusive: Bool) throws -> any DirectoryLock {
        lockCalls.withLock { $0.append("lockDirectory \(path)") }
        return try disk.lockDirectory(at: path, exclusive: exclusive)
    }
    func briefLock(at path: String) throws -> any BriefDirectoryLock {
        lockCalls.withLock { $0.append("briefLock \(path)") }
        return try disk.briefLock(at: path)
    }
}

final class LockCountingFile: StorageFile, @unchecked Sendable {
    let inner: any StorageFile
    let owner: LockCountingFileSystem
    init(_ inner: any StorageFile, owner: LockCountingFileSystem) {
        self.inner = inner
        self.owner = owner
    }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { try inner.read(at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        owner.writes.withLock { $0 += 1 }
        try inner.write(bytes, at: offset)
    }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws { try inner.syncData() }
    func truncate(to size: Int64) throws {
        owner.writes.withLock { $0 += 1 }
        try inner.truncate(to: size)
    }
    func preallocate(offset: Int64, length: Int64) throws {
        owner.writes.withLock { $0 += 1 }
        try inner.preallocate(offset: offset, length: length)
    }
    func close() { inner.close() }
    func tryLockFile() throws -> Bool {
        owner.lockCalls.withLock { $0.append("tryLockFile \(inner.path)") }
        return try inner.tryLockFile()
    }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
}
