import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The compatibility promise: every checked-in queue directory (``FormatFixture``) opens, in this
/// build, to exactly the state the version that wrote it held.
@Suite(.blocking) struct FormatFixtureTests {
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
            // A folder (the producers' `inbox/`) by its files.
            if (try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + name)) != nil {
                for (inner, bytes) in try contents(of: directory + "/" + name) { files[name + "/" + inner] = bytes }
                continue
            }
            files[name] = try readFile(directory + "/" + name)
        }
        return files
    }

    @Test func theFixturesOfEveryReleasedFormatAreCheckedIn() throws {
        let names = try FormatFixture.names()
        #expect(names.contains("format-1"))
        #expect(names.contains("format-1-migrations"))
        #expect(names.contains("format-1-options"))
        #expect(names.contains("format-2"))
        #expect(names.contains("format-2-park"))
        #expect(names.contains("format-2-tags"))
        #expect(names.contains("format-2-inbox"))
        #expect(names.contains("format-2-results"))
        #expect(names.contains("format-2-order"))
        #expect(names.contains("format-2-extent"))
        #expect(names.contains("format-2-terms"))
        #expect(names.contains("format-2-retries"))
        #expect(names.contains("format-2-constraints"))
    }

    /// The fixture of file format version 2 pins its header: every file is of version 2, and names the LSN of its
    /// first record (1 in the snapshot; after it, the LSN after the last record before), which replay checks.
    @Test func theFormatTwoFixturePinsTheFirstLSNOfEveryFile() throws {
        let temporary = TemporaryDirectory("fixture")
        defer { temporary.cleanup() }
        let copy = try copyOfFixture("format-2", into: temporary)
        let (_, replay) = try contentsOfLog(copy)
        let files = try LogReplay.logFiles(in: copy, fileSystem: POSIXFileSystem())
        #expect(replay.fileVersions == [2: files.count] && files.count >= 3)
        let records = try LogInspector.records(directory: copy)
        let snapshot = try #require(replay.snapshotSequence)
        var next: UInt64 = 1
        for file in files where file.sequence >= snapshot {
            let bytes = try readFile(file.path)
            let header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
            #expect(header.version == 2 && header.size == 48 && Array(bytes[10..<12]) == [48, 0])
            let inFile = records.filter { $0.path == file.path }
            let expected = file.sequence == snapshot ? 1 : next
            #expect(header.firstLSN == expected, "\(file.path)")
            #expect(inFile.first.map { $0.lsn == expected && $0.offset == 48 } ?? true, "\(file.path)")
            if file.sequence == snapshot, let summary = replay.state.summary {
                next = summary.lastLSN + 1
            } else if let last = inFile.last {
                next = last.lsn + 1
            }
        }
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
        defer { try? closeChecked(queue) }
        #expect(queue.recoveryReport.reclaimedJobs.isEmpty)
        #expect(queue.recoveryReport.tornTailOffset == nil)
        checkInvariants(queue.engine.stateSnapshot)
        var found = try FixtureState(queue: queue, clockAdvance: expected.clockAdvance)
        // A fixture written before stop reasons does not record them (see `FixtureState.stopReasons`).
        if expected.stopReasons == nil { found.stopReasons = nil }
        // A fixture written before starts does not record them (see `FixtureState.startsRecorded`).
        if expected.startsRecorded == nil {
            found.startsRecorded = nil
            for index in found.jobs.indices { found.jobs[index].starts = nil }
        }
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
        // A fixture holds no `LOCK`: inspection must not create one (it creates nothing).
        let before = try contents(of: copy)
        let summary = try LogInspector.verify(directory: copy)
        let records = try LogInspector.records(directory: copy)
        #expect(summary.records > 0)
        #expect(summary.filesRead >= 2)
        #expect(summary.tornTail == nil)
        #expect(records.count == summary.records)
        #expect(try contents(of: copy) == before)
        // The opcodes each fixture is meant to pin (a new fixture declares its own).
        let pinned = try #require(Self.pinnedOpcodes[name], "fixture \(name) declares no opcodes it pins")
        let (log, _) = try contentsOfLog(copy)
        #expect(log.opcodes.isSuperset(of: pinned), "\(name): \(log.opcodes.sorted())")
        if name == "format-1" {
            // Every operation of format 1 lies in it, but `expire`: compaction writes it into a file it then deletes.
            let names = Set(records.flatMap { $0.operations.map(\.name) })
            #expect(
                names == [
                    "enqueue", "claim", "renewLease", "complete", "fail", "cancel", "retry", "reschedule",
                    "delete", "reclaim", "restore", "snapshot",
                ])
        }
        if name == "format-1-migrations" {
            let names = Set(records.flatMap { $0.operations.map(\.name) })
            #expect(
                names.isSuperset(of: [
                    "snapshot", "migrationsApplied", "restore", "migrationBegin", "migrateJob",
                    "migrationCommit", "abandon", "enqueue",
                ]))
            #expect(summary.appliedMigration == 3)
            #expect(Set(summary.bodyVersions.keys) == [1, 2, 4])
        }
    }

    /// The opcodes (FORMAT.md, *Operations*) whose records each fixture holds.
    static let pinnedOpcodes: [String: Set<Int>] = [
        // Format 1 but `expire` (compaction writes it into a file it then deletes).
        "format-1": Set(1...12),
        "format-1-migrations": [1, 11, 12, 20, 21, 23, 24, 25],
        // Body version 3 (14 to 16, 16 inside a snapshot), a migration after the snapshot with migration_remove.
        "format-1-options": [1, 2, 4, 5, 11, 12, 14, 15, 16, 20, 21, 22, 23, 24],
        // File format version 2 (every file's header names its first LSN), by the same workload.
        "format-2": [1, 2, 4, 5, 11, 12, 14, 15, 16, 20, 21, 22, 23, 24],
        // The log two `.shared` owners wrote in turn (the fixture pins its OWNER file).
        "format-2-owner": [1, 2, 4],
        // Body version 5: parked jobs and checkpoints, live and as a snapshot's annexes.
        "format-2-park": [1, 2, 4, 5, 10, 11, 12, 26, 27, 28],
        // Body version 6: a snapshot whose restores are followed by `stop_reason`, then a release, a snooze,
        // and a failure followed by its stop reason.
        "format-2-stops": [1, 2, 5, 11, 12, 24, 30, 31, 32],
        // Kind controls (body version 7): pause and resume, rate limits, a window in the snapshot.
        "format-2-tags": [2, 11, 12, 16, 24, 34, 35, 36, 37],
        // Producer inbox files: `inbox_ingested` in a snapshot (the compaction replaced the records before it), and
        // an inbox file partly ingested (its own format, checked by InboxFixtureTests).
        "format-2-inbox": [11, 12, 16, 40],
        // Body version 9: a snapshot whose restores are followed by `tags`, `result` and `prerequisite_result`, then
        // `tags` after an enqueue with prerequisites and a `result` before its `complete`.
        "format-2-results": [2, 4, 11, 12, 14, 16, 33, 38, 39],
        // Producer order (body version 10, in inbox files only, checked by InboxFixtureTests): the log holds
        // the owner's tagged enqueue.
        "format-2-order": [1, 38],
        // Body version 11: the whole workload written again by a build whose snapshots say how many records
        // they hold (`snapshot_extent` in each snapshot's first record); the log is its last snapshot, with
        // every annex, and the records after it.
        "format-2-extent": [2, 4, 11, 12, 16, 24, 26, 28, 32, 33, 34, 36, 37, 38, 39, 44],
        // A producer's terms (inbox body version 12, in inbox files only, checked by TermsFixtureTests): the log
        // holds the jobs that arrived parked, each an enqueue, a `claim` and a `park`, and its tags.
        "format-2-terms": [1, 2, 26, 38, 40],
        // Body version 13: a snapshot whose restores are followed by `retry_table`, `retry_exponential` and
        // `starts`; after it an enqueue followed by `retry_table`, its claim and a snooze that gives back.
        "format-2-retries": [1, 2, 11, 12, 31, 32, 44, 47, 48, 49],
        // Body version 14: a snapshot whose restores carry constraints changed before it (changed, added, removed,
        // of a job while it ran), then `set_constraints` of enqueued jobs and of a running one, which then fails.
        "format-2-constraints": [1, 2, 5, 11, 12, 14, 16, 32, 44, 50],
    ]

    /// The opcode an operation is written with (FORMAT.md, *Operations*).
    static func opcode(_ operation: Spool.LogOperation) -> Int {
        switch operation {
        case .enqueue(let op): return op.options.isEmpty ? 1 : 14
        case .claim: return 2
        case .renewLease: return 3
        case .complete: return 4
        case .fail: return 5
        case .cancel: return 6
        case .retry: return 7
        case .reschedule: return 8
        case .delete: return 9
        case .reclaim: return 10
        case .restore(let job): return job.hasOptions ? 16 : 11
        case .snapshot: return 12
        case .snapshotExtent: return 44
        case .expire: return 13
        case .nextOccurrence: return 15
        case .migrationBegin: return 20
        case .migrateJob: return 21
        case .migrationRemove: return 22
        case .migrationCommit: return 23
        case .migrationsApplied: return 24
        case .abandon: return 25
        case .park: return 26
        case .checkpoint: return 27
        case .restoreCheckpoint: return 28
        case .release: return 30
        case .snooze: return 31
        case .stopReason: return 32
        case .pauseKind: return 34
        case .resumeKind: return 35
        case .setRateLimit: return 36
        case .rateWindow: return 37
        case .prerequisiteResult: return 33
        case .tags: return 38
        case .result: return 39
        case .inboxIngested: return 40
        case .retrySchedule(_, .table): return 47
        case .retrySchedule(_, .exponential): return 48
        case .starts: return 49
        case .setConstraints: return 50
        }
    }

    /// What the records of fixture `name` hold, read through the replay open uses.
    private struct Contents {
        var opcodes: Set<Int> = []
        /// Per record: its operations.
        var records: [[Spool.LogOperation]] = []
    }

    private func contentsOfLog(_ directory: String) throws -> (Contents, LogReplay.Outcome) {
        var contents = Contents()
        let result = try QueueDirectory(path: directory, fileSystem: POSIXFileSystem()).inspect(mode: .strict) {
            _, _, _, operations in
            contents.records.append(operations)
            contents.opcodes.formUnion(operations.map(Self.opcode))
        }
        return (contents, result)
    }

    /// The fixture of job options and migrations holds what it is meant to pin (see
    /// ``FormatFixture/generateOptionsAndMigrations(queuePath:clock:)``).
    @Test func theOptionsFixturePinsBodyVersionThreeAndMigrations() throws {
        let temporary = TemporaryDirectory("fixture")
        defer { temporary.cleanup() }
        let copy = try copyOfFixture("format-1-options", into: temporary)
        let (log, replay) = try contentsOfLog(copy)
        #expect(Set(replay.bodyVersions.keys) == [1, 2, 3, 4])
        #expect(log.opcodes.isSuperset(of: try #require(Self.pinnedOpcodes["format-1-options"])))
        let enqueues = log.records.joined().compactMap { operation -> EnqueueOptions? in
            if case .enqueue(let op) = operation { return op.options } else { return nil }
        }
        #expect(enqueues.contains { $0.constraints != nil })
        #expect(enqueues.contains { !$0.dependencies.isEmpty })
        #expect(enqueues.contains { $0.periodic != nil })
        // Migrations after the snapshot: one spanning several records, one begun twice (the first cut short).
        var begins: [(number: UInt64, record: Int)] = []
        var commits: [(number: UInt64, record: Int)] = []
        var plainAfter: [Int] = []
        for (index, operations) in log.records.enumerated() {
            for operation in operations {
                switch operation {
                case .migrationBegin(let number, _): begins.append((number, index))
                case .migrationCommit(let number): commits.append((number, index))
                case .migrateJob, .migrationRemove: break
                default: plainAfter.append(index)
                }
            }
        }
        try #require(begins.map(\.number) == [4, 5, 5] && commits.map(\.number) == [4, 5])
        #expect(commits[0].record > begins[0].record + 1, "migration 4 spans several records")
        #expect(
            plainAfter.contains { $0 > begins[1].record && $0 < begins[2].record },
            "other records follow the abandoned migration")
        let migrated = log.records.joined().compactMap { operation -> MigratedJob? in
            if case .migrateJob(let job) = operation { return job } else { return nil }
        }
        #expect(migrated.contains { $0.id == "bundle-1/1" }, "a migrate_job creating a job")
        #expect(migrated.contains { $0.id == "upload-1" && $0.state == .running && $0.lease != nil })
        let state = replay.state
        #expect(state.jobs["chain-1"]?.state == .failed)
        #expect(state.jobs["chain-2"]?.state == .cancelled && state.jobs["chain-3"]?.state == .cancelled)
        #expect(state.jobs["chain-3"]?.waitingFor == ["chain-2"])
        #expect(state.jobs["bundle-1"] == nil && state.jobs["backup-1"]?.kind == "backup.v4")
        #expect(state.jobs["backup-1"]?.constraints?.requiresCharging == true)
        #expect(state.jobs["digest-1"]?.periodic?.occurrence == 2)
        #expect(state.appliedMigration == 5)
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
        #expect(
            String(decoding: try queue.payload(of: "email-1"), as: UTF8.self).contains(#""to":["ana@example.com"]"#))
        #expect(
            try queue.job("charge-1")?.lastError == "invalid since migration 2: amounts are in cents since version 2")
        #expect(try queue.job("batch-1") == nil && queue.job("batch-1/2")?.uniqueKey == "item:batch-1")
        #expect(try queue.job("flaky-1")?.state == .cancelled)
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
        // An older build of the app (fewer migrations) refuses it, and changes nothing.
        configuration.migrations.removeLast()
        expectError(.newerMigrations) { try JobQueue(directory: copy, configuration: configuration) }
        configuration.migrations = FormatFixture.migrations
        queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(queue.recoveryReport.appliedMigrations.isEmpty && queue.appliedMigration == 3)
        try closeChecked(queue)
    }

    /// Writes a new fixture; runs only with `SPOOL_WRITE_FIXTURE=<name>` (see ``FormatFixture``).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SPOOL_WRITE_FIXTURE"] != nil))
    func writeFixture() throws {
        let name = try #require(ProcessInfo.processInfo.environment["SPOOL_WRITE_FIXTURE"])
        let directory = FormatFixture.fixturesDirectory + "/" + name
        #expect(!FileManager.default.fileExists(atPath: directory), "fixtures are never regenerated; choose a new name")
        guard !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if name.hasSuffix("-owner") {
            try FormatFixture.generateOwner(into: directory)
        } else if name.hasSuffix("-inbox") {
            try FormatFixture.generateInbox(into: directory)
        } else if name.hasSuffix("-order") {
            try FormatFixture.generateOrder(into: directory)
        } else if name.hasSuffix("-terms") {
            try FormatFixture.generateTerms(into: directory)
        } else if name.hasSuffix("-retries") {
            try FormatFixture.generateRetries(into: directory)
        } else if name.hasSuffix("-constraints") {
            try FormatFixture.generateConstraints(into: directory)
        } else {
            try FormatFixture.generate(into: directory)
        }
        try FixtureManifest.make(of: directory).write(
            toFile: directory + "/" + FixtureManifest.fileName,
            atomically: true, encoding: .utf8)
    }

    /// Every file of every fixture is as its checked-in manifest lists it (path, size, FNV-1a 64), and no
    /// file is missing or added: a fixture deleted and generated again under its old name is caught.
    @Test(arguments: try FormatFixture.names())
    func everyFixtureMatchesItsManifest(_ name: String) throws {
        let directory = FormatFixture.fixturesDirectory + "/" + name
        let checkedIn = try String(contentsOfFile: directory + "/" + FixtureManifest.fileName, encoding: .utf8)
        #expect(checkedIn.split(separator: "\n").count >= 2)
        #expect(try FixtureManifest.make(of: directory) == checkedIn)
    }

    @Test func theManifestChecksumIsFNV1a64() {
        #expect(FixtureManifest.fnv64([]) == 0xcbf2_9ce4_8422_2325)
        #expect(FixtureManifest.fnv64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(FixtureManifest.fnv64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }
}
