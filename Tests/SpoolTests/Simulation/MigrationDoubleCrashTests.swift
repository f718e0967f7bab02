import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A crash during a migration, then a second crash during its re-run, then opens:
/// the jobs are as before or as after the migration, and live equals replay.
@Suite(.blocking) struct MigrationDoubleCrashTests {
    // The queue and configuration of ``MigrationCrashTests``.
    private static func configuration(_ disk: SimulatedDisk, migrations: [JobMigration]) -> Configuration {
        MigrationCrashTests.configuration(disk, migrations: migrations)
    }

    private static func setUp() throws -> SimulatedDisk { try MigrationCrashTests.setUp() }

    private static func jobs(_ queue: JobQueue) throws -> [String: String] {
        var result: [String: String] = [:]
        for job in queue.engine.stateSnapshot.jobs.values {
            result[job.id] =
                "\(job.kind) \(job.state) \(job.attempts) \(job.maxAttempts) \(job.priority) \(job.sequence) "
                + "\(job.lastError ?? "-") \(job.uniqueKey ?? "-") \(job.finishedAt.map(String.init) ?? "-") "
                + "\(job.runAt) \(job.nextRetryAt.map(String.init) ?? "-") \(job.lease == nil ? "-" : "leased") "
                + String(decoding: try queue.payload(of: JobID(job.id)), as: UTF8.self)
        }
        return result
    }

    /// Every surviving pending write (all of them) after each crash: the log holds two cut-short
    /// migrations before the third open completes it.
    @Test func aSecondCrashDuringTheReRunStillRecoversBeforeOrAfter() throws {
        let migration = MigrationCrashTests.migration
        let dry = try Self.setUp()
        let plain = try JobQueue(directory: "/q", configuration: Self.configuration(dry.crashImage(), migrations: []))
        let before = try Self.jobs(plain)
        try closeChecked(plain)
        let start = dry.steps
        let migrated = try JobQueue(directory: "/q", configuration: Self.configuration(dry, migrations: [migration]))
        let steps = dry.steps - start
        let after = try Self.jobs(migrated)
        try closeChecked(migrated)

        var explored = 0
        var maximumBegins = 0
        for first in stride(from: 1, through: steps, by: 1) {
            let disk = try Self.setUp()
            disk.crash(atStep: disk.steps + first)
            _ = try? JobQueue(directory: "/q", configuration: Self.configuration(disk, migrations: [migration]))
            var all: [String: SimulatedDisk.Survival] = [:]
            for file in disk.pendingChanges { all[file.path] = .init(mask: .max, tear: .none) }
            let once = disk.crashImage(all)
            for second in stride(from: 1, through: steps + 4, by: 3) {
                let image = once.crashImage()
                image.crash(atStep: image.steps + second)
                _ = try? JobQueue(directory: "/q", configuration: Self.configuration(image, migrations: [migration]))
                var survive: [String: SimulatedDisk.Survival] = [:]
                for file in image.pendingChanges { survive[file.path] = .init(mask: .max, tear: .none) }
                let twice = image.crashImage(survive)
                var begins = 0
                _ = try QueueDirectory(path: "/q", fileSystem: twice).inspect(mode: .strict) { _, _, _, operations in
                    begins +=
                        operations.filter { if case .migrationBegin = $0 { return true } else { return false } }.count
                }
                maximumBegins = max(maximumBegins, begins)
                let tool = try JobQueue(directory: "/q", configuration: Self.configuration(twice, migrations: []))
                let state = try Self.jobs(tool)
                #expect(state == before || state == after, "crashes at \(first), \(second)")
                if state != before && state != after && explored < 1 {
                    for key in Set(state.keys).union(before.keys).union(after.keys).sorted()
                    where state[key] != before[key] || state[key] != after[key] {
                        print(
                            "DIFF \(key)\n  state  \(state[key] ?? "nil")\n  before \(before[key] ?? "nil")\n  after  \(after[key] ?? "nil")"
                        )
                    }
                }
                checkInvariants(tool.engine.stateSnapshot)
                try closeChecked(tool)
                let app = try JobQueue(
                    directory: "/q", configuration: Self.configuration(twice, migrations: [migration]))
                #expect(try Self.jobs(app) == after, "crashes at \(first), \(second)")
                let live = comparableJobs(app.engine.stateSnapshot)
                try closeChecked(app)
                let replayed = try JobQueue(
                    directory: "/q", configuration: Self.configuration(twice, migrations: [migration]))
                #expect(
                    comparableJobs(replayed.engine.stateSnapshot) == live,
                    "live and replay differ at \(first), \(second)")
                try closeChecked(replayed)
                explored += 1
            }
        }
        #expect(maximumBegins >= 2, "some log holds two migrations cut short")
        print("max begins \(maximumBegins); double crash states: \(explored), migration steps \(steps)")
    }
}
