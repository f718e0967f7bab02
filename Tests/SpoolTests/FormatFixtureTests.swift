import Foundation
import Testing
@_spi(Benchmarks) @testable import Spool

/// The compatibility promise: every checked-in queue directory (``FormatFixture``) opens, in this
/// build, to exactly the state the version that wrote it held.
@Suite struct FormatFixtureTests {
    /// Copies fixture `name`'s queue into a temporary directory: tests never open the checked-in files.
    private func copyOfFixture(_ name: String, into temporary: TemporaryDirectory) throws -> String {
        let copy = temporary.path + "/" + name
        try FileManager.default.copyItem(atPath: FormatFixture.fixturesDirectory + "/" + name + "/queue", toPath: copy)
        return copy
    }

    private func expectedState(_ name: String) throws -> FixtureState {
        let url = URL(fileURLWithPath: FormatFixture.fixturesDirectory + "/" + name + "/expected.json")
        return try JSONDecoder().decode(FixtureState.self, from: Data(contentsOf: url))
    }

    /// The bytes of every file in `directory`, by name.
    private func contents(of directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try readFile(directory + "/" + name)
        }
        return files
    }

    @Test func theFixturesOfEveryReleasedFormatAreCheckedIn() throws {
        let names = try FormatFixture.names()
        #expect(names.contains("format-1"))
        #expect(names.contains("format-1-migrations"))
    }

    @Test(arguments: try FormatFixture.names())
    func everyFixtureOpensToTheStateItWasWrittenWith(_ name: String) throws {
        let temporary = TemporaryDirectory("fixture")
        defer { temporary.cleanup() }
        let copy = try copyOfFixture(name, into: temporary)
        let expected = try expectedState(name)
        let clock = ManualClock(start: FormatFixture.start)
        clock.advance(by: expected.clockAdvance)
        var configuration = FormatFixture.configuration(clock: clock)
        configuration.createIfMissing = false
        let queue = try JobQueue(directory: copy, configuration: configuration)
        defer { try? queue.close() }
        #expect(queue.recoveryReport.reclaimedJobs.isEmpty)
        #expect(queue.recoveryReport.tornTailOffset == nil)
        checkInvariants(queue.engine.stateSnapshot)
        let found = try FixtureState(queue: queue, clockAdvance: expected.clockAdvance)
        #expect(found.jobs.count == expected.jobs.count)
        for (foundJob, expectedJob) in zip(found.jobs, expected.jobs) {
            #expect(foundJob == expectedJob)
        }
        #expect(found == expected)
    }

    @Test(arguments: try FormatFixture.names())
    func everyFixtureVerifiesReadOnly(_ name: String) throws {
        let temporary = TemporaryDirectory("fixture")
        defer { temporary.cleanup() }
        let copy = try copyOfFixture(name, into: temporary)
        _ = try LogInspector.verify(directory: copy) // takes the lock file into existence, if absent
        let before = try contents(of: copy)
        let summary = try LogInspector.verify(directory: copy)
        let records = try LogInspector.records(directory: copy)
        #expect(summary.records > 0)
        #expect(summary.filesRead >= 2)
        #expect(summary.tornTail == nil)
        #expect(records.count == summary.records)
        #expect(try contents(of: copy) == before)
        if name == "format-1" {
            // Every operation of format 1 lies in it, but `expire`: compaction writes it into a file it then deletes.
            let names = Set(records.flatMap { $0.operations.map(\.name) })
            #expect(names == ["enqueue", "claim", "renewLease", "complete", "fail", "cancel", "retry", "reschedule",
                              "delete", "reclaim", "restore", "snapshot"])
        }
        if name == "format-1-migrations" {
            let names = Set(records.flatMap { $0.operations.map(\.name) })
            #expect(names.isSuperset(of: ["snapshot", "migrationsApplied", "restore", "migrationBegin", "migrateJob",
                                          "migrationCommit", "abandon", "enqueue"]))
            #expect(summary.appliedMigration == 3)
            #expect(Set(summary.bodyVersions.keys) == [1, 2, 4])
        }
    }

    /// A queue written before job migrations existed, opened by an app that registers them: all apply.
    @Test func theAppsMigrationsUpgradeTheQueueOfFormatOne() throws {
        let temporary = TemporaryDirectory("fixture")
        defer { temporary.cleanup() }
        let copy = try copyOfFixture("format-1", into: temporary)
        let clock = ManualClock(start: FormatFixture.start)
        clock.advance(by: try expectedState("format-1").clockAdvance)
        var configuration = FormatFixture.configuration(clock: clock)
        configuration.migrations = FormatFixture.migrations
        var queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(queue.recoveryReport.appliedMigrations == [1, 2, 3])
        #expect(try queue.job("email-1")?.kind == "email.v2")
        #expect(String(decoding: try queue.payload(of: "email-1"), as: UTF8.self).contains(#""to":["ana@example.com"]"#))
        #expect(try queue.job("charge-1")?.lastError == "invalid since migration 2: amounts are in cents since version 2")
        #expect(try queue.job("batch-1") == nil && queue.job("batch-1/2")?.uniqueKey == "item:batch-1")
        #expect(try queue.job("flaky-1")?.state == .cancelled)
        checkInvariants(queue.engine.stateSnapshot)
        try queue.close()
        // An older build of the app (fewer migrations) refuses it, and changes nothing.
        configuration.migrations.removeLast()
        expectError(.newerMigrations) { try JobQueue(directory: copy, configuration: configuration) }
        configuration.migrations = FormatFixture.migrations
        queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(queue.recoveryReport.appliedMigrations.isEmpty && queue.appliedMigration == 3)
        try queue.close()
    }

    /// Writes a new fixture; runs only with `SPOOL_WRITE_FIXTURE=<name>` (see ``FormatFixture``).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SPOOL_WRITE_FIXTURE"] != nil))
    func writeFixture() throws {
        let name = try #require(ProcessInfo.processInfo.environment["SPOOL_WRITE_FIXTURE"])
        let directory = FormatFixture.fixturesDirectory + "/" + name
        #expect(!FileManager.default.fileExists(atPath: directory), "fixtures are never regenerated; choose a new name")
        guard !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FormatFixture.generate(into: directory)
    }
}
