import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Open reads the queue's directory once (#33 item 5): one listing, taken under the lock, serves replay,
/// the repairs and the engine; a new queue's directory is listed once more, before the lock file is
/// written into it. Counted on the file system's `contentsOfDirectory` for the queue's own directory.
@Suite(.blocking) struct OpenListingTests {
    /// The real file system, counting the listings of one directory.
    final class ListingCounter: RealFileSystemWrapper, @unchecked Sendable {
        let real = POSIXFileSystem()
        let directory: String
        private let count = Locked(0)
        init(directory: String) { self.directory = directory }
        var listings: Int { count.withLock { $0 } }
        func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
            try real.openFile(at: path, mode: mode)
        }
        func contentsOfDirectory(at path: String) throws -> [String] {
            if path == directory { count.withLock { $0 += 1 } }
            return try real.contentsOfDirectory(at: path)
        }
    }

    private func open(_ directory: String, sharing: ProcessSharing = .exclusive) throws -> Int {
        let counter = ListingCounter(directory: directory)
        var configuration = Configuration()
        configuration.fileSystem = counter
        configuration.sharing = sharing
        let queue = try JobQueue(directory: directory, configuration: configuration)
        let listings = counter.listings
        try queue.close()
        return listings
    }

    @Test func anOpenListsTheDirectoryOnceAndANewQueueTwice() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        #expect(try open(temporary.queue) == 2, "a new queue")
        #expect(try open(temporary.queue) == 1, "an existing queue")
        #expect(try open(temporary.queue, sharing: .shared) == 1, "a .shared owner")
    }

    /// Repairs update the listing instead of reading the directory again: an unfinished snapshot and a
    /// torn tail are repaired with the one listing.
    @Test func repairsReadTheSameListing() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue)
        _ = try queue.enqueue(NewJob(kind: "k"))
        try queue.close()
        let log = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        _ = FileManager.default.createFile(
            atPath: temporary.queue + "/" + QueueDirectoryLayout.snapshotTempName(sequence: 2), contents: Data([0]))
        #expect(try open(temporary.queue) == 1)
        #expect(
            !FileManager.default.fileExists(
                atPath: temporary.queue + "/" + QueueDirectoryLayout.snapshotTempName(sequence: 2)))
    }
}
