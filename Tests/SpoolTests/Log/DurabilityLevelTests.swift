import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// ``Configuration/durability`` (issue 19 item 5): which sync the log's commit groups get, and
/// what a power loss may take back with ``Durability/ordered``.
@Suite(.blocking) struct DurabilityLevelTests {
    @Test func theCommitGroupsGetTheSyncTheConfigurationAsksFor() throws {
        for durability in [Durability.full, .ordered] {
            let temp = TemporaryDirectory("spool-durability")
            defer { temp.cleanup() }
            let fileSystem = SyncCountingFileSystem()
            var configuration = testConfiguration()
            configuration.fileSystem = fileSystem
            configuration.durability = durability
            let queue = try JobQueue(directory: temp.queue, configuration: configuration)
            let before = fileSystem.counts
            for _ in 0..<10 { try queue.enqueue(NewJob(kind: "k")) }
            let lease = try #require(try queue.claim())
            try queue.complete(lease)
            let after = fileSystem.counts
            let (data, ordered) = (after.data - before.data, after.ordered - before.ordered)
            switch durability {
            case .full: #expect(data == 12 && ordered == 0, "\(durability): \(data) data syncs, \(ordered) ordered")
            case .ordered: #expect(data == 0 && ordered == 12, "\(durability): \(data) data syncs, \(ordered) ordered")
            }
            try queue.close()
        }
    }

    @Test func aFailedOrderedSyncNamesThePlatformsCall() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[1]) }
        let file = POSIXFile(fd: ends[0], path: "pipe")
        defer { file.close() }
        let expected = try #require(Platform.orderedSync(ends[0]))
        let error = try #require(throws: SpoolError.self) { try file.orderedSync() }
        #expect(error.operation == expected.call && error.errno == expected.errno, "\(error)")
        #if canImport(Darwin)
            #expect(["fcntl(F_BARRIERFSYNC)", "fsync"].contains(expected.call))
        #else
            // Linux has no barrier-only sync: the ordered level makes the same fdatasync as the full one.
            #expect(expected.call == "fdatasync")
        #endif
    }

    /// The simulated disk's ordered syncs: a power loss keeps the groups up to some barrier, whole.
    @Test func aPowerLossKeepsAPrefixOfTheOrderedGroups() throws {
        let disk = SimulatedDisk()
        try disk.createDirectory(at: "/d")
        let file = try disk.openFile(at: "/d/f", mode: .createNew)
        try disk.syncDirectory(at: "/d")
        for byte: UInt8 in [1, 2, 3] {
            try file.write([byte, byte], at: Int64(byte - 1) * 2)
            try file.orderedSync()
        }
        try file.write([4, 4], at: 6)
        #expect(disk.orderedCuts == 0...3)
        #expect(disk.holdsOrderedChanges)
        for cut in 0...3 {
            let image = disk.crashImage(["/d/f": .init(mask: 0, tear: .none)], cut: cut)
            #expect(image.contents(of: "/d/f") == Array([1, 1, 2, 2, 3, 3].prefix(cut * 2)), "cut \(cut)")
        }
        // The group after the last barrier kept whole; a torn group: never without the groups before it.
        let all = disk.crashImage(["/d/f": .init(mask: 1, tear: .none)])
        #expect(all.contents(of: "/d/f") == [1, 1, 2, 2, 3, 3, 4, 4])
        let torn = disk.crashImage(["/d/f": .init(mask: 1, tear: .prefix(1))], cut: 1)
        #expect(torn.contents(of: "/d/f") == [1, 1, 2])
        // A barrier orders every file: a later file's changes never survive without an earlier one's.
        let other = try disk.openFile(at: "/d/g", mode: .createNew)
        try disk.syncDirectory(at: "/d")
        #expect(!disk.holdsOrderedChanges, "the directory sync flushed the drive's cache")
        try file.write([5], at: 8)
        try file.orderedSync()
        try other.write([6], at: 0)
        try other.orderedSync()
        #expect(disk.crashImage(cut: 4).contents(of: "/d/g") == [], "the second file's group is after the first's")
        #expect(disk.crashImage(cut: 4).contents(of: "/d/f") == [1, 1, 2, 2, 3, 3, 4, 4, 5])
        // A data sync makes everything durable and leaves no barrier.
        try file.syncData()
        #expect(!disk.holdsOrderedChanges)
        #expect(disk.crashImage().contents(of: "/d/f") == [1, 1, 2, 2, 3, 3, 4, 4, 5])
        #expect(
            disk.crashImage().contents(of: "/d/g") == [6], "a full sync flushes the drive: every file's ordered groups")
    }

    /// A queue with ordered syncs that loses power: it opens with the jobs acknowledged up to some
    /// point, never a later one without an earlier one.
    @Test func anOrderedQueueRecoversAPrefixOfWhatItAcknowledged() throws {
        let disk = SimulatedDisk()
        var configuration = testConfiguration()
        configuration.fileSystem = disk
        configuration.durability = .ordered
        configuration.preallocationChunk = 4096
        let queue = try JobQueue(directory: "/queue", configuration: configuration)
        let ids: [JobID] = ["a", "b", "c", "d"]
        for id in ids { try queue.enqueue(NewJob(kind: "k", id: id)) }
        #expect(disk.holdsOrderedChanges, "the enqueues are acknowledged by ordered syncs only")
        var recovered: Set<Int> = []
        for cut in disk.orderedCuts {
            let image = disk.crashImage(cut: cut)
            var reopened = configuration
            reopened.fileSystem = image
            let other = try JobQueue(directory: "/queue", configuration: reopened)
            let present = try other.jobs().map(\.id).sorted()
            #expect(present == Array(ids.prefix(present.count)), "cut \(cut): \(present)")
            recovered.insert(present.count)
            try other.close()
        }
        #expect(recovered.count > 1, "some power losses took back acknowledged jobs: \(recovered.sorted())")
        #expect(recovered.contains(ids.count))
        try queue.close()
    }
}

/// The real file system, counting the log files' data and ordered syncs.
final class SyncCountingFileSystem: RealFileSystemWrapper, @unchecked Sendable {
    // @unchecked: `state` is guarded by its lock.
    let real = POSIXFileSystem()
    private let state = Locked<(data: Int, ordered: Int)>((0, 0))

    var counts: (data: Int, ordered: Int) { state.withLock { $0 } }
    fileprivate func count(ordered: Bool) { state.withLock { if ordered { $0.ordered += 1 } else { $0.data += 1 } } }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        let file = try real.openFile(at: path, mode: mode)
        guard path.hasSuffix(".log") else { return file }
        return SyncCountingFile(file, owner: self)
    }
}

private final class SyncCountingFile: StorageFile, @unchecked Sendable {
    // @unchecked: immutable; the counts live in the owner, behind its lock.
    let inner: any StorageFile
    let owner: SyncCountingFileSystem
    init(_ inner: any StorageFile, owner: SyncCountingFileSystem) {
        self.inner = inner
        self.owner = owner
    }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { try inner.read(at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws { try inner.write(bytes, at: offset) }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws {
        try inner.syncData()
        owner.count(ordered: false)
    }
    func orderedSync() throws {
        try inner.orderedSync()
        owner.count(ordered: true)
    }
    func fullSync() throws { try inner.fullSync() }
    func truncate(to size: Int64) throws { try inner.truncate(to: size) }
    func preallocate(offset: Int64, length: Int64) throws { try inner.preallocate(offset: offset, length: length) }
    func tryLockFile() throws -> Bool { try inner.tryLockFile() }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
    func close() { inner.close() }
}
