import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The configuration of the migration suites: running jobs kept at open (their leases are what a
/// migration sees), no automatic compaction, and `migrations`.
func migrationTestConfiguration(_ clock: ManualClock, _ migrations: [JobMigration] = []) -> Configuration {
    var configuration = testConfiguration(clock: clock)
    configuration.runningJobsAtOpen = .keepUnexpiredLeases
    configuration.autoCompaction = nil
    configuration.migrations = migrations
    return configuration
}

/// Job migrations: applied at open in order, atomically, once; their effects on each kind of job.
@Suite(.blocking) struct MigrationTests {
    private func configuration(_ clock: ManualClock, _ migrations: [JobMigration] = []) -> Configuration {
        migrationTestConfiguration(clock, migrations)
    }

    /// Upper-cases the payload of `upload` jobs and renames them `upload.v2`: running it twice would show.
    private static let uploadV2 = JobMigration(number: 1, name: "upload v2") { job, payload in
        guard job.kind == "upload" else { return .keep }
        return .rewrite(
            kind: "upload.v2",
            payload: Data(String(decoding: payload, as: UTF8.self).uppercased().utf8) + Data("!".utf8))
    }

    @Test func aMigrationRewritesSplitsDropsAndInvalidatesAtOpenAndRecordsItsNumber() throws {
        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(
            NewJob(kind: "upload", payload: Data("a.jpg".utf8), id: "up", priority: 4, uniqueKey: "photo"))
        _ = try queue.enqueue(
            NewJob(kind: "batch", payload: Data("x,y".utf8), id: "batch", priority: 2, uniqueKey: "b"))
        _ = try queue.enqueue(NewJob(kind: "legacy", payload: Data("old".utf8), id: "legacy"))
        _ = try queue.enqueue(NewJob(kind: "charge", payload: Data("-5".utf8), id: "charge"))
        _ = try queue.enqueue(NewJob(kind: "upload", payload: Data("b.jpg".utf8), id: "done"))
        _ = try queue.complete(try #require(try queue.claim(kind: "upload")))  // "up" has priority: it succeeds
        _ = try queue.enqueue(NewJob(kind: "upload", payload: Data("c.jpg".utf8), id: "running"))
        let lease = try #require(try queue.claim(kind: "upload"))
        #expect(lease.job.id == "running" || lease.job.id == "done")
        try closeChecked(queue)
        #expect(queue.appliedMigration == 0)

        clock.advance(by: 10)
        let split = JobMigration(number: 2, name: "split batches") { job, payload in
            switch job.kind {
            case "batch":
                return .split(
                    String(decoding: payload, as: UTF8.self).split(separator: ",").map {
                        .init(kind: "item", payload: Data($0.utf8))
                    } + [.init(kind: "item", payload: Data("z".utf8), id: "batch", uniqueKey: "b")])
            case "legacy": return .drop
            case "charge":
                return Int(String(decoding: payload, as: UTF8.self))! < 0 ? .invalid(reason: "negative amount") : .keep
            default: return .keep
            }
        }
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [split, Self.uploadV2]))
        #expect(queue.recoveryReport.appliedMigrations == [1, 2])
        #expect(queue.appliedMigration == 2)
        let byID = Dictionary(uniqueKeysWithValues: try queue.jobs().map { ($0.id.rawValue, $0) })
        #expect(Set(byID.keys) == ["up", "done", "running", "batch/1", "batch/2", "batch", "legacy", "charge"])
        // Succeeded jobs are history: not visited.
        #expect(byID["up"]?.kind == "upload" && byID["up"]?.state == .succeeded)
        #expect(String(decoding: try queue.payload(of: "up"), as: UTF8.self) == "a.jpg")
        // Rewritten, state and lease kept.
        let running = try #require(byID[lease.job.id.rawValue])
        #expect(running.kind == "upload.v2" && running.state == .running && running.attempts == 1)
        let rewritten = Data(String(decoding: lease.payload, as: UTF8.self).uppercased().utf8) + Data("!".utf8)
        #expect(try queue.payload(of: running.id) == rewritten)
        _ = try queue.complete(lease)
        // Split: replacements take the original's state and priority, in order; the original is gone.
        for (id, payload) in [("batch/1", "x"), ("batch/2", "y"), ("batch", "z")] {
            let job = try #require(byID[id])
            #expect(job.kind == "item" && job.state == .enqueued && job.priority == 2)
            #expect(try queue.payload(of: JobID(id)) == Data(payload.utf8))
        }
        #expect(byID["batch"]?.uniqueKey == "b" && byID["batch/1"]?.uniqueKey == nil)
        // Dropped: cancelled, kept, with the reason; invalid: failed for good with the reason.
        #expect(
            byID["legacy"]?.state == .cancelled && byID["legacy"]?.lastError == "dropped by migration 2 (split batches)"
        )
        #expect(byID["charge"]?.isFailed == true)
        #expect(byID["charge"]?.lastError == "invalid since migration 2: negative amount")
        #expect(byID["charge"]?.finishedAt == clock.now())
        checkInvariants(queue.engine.stateSnapshot)
        let migrated = try queue.jobs()
        try closeChecked(queue)

        // Never twice: not on reopen, not after a compaction.
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [split, Self.uploadV2]))
        #expect(queue.recoveryReport.appliedMigrations.isEmpty)
        #expect(
            try queue.jobs()
                == migrated.map { job in
                    var job = job
                    if job.id == lease.job.id { job = try! queue.job(job.id)! }
                    return job
                })
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [split, Self.uploadV2]))
        #expect(queue.appliedMigration == 2)
        #expect(queue.recoveryReport.appliedMigrations.isEmpty)
        #expect(try queue.payload(of: lease.job.id) == rewritten)
        try closeChecked(queue)
    }

    @Test func aQueueMigratedByANewerBuildIsRefusedByOneWithMigrationsAndOpensInTools() throws {
        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let second = JobMigration.renameKind("b", to: "c", number: 2)
        try JobQueue(directory: temporary.queue, configuration: configuration(clock, [Self.uploadV2, second])).close()
        let log = try readFile(logFilePath(temporary.queue))
        expectError(.newerMigrations) {
            try JobQueue(directory: temporary.queue, configuration: configuration(clock, [Self.uploadV2]))
        }
        #expect(try readFile(logFilePath(temporary.queue)) == log)
        let tool = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        #expect(tool.appliedMigration == 2)
        try closeChecked(tool)
        // A lower number than the applied one is skipped, a higher one applies.
        let third = JobMigration.renameKind("c", to: "d", number: 3)
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [third, second]))
        #expect(queue.recoveryReport.appliedMigrations == [3])
        try closeChecked(queue)
        expectError(.invalidArgument) {
            try JobQueue(
                directory: temporary.queue, configuration: configuration(clock, [third, .dropKind("x", number: 3)]))
        }
    }

    @Test func anAnswerThatDoesNotFitWritesNothing() throws {
        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "a", id: "one"))
        _ = try queue.enqueue(NewJob(kind: "a", id: "two"))
        try closeChecked(queue)
        let log = try readFile(logFilePath(temporary.queue))
        let clash = JobMigration(number: 1) { job, _ in .split([.init(kind: "b", payload: Data(), id: "two")]) }
        expectError(.invalidArgument) {
            try JobQueue(directory: temporary.queue, configuration: configuration(clock, [clash]))
        }
        let empty = JobMigration(number: 1) { _, _ in .rewrite(kind: "") }
        expectError(.invalidArgument) {
            try JobQueue(directory: temporary.queue, configuration: configuration(clock, [empty]))
        }
        #expect(try readFile(logFilePath(temporary.queue)) == log)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        #expect(queue.appliedMigration == 0)
        try closeChecked(queue)
    }

    @Test func jobsOfKindsTheBuildCannotRunEndFailedForGoodWithTheReason() throws {
        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "known", id: "k"))
        _ = try queue.enqueue(NewJob(kind: "gone", id: "g1"))
        _ = try queue.enqueue(NewJob(kind: "gone", id: "g2"))
        _ = try queue.claim(kind: "gone")
        _ = try queue.enqueue(NewJob(kind: "gone", id: "g3"))
        _ = try queue.cancel("g3")
        try closeChecked(queue)
        var known = configuration(clock)
        known.knownKinds = ["known"]
        queue = try JobQueue(directory: temporary.queue, configuration: known)
        #expect(queue.recoveryReport.unrunnableJobs == ["g1", "g2"])
        for id in ["g1", "g2"] as [JobID] {
            let job = try #require(try queue.job(id))
            #expect(job.isFailed && job.lastError == "this build cannot run jobs of kind gone")
        }
        #expect(try queue.job("g3")?.state == .cancelled)
        #expect(try queue.job("k")?.state == .enqueued)
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "gone")) }
        expectError(.invalidArgument) { try queue.retry("g1") }
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
        // Recorded: an open without the restriction sees the same, and retries work again.
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        #expect(try queue.job("g2")?.isFailed == true)
        #expect(try queue.retry("g2").state == .enqueued)
        try closeChecked(queue)
    }

    @Test func anEnqueuedJobOverItsAttemptBudgetAtMigrationEndsFailed() throws {
        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "a", id: "last", maxAttempts: 1))
        _ = try queue.claim()
        try closeChecked(queue)
        // A split of the running job at its last attempt: the replacement cannot run again.
        let split = JobMigration(number: 1) { job, _ in .split([.init(kind: "b", payload: Data("p".utf8))]) }
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [split]))
        let job = try #require(try queue.job("last/1"))
        #expect(job.isFailed && job.attempts == 1)
        #expect(job.lastError == "attempts spent (1 of 1) at migration 1")
        try closeChecked(queue)
    }

    @Test func aDamagedRecordInsideAMigrationFailsStrictOpenAndSalvageDropsTheWholeMigration() throws {
        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var plain = configuration(clock)
        plain.preallocationChunk = 0
        var queue = try JobQueue(directory: temporary.queue, configuration: plain)
        for index in 0..<8 {
            _ = try queue.enqueue(NewJob(kind: "a", payload: Data("job \(index)".utf8), id: JobID("j\(index)")))
        }
        try closeChecked(queue)
        var migrating = plain
        migrating.migrations = [
            JobMigration(number: 1) { _, payload in .rewrite(kind: "b", payload: payload + Data("!".utf8)) }
        ]
        migrating.migrationRecordBytes = 100
        queue = try JobQueue(directory: temporary.queue, configuration: migrating)
        _ = try queue.enqueue(NewJob(kind: "b", payload: Data("later".utf8), id: "later"))
        try closeChecked(queue)
        let records = try LogInspector.records(directory: temporary.queue)
        let steps = records.filter { $0.operations.first?.name == "migrateJob" }
        #expect(steps.count >= 2 && records.last?.operations.first?.name == "enqueue")
        var bytes = try readFile(logFilePath(temporary.queue))
        bytes[Int(steps[0].offset) + LogFormat.frameHeaderSize + 4] ^= 0x40
        try writeFile(logFilePath(temporary.queue), bytes)

        expectError(.corruption) { try JobQueue(directory: temporary.queue, configuration: plain) }
        #expect(try readFile(logFilePath(temporary.queue)) == bytes)
        var salvage = plain
        salvage.recoveryMode = .salvage
        queue = try JobQueue(directory: temporary.queue, configuration: salvage)
        #expect(!queue.recoveryReport.skipped.isEmpty)
        #expect(queue.appliedMigration == 0)
        #expect(try queue.jobs().map(\.kind) == Array(repeating: "a", count: 8) + ["b"])
        #expect(try queue.payload(of: "j3") == Data("job 3".utf8))
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
    }

    /// A split of a job whose id is near the 200-byte limit: the replacement ids `<id>/<n>` would be over
    /// it, so they take the id cut short, `~`, 16 hex digits of its FNV-1a 64 and `/<n>`: within the limit,
    /// distinct, valid UTF-8 (a cut never splits a character), and the same on every run.
    @Test func splitReplacementIdsOfALongIdFitTheLimit() throws {
        let short = MigrationPlanner.replacementID(of: "batch", position: 3)
        #expect(short == "batch/3")
        let exact = String(repeating: "a", count: JobLimits.maxIDBytes - 2)
        #expect(MigrationPlanner.replacementID(of: exact, position: 1) == exact + "/1")
        let over = MigrationPlanner.replacementID(of: exact, position: 10)
        #expect(over.utf8.count == JobLimits.maxIDBytes)
        let digits = String(FixtureManifest.fnv64(Array(exact.utf8)), radix: 16)
        #expect(
            over == String(repeating: "a", count: JobLimits.maxIDBytes - 20) + "~"
                + String(repeating: "0", count: 16 - digits.count) + digits + "/10")
        // Ids differing only past the cut still get different replacement ids.
        let long = String(repeating: "é", count: 99) + "x"  // 199 bytes, two per é
        let other = String(repeating: "é", count: 99) + "y"
        let a = MigrationPlanner.replacementID(of: long, position: 1)
        let b = MigrationPlanner.replacementID(of: other, position: 1)
        #expect(a != b && a.utf8.count <= JobLimits.maxIDBytes && b.utf8.count <= JobLimits.maxIDBytes)
        #expect(a.hasPrefix(String(repeating: "é", count: 90)) && !a.contains("\u{FFFD}"))
        #expect(a == MigrationPlanner.replacementID(of: long, position: 1))

        let temporary = TemporaryDirectory("migration")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "batch", payload: Data("x,y".utf8), id: JobID(long)))
        _ = try queue.enqueue(NewJob(kind: "batch", payload: Data("x,y".utf8), id: JobID(other)))
        try closeChecked(queue)
        let split = JobMigration(number: 1, name: "split batches") { job, payload in
            guard job.kind == "batch" else { return .keep }
            return .split(
                String(decoding: payload, as: UTF8.self).split(separator: ",").map {
                    .init(kind: "item", payload: Data($0.utf8))
                })
        }
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [split]))
        #expect(queue.recoveryReport.appliedMigrations == [1])
        let ids = Set(try queue.jobs().map(\.id.rawValue))
        #expect(
            ids == [
                a, MigrationPlanner.replacementID(of: long, position: 2), b,
                MigrationPlanner.replacementID(of: other, position: 2),
            ])
        #expect(ids.allSatisfy { $0.utf8.count <= JobLimits.maxIDBytes })
        try closeChecked(queue)
    }
}
