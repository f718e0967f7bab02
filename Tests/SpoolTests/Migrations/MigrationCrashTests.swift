import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A job migration spanning several records and log files, crashed at every I/O step of the open
/// that runs it: the recovered queue holds exactly the jobs before it or after it, never a mix.
@Suite(.blocking) struct MigrationCrashTests {
    /// Splits `batch` jobs, rewrites `upload` ones, drops `legacy`, invalidates `bad`.
    static let migration = JobMigration(number: 1, name: "v2") { job, payload in
        switch job.kind {
        case "batch":
            return .split(
                String(decoding: payload, as: UTF8.self).split(separator: ",").map {
                    .init(kind: "item", payload: Data($0.utf8))
                })
        case "upload": return .rewrite(kind: "upload.v2", payload: payload + Data(" v2".utf8))
        case "legacy": return .drop
        case "bad": return .invalid(reason: "unreadable")
        default: return .keep
        }
    }

    static func configuration(_ disk: SimulatedDisk, migrations: [JobMigration]) -> Configuration {
        var configuration = Configuration()
        configuration.clock = ManualClock()
        configuration.fileSystem = disk
        configuration.logFileSize = 400
        configuration.preallocationChunk = 4096
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        configuration.autoCompaction = nil
        configuration.migrations = migrations
        configuration.migrationRecordBytes = 150
        return configuration
    }

    /// The same queue every time, closed: jobs of every kind the migration treats, one running.
    static func setUp() throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        let queue = try JobQueue(directory: "/q", configuration: configuration(disk, migrations: []))
        let kinds = ["batch", "upload", "legacy", "bad", "other"]
        for index in 0..<10 {
            let kind = kinds[index % kinds.count]
            let payload = kind == "batch" ? "a\(index),b\(index),c\(index)" : "payload \(index)"
            _ = try queue.enqueue(
                NewJob(
                    kind: kind, payload: Data(payload.utf8), id: JobID("j\(index)"),
                    priority: index % 3, uniqueKey: index == 1 ? "u" : nil))
        }
        _ = try queue.claim(kind: "upload", leaseDuration: 3600)
        try closeChecked(queue)
        return disk
    }

    private static func jobs(_ queue: JobQueue) throws -> [String: String] {
        var result: [String: String] = [:]
        for job in try queue.jobs() {
            result[job.id.rawValue] =
                "\(job.kind) \(job.state) \(job.attempts) \(job.priority) \(job.lastError ?? "-") "
                + "\(job.uniqueKey ?? "-") \(job.finishedAt.map { "\($0.timeIntervalSince1970)" } ?? "-") "
                + String(decoding: try queue.payload(of: job.id), as: UTF8.self)
        }
        return result
    }

    @Test func everyCrashPointOfAMigrationRecoversBeforeOrAfter() throws {
        let dry = try Self.setUp()
        let plain = try JobQueue(directory: "/q", configuration: Self.configuration(dry.crashImage(), migrations: []))
        let before = try Self.jobs(plain)
        try closeChecked(plain)
        let start = dry.steps
        let migrated = try JobQueue(
            directory: "/q", configuration: Self.configuration(dry, migrations: [Self.migration]))
        let steps = dry.steps - start
        let after = try Self.jobs(migrated)
        #expect(migrated.appliedMigration == 1)
        try closeChecked(migrated)
        #expect(before != after && after.count == before.count + 4)
        var migrationRecords = 0
        var files = Set<String>()
        _ = try QueueDirectory(path: "/q", fileSystem: dry).inspect(mode: .strict) { path, _, _, operations in
            if operations.contains(where: { TransactionCodec.minimumBodyVersion(of: $0) == 4 }) {
                migrationRecords += 1
                files.insert(path)
            }
        }
        #expect(migrationRecords >= 4 && files.count >= 2, "the migration spans several records and files")

        var explored = 0
        var sawBefore = false
        var sawAfter = false
        var sawAbandoned = false
        for step in 1...steps {
            let disk = try Self.setUp()
            disk.crash(atStep: disk.steps + step)
            #expect(throws: SpoolError.self) {
                try JobQueue(directory: "/q", configuration: Self.configuration(disk, migrations: [Self.migration]))
            }
            var survivals: [[String: SimulatedDisk.Survival]] = [[:]]
            let pending = disk.pendingChanges
            var all: [String: SimulatedDisk.Survival] = [:]
            for file in pending { all[file.path] = .init(mask: .max, tear: .none) }
            survivals.append(all)
            if let last = pending.last {
                for pattern in survivalPatterns(for: last.changes, limit: 6) {
                    var survival = all
                    survival[last.path] = pattern
                    survivals.append(survival)
                }
            }
            for survival in survivals {
                let image = disk.crashImage(survival)
                // A build without the migration (a tool) sees the jobs exactly before or after it.
                let tool = try JobQueue(directory: "/q", configuration: Self.configuration(image, migrations: []))
                let state = try Self.jobs(tool)
                #expect(state == before || state == after, "crash at step \(step) of \(steps), \(survival)")
                #expect(tool.appliedMigration == (state == after ? 1 : 0))
                sawBefore = sawBefore || state == before
                sawAfter = sawAfter || state == after
                // Records of the migration were durable, its commit was not: the interesting case.
                sawAbandoned = sawAbandoned || tool.recoveryReport.abandonedMigrations > 0
                checkInvariants(tool.engine.stateSnapshot)
                try closeChecked(tool)
                // The app's build completes the migration, exactly once.
                let app = try JobQueue(
                    directory: "/q", configuration: Self.configuration(image, migrations: [Self.migration]))
                #expect(try Self.jobs(app) == after, "crash at step \(step) of \(steps), \(survival)")
                #expect(app.recoveryReport.appliedMigrations == (state == after ? [] : [1]))
                _ = try app.compact()
                try closeChecked(app)
                let compacted = try JobQueue(
                    directory: "/q", configuration: Self.configuration(image, migrations: [Self.migration]))
                #expect(try Self.jobs(compacted) == after)
                #expect(compacted.appliedMigration == 1 && compacted.recoveryReport.appliedMigrations.isEmpty)
                try closeChecked(compacted)
                explored += 1
            }
        }
        #expect(sawBefore && sawAfter && sawAbandoned)
        print("migration crash points: \(steps) I/O steps, \(explored) crash states")
    }

    /// The body of FORMAT.md's example: a migration with no step.
    @Test func theMigrationExampleOfTheFormatDocumentIsWhatThisBuildWrites() {
        let body = TransactionCodec.encode([
            PlannedOperation(.migrationBegin(number: 1, at: 1_800_000_000_000)),
            PlannedOperation(.migrationCommit(number: 1)),
        ])
        #expect(body == [0x04, 0x02, 0x14, 0x01, 0x80, 0xc0, 0xe2, 0x85, 0xe3, 0x68, 0x17, 0x01])
    }
}
