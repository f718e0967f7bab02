import Foundation
import Testing

@testable import Spool

/// Checked-in queue directories: the compatibility promise of `FORMAT.md`.
///
/// Each fixture is a directory under `Tests/SpoolTests/Fixtures/` holding `queue/` (a queue directory
/// exactly as some version of Spool wrote it) and `expected.json` (the state that version held when
/// it closed the queue). Every later version must open a copy of `queue/` to exactly that state
/// (``FormatFixtureTests``). Fixtures are never regenerated: a version that writes something new adds
/// a fixture under a new name, with
///
/// ```
/// SPOOL_WRITE_FIXTURE=<name> swift test --filter FormatFixtureTests/writeFixture
/// ```
///
/// which runs ``FormatFixture/generate(into:)`` (a deterministic workload on a ``ManualClock``) and
/// refuses to overwrite an existing fixture.
enum FormatFixture {
    /// `Tests/SpoolTests/Fixtures`, found from this source file (in `Support/`).
    static var fixturesDirectory: String {
        packageRoot() + "/Tests/SpoolTests/Fixtures"
    }

    /// The names of the checked-in fixtures (directories holding `expected.json`).
    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixturesDirectory)
            .filter { FileManager.default.fileExists(atPath: fixturesDirectory + "/" + $0 + "/expected.json") }
            .sorted()
    }

    /// The wall-clock start of every fixture's ``ManualClock`` (its default start).
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// The configuration the generator writes with and the test opens with: no background
    /// compaction, tiny log files, no preallocation (small files), running jobs kept.
    static func configuration(clock: ManualClock) -> Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.logFileSize = 1024
        configuration.preallocationChunk = 0
        configuration.autoCompaction = nil
        configuration.retention = 3600
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        configuration.retryPolicy = .table([30, 60], maxAttempts: 3)
        configuration.createIfMissing = true
        return configuration
    }

    /// Writes a queue covering every kind of record and job state this build writes (the workload grows
    /// with the format: format-1 was written by the steps before the job migrations) into
    /// `directory/queue`, and the state it ended in into `directory/expected.json`.
    static func generate(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        var queue = try JobQueue(directory: queuePath, configuration: configuration(clock: clock))
        func step() { clock.advance(by: 1) }

        // Before the snapshot: a job that retention expires, jobs the snapshot restores.
        _ = try queue.enqueue(NewJob(kind: "cleanup", payload: Data("tmp/*".utf8), id: "old-done"))
        step()
        _ = try queue.complete(try queue.claim(kind: "cleanup")!)
        step()
        _ = try queue.enqueue(
            NewJob(
                kind: "email", payload: Data(#"{"to":"ana@example.com","subject":"Welcome"}"#.utf8),
                id: "email-1"))
        _ = try queue.enqueue(
            NewJob(
                kind: "upload", payload: Data((0...255).map { UInt8($0) }), id: "upload-1",
                priority: 5, uniqueKey: "upload:photo-1"))
        _ = try queue.enqueue(NewJob(kind: "report", id: "report-1", priority: -3, delay: 3600))
        _ = try queue.enqueue(
            NewJob(
                kind: "charge", payload: Data(#"{"amount":1200}"#.utf8), id: "charge-1",
                maxAttempts: 1))
        step()
        _ = try queue.fail(try queue.claim(kind: "charge")!, error: "card declined")
        clock.advance(by: 7200)
        _ = try queue.compact()

        // After the snapshot, over several log files.
        step()
        _ = try queue.enqueue(
            NewJob(
                kind: "resize", payload: Data((0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 7) }),
                id: "resize-1"))
        step()
        _ = try queue.enqueue(
            NewJob(
                kind: "sync", payload: Data("inbox".utf8), id: "sync-1",
                runAt: start.addingTimeInterval(3 * 3600), uniqueKey: "sync:inbox"))
        _ = try queue.enqueue(
            NewJob(
                kind: "sync", payload: Data("inbox, again".utf8), id: "sync-2",
                uniqueKey: "sync:inbox", uniquePolicy: .replace))
        step()
        _ = try queue.enqueue(contentsOf: [
            NewJob(kind: "index", payload: Data("doc-1".utf8), id: "batch-1", priority: 1),
            NewJob(kind: "index", payload: Data("doc-2".utf8), id: "batch-2", priority: 2),
        ])
        step()
        _ = try queue.complete(try queue.claim(kind: "index")!)
        _ = try queue.enqueue(NewJob(kind: "flaky", payload: Data("retry me".utf8), id: "flaky-1"))
        step()
        _ = try queue.fail(try queue.claim(kind: "flaky")!, error: "timeout")
        _ = try queue.enqueue(NewJob(kind: "temp", id: "deleted-1"))
        try queue.delete("deleted-1")
        _ = try queue.reschedule("report-1", runAt: start.addingTimeInterval(4 * 3600))
        _ = try queue.enqueue(NewJob(kind: "export", payload: Data("csv".utf8), id: "export-1", maxAttempts: 1))
        step()
        _ = try queue.fail(try queue.claim(kind: "export")!, error: "disk full", terminal: true)
        _ = try queue.retry("export-1")
        _ = try queue.enqueue(NewJob(kind: "stuck", payload: Data("lost worker".utf8), id: "stuck-1"))
        _ = try queue.claim(kind: "stuck", leaseDuration: 60)
        clock.advance(by: 120)
        _ = try queue.reclaimExpiredLeases()
        step()
        let lease = try queue.claim(kind: "upload", leaseDuration: 3600)!
        step()
        _ = try queue.renew(lease, for: 86_400)
        _ = try queue.enqueue(
            NewJob(
                kind: "email", payload: Data(#"{"to":"bo@example.com"}"#.utf8), id: "email-2",
                priority: 3, delay: 60))

        try closeChecked(queue)

        // Job migrations (since format-1-migrations): two applied, then a snapshot holding the applied
        // number, then a third after it and jobs of a kind the build no longer runs abandoned.
        step()
        var migrating = configuration(clock: clock)
        migrating.migrations = migrations
        migrating.migrations.removeLast()
        queue = try JobQueue(directory: queuePath, configuration: migrating)
        step()
        _ = try queue.compact()
        step()
        _ = try queue.enqueue(NewJob(kind: "thumbnail", payload: Data("t-1".utf8), id: "thumb-1", priority: 1))
        _ = try queue.enqueue(NewJob(kind: "fax", payload: Data("+1 555 0100".utf8), id: "fax-1"))
        try closeChecked(queue)
        step()
        migrating.migrations = migrations
        migrating.knownKinds = [
            "email.v2", "upload", "report", "charge", "resize", "sync", "index", "item", "flaky",
            "export", "stuck", "thumbnail",
        ]
        queue = try JobQueue(directory: queuePath, configuration: migrating)
        step()
        _ = try queue.enqueue(
            NewJob(kind: "email.v2", payload: Data(#"{"to":["cy@example.com"]}"#.utf8), id: "email-3"))

        try closeChecked(queue)
        try generateOptionsAndMigrations(queuePath: queuePath, clock: clock)
        migrating.migrations = migrations + laterMigrations
        migrating.knownKinds = nil
        queue = try JobQueue(directory: queuePath, configuration: migrating)
        try generateParking(queue: queue, clock: clock)
        try generateStops(queue: queue, clock: clock)
        try generateKindControls(queue: queue, clock: clock)
        try generateResults(queue: queue, clock: clock)

        let expected = try FixtureState(queue: queue, clockAdvance: clock.now().timeIntervalSince(start))
        try closeChecked(queue)
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(expected).write(to: URL(fileURLWithPath: directory + "/expected.json"))
    }
}

extension FormatFixture {
    /// Job options and migrations as the merged engine writes them (since format-1-options): body version 3
    /// records (an enqueue with constraints, a chain, a periodic schedule, its next occurrence, restores with
    /// options in a snapshot), a chain cancelled by cascade, then after the snapshot a migration spanning several
    /// records (a plain job split, so `migration_remove` and `migrate_job`s creating jobs; a running job rewritten
    /// with its lease; a job with options rewritten in place), and a migration cut short by a crash (torn
    /// inside its last record, so abandoned) followed by other records, then run again to its commit.
    static func generateOptionsAndMigrations(queuePath: String, clock: ManualClock) throws {
        func step() { clock.advance(by: 1) }
        var options = configuration(clock: clock)
        options.migrations = migrations
        var queue = try JobQueue(directory: queuePath, configuration: options)
        step()
        // Jobs with options that a snapshot restores (opcode 16).
        _ = try queue.enqueue(
            NewJob(
                kind: "backup", payload: Data("photos".utf8), id: "backup-1",
                constraints: JobConstraints(
                    requiresUnmeteredNetwork: true, requiresCharging: true,
                    requiredConditions: ["ssid:home", "vpn"])))
        _ = try queue.enqueue(
            NewJob(
                kind: "digest", payload: Data("hourly".utf8), id: "digest-1",
                periodic: PeriodicSchedule(interval: 3600, flex: 600)))
        _ = try queue.enqueue(NewJob(kind: "archive", payload: Data("clip-2".utf8), id: "chain-4", priority: 2))
        _ = try queue.enqueue(NewJob(kind: "publish", id: "chain-5", dependencies: ["chain-4", "backup-1"]))
        _ = try queue.enqueue(NewJob(kind: "bundle", payload: Data("x,y,z".utf8), id: "bundle-1", priority: 4))
        step()
        _ = try queue.compact()
        // After the snapshot: enqueues with options (opcode 14), a chain cancelled by cascade (chain-1 fails
        // for good, so chain-2 and chain-3 are cancelled), a periodic job's next occurrence (opcode 15).
        step()
        _ = try queue.enqueue(NewJob(kind: "transcode", payload: Data("clip-1".utf8), id: "chain-1", priority: 9))
        _ = try queue.enqueue(NewJob(kind: "publish", id: "chain-2", dependencies: ["chain-1"]))
        _ = try queue.enqueue(
            NewJob(
                kind: "notify", id: "chain-3", dependencies: ["chain-2"],
                constraints: JobConstraints(requiresNetwork: true)))
        _ = try queue.enqueue(
            NewJob(
                kind: "digest", payload: Data("weekly".utf8), id: "digest-2",
                periodic: PeriodicSchedule(interval: 7 * 86_400)))
        step()
        guard let transcode = try queue.claim(kind: "transcode") else {
            throw FixtureError("no transcode job to claim")
        }
        step()
        _ = try queue.fail(transcode, error: "codec missing", terminal: true)
        clock.advance(by: 3600)
        guard let digest = try queue.claim(kind: "digest"), digest.job.id == "digest-1" else {
            throw FixtureError("digest-1's first occurrence is not claimable")
        }
        step()
        _ = try queue.complete(digest)
        try closeChecked(queue)

        // Migration 4, after the snapshot (never compacted away), in records of at most ~160 bytes.
        step()
        options.migrations = migrations + [laterMigrations[0]]
        options.migrationRecordBytes = 160
        queue = try JobQueue(directory: queuePath, configuration: options)
        step()
        _ = try queue.enqueue(NewJob(kind: "sync", payload: Data("outbox".utf8), id: "sync-3"))
        try closeChecked(queue)

        // Migration 5, cut short: the crash tore its last record (the one holding the commit).
        step()
        options.migrations = migrations + laterMigrations
        queue = try JobQueue(directory: queuePath, configuration: options)
        try closeChecked(queue)
        var commit: LogRecordSummary?
        for record in try LogInspector.records(directory: queuePath)
        where record.operations.contains(where: { $0.name == "migrationCommit" }) { commit = record }
        guard let commit, let last = try LogReplay.logFiles(in: queuePath, fileSystem: POSIXFileSystem()).last,
            commit.path == last.path
        else { throw FixtureError("migration 5's commit is not in the last file") }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: commit.path))
        try bytes.prefix(Int(commit.offset) + 30).write(to: URL(fileURLWithPath: commit.path))

        // Reopened by the build that knows migrations up to 4: the torn tail is cut, migration 5 abandoned.
        step()
        options.migrations = migrations + [laterMigrations[0]]
        queue = try JobQueue(directory: queuePath, configuration: options)
        guard queue.recoveryReport.abandonedMigrations == 1 else { throw FixtureError("migration 5 was not abandoned") }
        step()
        _ = try queue.enqueue(NewJob(kind: "thumbnail", payload: Data("t-2".utf8), id: "thumb-2"))
        try closeChecked(queue)
        step()
    }

    /// The generator's later migrations (since format-1-options).
    static let laterMigrations: [JobMigration] = [
        JobMigration(number: 4, name: "bundles split, uploads tagged") { job, payload in
            switch job.kind {
            case "bundle":
                return .split(
                    String(decoding: payload, as: UTF8.self).split(separator: ",").map {
                        .init(kind: "bundle.part", payload: Data($0.utf8))
                    })
            case "upload": return .rewrite(payload: Data("v4:".utf8) + payload)
            case "backup": return .rewrite(kind: "backup.v4")
            default: return .keep
            }
        },
        JobMigration(number: 5, name: "syncs and items tagged") { job, payload in
            switch job.kind {
            case "sync", "item", "thumbnail": return .rewrite(payload: Data("v5:".utf8) + payload)
            default: return .keep
            }
        },
    ]

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// A fixture's `MANIFEST`: one line per file of the fixture (but itself), sorted by path relative to the
/// fixture directory, `<path> <size> <FNV-1a 64 of the bytes, 16 hex digits>`. Checked in with the fixture,
/// it shows a fixture deleted and written again (a regenerated fixture differs at least in its instance id).
enum FixtureManifest {
    static let fileName = "MANIFEST"

    /// FNV-1a, 64 bits.
    static func fnv64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The manifest of the files now in `directory`.
    static func make(of directory: String) throws -> String {
        var lines: [String] = []
        let files = FileManager.default.enumerator(atPath: directory)
        while let path = files?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard path != fileName,
                FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path)))
            let hash = String(fnv64(bytes), radix: 16)
            lines.append("\(path) \(bytes.count) \(String(repeating: "0", count: 16 - hash.count) + hash)")
        }
        return lines.sorted().joined(separator: "\n") + "\n"
    }
}

extension FormatFixture {
    /// The job migrations of the generator's app (a fixture opens without them, as a tool does).
    static let migrations: [JobMigration] = [
        .renameKind("email", to: "email.v2", number: 1),
        JobMigration(number: 2, name: "index batches, charges in cents") { job, payload in
            switch job.kind {
            case "index":
                return .split([
                    .init(kind: "item", payload: payload + Data("#a".utf8)),
                    .init(kind: "item", payload: payload + Data("#b".utf8), uniqueKey: "item:\(job.id)"),
                ])
            case "charge": return .invalid(reason: "amounts are in cents since version 2")
            case "cleanup": return .drop
            default: return .keep
            }
        },
        JobMigration(number: 3, name: "email recipients as a list") { job, payload in
            guard job.kind == "email.v2" else { return job.kind == "flaky" ? .drop : .keep }
            return .rewrite(
                payload: Data(
                    String(decoding: payload, as: UTF8.self)
                        .replacingOccurrences(of: #""to":""#, with: #""to":[""#)
                        .replacingOccurrences(of: #".com""#, with: #".com"]"#).utf8))
        },
    ]
}

/// A queue's state as a fixture records it: every field of every job, and its payload bytes.
///
/// Where a payload lies on disk is left out: a later version may move it (a compaction at open,
/// say) without changing the job.
struct FixtureState: Codable, Equatable {
    /// Seconds the generator's ``ManualClock`` advanced from ``FormatFixture/start``: the test opens there,
    /// so that the running job's lease has not expired and open writes nothing.
    var clockAdvance: Double
    var nextSequence: UInt64
    var expiredJobs: UInt64
    var createdAt: Int64?
    /// The applied job migration, when above 0 (absent from fixtures written before job migrations).
    var appliedMigration: UInt64?
    /// Unique key → holder.
    var uniqueKeys: [String: String]
    /// Jobs in enqueue order.
    var jobs: [FixtureJob]
    /// The ids of the jobs a claim would take, in order, at a time when every enqueued job is due.
    var claimOrder: [String]
    /// Job id → its ``StopReason`` (absent from fixtures written before stop reasons, whose jobs
    /// this build gives the reasons their records imply: those fixtures do not say).
    var stopReasons: [String: String]?
    /// Paused kinds, rate limits and windows (absent from fixtures written before them, or with none).
    var kindControls: FixtureKindControls?
    /// Whether the jobs' `starts` are recorded (absent from fixtures written before starts, whose jobs this
    /// build gives the starts their claims imply: those fixtures do not say).
    var startsRecorded: Bool?

    struct FixtureJob: Codable, Equatable {
        var id: String
        var kind: String
        var state: String
        var attempts: Int32
        var maxAttempts: Int32
        var priority: Int32
        var sequence: UInt64
        var createdAt: Int64
        var runAt: Int64
        var nextRetryAt: Int64?
        var finishedAt: Int64?
        var uniqueKey: String?
        var lastError: String?
        var lease: FixtureLease?
        /// Base64.
        var payload: String
        /// Job options (absent from fixtures written before them, and for a job without them).
        var constraints: FixtureConstraints?
        /// The prerequisites not succeeded yet (kept after a cascade, naming the one that failed).
        var waitingFor: [String]?
        var periodic: FixturePeriodic?
        /// A parked job's key and deadline (absent from fixtures written before parking, and when not parked).
        var parkedKey: String?
        var parkDeadline: Int64?
        /// The job's checkpoint, base64 (absent before checkpoints, and for a job without one).
        var checkpoint: String?
        /// The job's tags, sorted (absent before tags, and for a job without any).
        var tags: [String]?
        /// The job's result, base64 (absent before results, and for a job without one).
        var result: String?
        /// Prerequisite id → the result the job kept of it, base64 (absent before results, and for none).
        var prerequisiteResults: [String: String]?
        /// How often the job started in its run (absent before starts, and when it equals `attempts`).
        var starts: Int32?
        /// The job's own retry schedule, as text (absent before retry schedules, and for a job without one).
        var retrySchedule: String?
    }

    struct FixtureConstraints: Codable, Equatable {
        var requiresNetwork: Bool
        var requiresUnmeteredNetwork: Bool
        var requiresCharging: Bool
        var requiresDeviceIdle: Bool
        var requiresBatteryNotLow: Bool
        var requiredConditions: [String]
    }

    struct FixturePeriodic: Codable, Equatable {
        var interval: Int64
        var flex: Int64
        var anchor: Int64
        var occurrence: Int64
    }

    struct FixtureLease: Codable, Equatable {
        var token: UInt64
        var claimedAt: Int64
        var expiresAt: Int64
        var monotonicExpiry: UInt64
        var bootID: String
    }

    init(queue: JobQueue, clockAdvance: Double) throws {
        let state = queue.engine.stateSnapshot
        self.clockAdvance = clockAdvance
        nextSequence = state.nextSequence
        expiredJobs = state.expiredJobs
        createdAt = state.summary?.createdAt
        appliedMigration = state.appliedMigration == 0 ? nil : state.appliedMigration
        uniqueKeys = state.uniqueKeys
        jobs = try state.jobs.values.sorted { $0.sequence < $1.sequence }.map { job in
            FixtureJob(
                id: job.id, kind: job.kind, state: job.state.rawValue, attempts: job.attempts,
                maxAttempts: job.maxAttempts, priority: job.priority, sequence: job.sequence,
                createdAt: job.createdAt, runAt: job.runAt, nextRetryAt: job.nextRetryAt,
                finishedAt: job.finishedAt, uniqueKey: job.uniqueKey, lastError: job.lastError,
                lease: job.lease.map {
                    FixtureLease(
                        token: $0.token, claimedAt: $0.claimedAt, expiresAt: $0.expiresAt,
                        monotonicExpiry: $0.monotonicExpiry, bootID: $0.bootID)
                },
                payload: try queue.payload(of: JobID(job.id)).base64EncodedString(),
                constraints: job.constraints.map {
                    FixtureConstraints(
                        requiresNetwork: $0.requiresNetwork, requiresUnmeteredNetwork: $0.requiresUnmeteredNetwork,
                        requiresCharging: $0.requiresCharging, requiresDeviceIdle: $0.requiresDeviceIdle,
                        requiresBatteryNotLow: $0.requiresBatteryNotLow,
                        requiredConditions: $0.requiredConditions.sorted())
                },
                waitingFor: job.waitingFor.isEmpty ? nil : job.waitingFor,
                periodic: job.periodic.map {
                    FixturePeriodic(interval: $0.interval, flex: $0.flex, anchor: $0.anchor, occurrence: $0.occurrence)
                }, parkedKey: job.park?.key, parkDeadline: job.park?.deadline,
                checkpoint: job.checkpoint.map { Data($0).base64EncodedString() },
                tags: job.tags.isEmpty ? nil : job.tags,
                result: job.result.map { Data($0).base64EncodedString() },
                prerequisiteResults: job.prerequisiteResults.isEmpty
                    ? nil : job.prerequisiteResults.mapValues { Data($0).base64EncodedString() },
                starts: job.starts == job.attempts ? nil : job.starts,
                retrySchedule: job.retrySchedule.map { "\($0)" })
        }
        // The claim order of the jobs alone (the kinds' pauses and rate limits are `kindControls`).
        let late = Millis.from(Date(timeIntervalSince1970: 4_000_000_000))
        claimOrder = state.jobs.values
            .filter { QueueState.isClaimable($0, at: late, kind: nil, conditions: state.deviceConditions) }
            .sorted {
                QueueState.claimPrecedes(
                    priority: $0.priority, dueAt: $0.dueAt, sequence: $0.sequence, $1.priority, $1.dueAt, $1.sequence)
            }
            .map(\.id)
        let reasons = state.jobs.values.compactMap { job in job.lastStopReason.map { (job.id, $0.description) } }
        stopReasons = reasons.isEmpty ? nil : Dictionary(uniqueKeysWithValues: reasons)
        kindControls = FixtureKindControls(state.kindControls)
        startsRecorded = true
    }
}
