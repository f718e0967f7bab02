import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A refused open changes nothing in the directory: newer migrations than the build knows, invalid
/// migration settings.
@Suite(.blocking) struct RefusedOpenChangesNothingTests {
    private func configuration() -> Configuration {
        var configuration = testConfiguration()
        configuration.preallocationChunk = 0
        configuration.autoCompaction = nil
        return configuration
    }

    /// A queue migrated up to 2 and closed, then left with a torn tail and an unfinished snapshot.
    private func migratedQueue(_ temporary: TemporaryDirectory) throws -> Configuration {
        var configuration = configuration()
        configuration.migrations = [.renameKind("a", to: "a2", number: 1), .renameKind("b", to: "b2", number: 2)]
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "a2", payload: Data("one".utf8), id: "one"))
        try closeChecked(queue)
        #expect(queue.appliedMigration == 2)
        let last = logFilePath(temporary.queue)
        try writeFile(last, try readFile(last) + [0x55, 0x66])  // a torn tail
        try writeFile(temporary.queue + "/" + QueueDirectoryLayout.snapshotTempName(sequence: 9), [1, 2, 3])
        return configuration
    }

    /// FORMAT.md: a build registering migrations none as high as the applied number refuses to open
    /// the queue (`newerMigrations`, nothing changed): not the torn tail cut, not the leftover deleted.
    @Test func newerMigrationsRefusalChangesNothing() throws {
        let temporary = TemporaryDirectory("review")
        defer { temporary.cleanup() }
        var configuration = try migratedQueue(temporary)
        let before = try directoryContents(temporary.queue)
        configuration.migrations.removeLast()  // an older app build
        expectError(.newerMigrations) { try JobQueue(directory: temporary.queue, configuration: configuration) }
        #expect(
            try directoryContents(temporary.queue) == before, "the refused open cut the tail / deleted the leftover")

        // The current build still opens it, repairing both.
        configuration.migrations.append(.renameKind("b", to: "b2", number: 2))
        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration)
        #expect(reopened.recoveryReport.tornTailBytes == 2)
        #expect(try reopened.jobs().map(\.id) == ["one"])
        try closeChecked(reopened)
        #expect(try directoryContents(temporary.queue) != before)
    }

    /// A compaction's leftover (the file its snapshot replaced) is not deleted by a refused open.
    @Test func newerMigrationsRefusalKeepsACompactionLeftover() throws {
        let temporary = TemporaryDirectory("review")
        defer { temporary.cleanup() }
        var configuration = configuration()
        configuration.migrations = [.renameKind("a", to: "a2", number: 1), .renameKind("b", to: "b2", number: 2)]
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "a2", payload: Data("one".utf8), id: "one"))
        let first = logFilePath(temporary.queue)
        let firstBytes = try readFile(first)
        _ = try queue.compact()
        try closeChecked(queue)
        try writeFile(first, firstBytes)  // as if the compaction crashed before deleting it
        let before = try directoryContents(temporary.queue)
        configuration.migrations = [.renameKind("a", to: "a2", number: 1)]
        expectError(.newerMigrations) { try JobQueue(directory: temporary.queue, configuration: configuration) }
        #expect(try directoryContents(temporary.queue) == before)
    }

    /// Invalid migration settings need no state: they are refused before the directory is touched
    /// (not even created).
    @Test func invalidMigrationNumbersChangeNothing() throws {
        let temporary = TemporaryDirectory("review")
        defer { temporary.cleanup() }
        var configuration = try migratedQueue(temporary)
        let before = try directoryContents(temporary.queue)
        for migrations: [JobMigration] in [
            [.renameKind("a", to: "a2", number: 0)],
            [.renameKind("a", to: "a2", number: -3), .renameKind("b", to: "b2", number: 2)],
            [
                .renameKind("a", to: "a2", number: 1), .renameKind("b", to: "b2", number: 2),
                .renameKind("c", to: "c2", number: 2),
            ],
        ] {
            configuration.migrations = migrations
            expectError(.invalidArgument) { try JobQueue(directory: temporary.queue, configuration: configuration) }
            #expect(try directoryContents(temporary.queue) == before)
        }
        configuration.migrations = [.renameKind("a", to: "a2", number: 1), .renameKind("a", to: "a2", number: 1)]
        let fresh = temporary.path + "/fresh"
        expectError(.invalidArgument) { try JobQueue(directory: fresh, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }
}
