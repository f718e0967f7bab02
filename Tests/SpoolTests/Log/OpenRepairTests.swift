import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Open's repairs (deleting files a snapshot replaced) must not destroy what salvage could not read.
@Suite(.blocking) struct OpenRepairTests {
    /// A compaction ended after its snapshot was renamed into the log and before it removed the older
    /// files; the snapshot then took damage. Salvage skips the damaged snapshot records and opens
    /// without those jobs: the older files are then the only copy of them, and open must not delete them.
    @Test func salvageKeepsTheFilesADamagedSnapshotReplaced() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        for index in 0..<3 {
            try queue.enqueue(NewJob(kind: "k", payload: Data("payload \(index)".utf8), id: JobID("job-\(index)")))
        }
        try closeChecked(queue)
        let oldPath = logFilePath(temp.queue)
        let oldBytes = try readFile(oldPath)
        let compacting = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        _ = try compacting.compact()
        try closeChecked(compacting)
        // As if the compaction had crashed before step 4: the replaced file is back.
        try writeFile(oldPath, oldBytes)
        let snapshotPath = temp.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 2)
        var snapshot = try readFile(snapshotPath)
        // Damage the last byte of the snapshot's last record (its restore operations).
        snapshot[snapshot.count - 1] ^= 0xFF
        try writeFile(snapshotPath, snapshot)

        var configuration = testConfiguration()
        configuration.recoveryMode = .salvage
        let salvaged = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(!salvaged.recoveryReport.skipped.isEmpty)
        #expect(salvaged.recoveryReport.skipped.allSatisfy { $0.path == snapshotPath })
        try closeChecked(salvaged)
        #expect(
            FileManager.default.fileExists(atPath: oldPath),
            "salvage deleted the only intact copy of the jobs the damaged snapshot held")
        #expect(try readFile(oldPath) == oldBytes)
    }
}

/// The queue directory may be reached through a symbolic link; a link to something that is not a
/// directory is refused as a regular file is.
@Suite(.blocking) struct QueueDirectoryLinkTests {
    @Test func aLinkToARegularFileIsNotAQueue() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let file = temp.path + "/plain"
        try writeFile(file, [1, 2, 3])
        try FileManager.default.createSymbolicLink(atPath: temp.queue, withDestinationPath: file)
        expectError(.notAQueue) { try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        expectError(.notAQueue) { try JobQueue(directory: file, configuration: testConfiguration()) }
    }

    @Test func aDanglingLinkIsNoQueue() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        try FileManager.default.createSymbolicLink(atPath: temp.queue, withDestinationPath: temp.path + "/missing")
        var configuration = testConfiguration()
        configuration.createIfMissing = false
        expectError(.queueNotFound) { try JobQueue(directory: temp.queue, configuration: configuration) }
    }

    @Test func aLinkToAQueueOpensIt() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let real = temp.path + "/real"
        let queue = try JobQueue(directory: real, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        try closeChecked(queue)
        try FileManager.default.createSymbolicLink(atPath: temp.queue, withDestinationPath: real)
        let linked = try JobQueue(directory: temp.queue + "/", configuration: testConfiguration())
        #expect(try linked.jobs().map(\.id.rawValue) == ["a"])
        expectError(.locked) { try JobQueue(directory: real, configuration: testConfiguration()) }
        try closeChecked(linked)
    }
}
