import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A compaction that expires jobs, crashed at every I/O step: the recovered
/// queue is exactly the state before it or the state after it.
@Suite(.blocking) struct CompactionCrashTests {
    private static func configuration(_ disk: SimulatedDisk) -> Configuration {
        var configuration = Configuration()
        configuration.clock = ManualClock()
        configuration.fileSystem = disk
        configuration.logFileSize = 400
        configuration.preallocationChunk = 4096
        configuration.retention = 10
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        return configuration
    }

    /// The same queue every time: finished jobs of which six are past the retention.
    private static func setUp(_ disk: SimulatedDisk) throws -> JobQueue {
        let configuration = configuration(disk)
        let clock = configuration.clock as! ManualClock
        let queue = try JobQueue(directory: "/q", configuration: configuration)
        for index in 0..<10 {
            _ = try queue.enqueue(
                NewJob(
                    kind: "k", payload: Data("payload \(index)".utf8), id: JobID("j\(index)"),
                    uniqueKey: index == 5 ? "u" : nil))
        }
        for _ in 0..<5 { _ = try queue.complete(try #require(try queue.claim())) }
        _ = try queue.cancel("j5")
        _ = try queue.fail(try #require(try queue.claim()), error: "x", terminal: true)
        clock.advance(by: 20)
        _ = try queue.enqueue(NewJob(kind: "k", payload: Data("late".utf8), id: "late", uniqueKey: "u"))
        return queue
    }

    private static func jobs(_ queue: JobQueue) throws -> [String: String] {
        var result: [String: String] = [:]
        for job in try queue.jobs() {
            result[job.id.rawValue] =
                "\(job.state) \(job.attempts) \(job.lastError ?? "-") \(job.uniqueKey ?? "-") "
                + String(decoding: try queue.payload(of: job.id), as: UTF8.self)
        }
        return result
    }

    @Test func everyCrashPointOfACompactionRecoversBeforeOrAfter() throws {
        let dry = SimulatedDisk()
        let queue = try Self.setUp(dry)
        let before = try Self.jobs(queue)
        let start = dry.steps
        #expect(try queue.compact().jobsExpired == 6)
        let after = try Self.jobs(queue)
        let steps = dry.steps - start
        try closeChecked(queue)
        #expect(before.count == 11 && after.count == 5)
        var explored = 0
        var sawBefore = false
        var sawAfter = false
        for step in 1...steps {
            let disk = SimulatedDisk()
            let crashing = try Self.setUp(disk)
            disk.crash(atStep: disk.steps + step)
            #expect(throws: SpoolError.self) { try crashing.compact() }
            let pending = disk.pendingChanges
            for keep in [false, true] {
                var survival: [String: SimulatedDisk.Survival] = [:]
                if keep { for file in pending { survival[file.path] = .init(mask: .max, tear: .none) } }
                let image = disk.crashImage(survival)
                let recovered = try JobQueue(directory: "/q", configuration: Self.configuration(image))
                let state = try Self.jobs(recovered)
                #expect(state == before || state == after, "crash at step \(step) of \(steps), unsynced kept: \(keep)")
                sawBefore = sawBefore || state == before
                sawAfter = sawAfter || state == after
                #expect(recovered.history.expiredJobs == (state == after ? 6 : 0))
                checkInvariants(recovered.engine.stateSnapshot)
                #expect(try image.contentsOfDirectory(at: "/q").allSatisfy { !$0.hasSuffix(".tmp") })
                // It takes new work and compacts again.
                _ = try recovered.enqueue(NewJob(kind: "k", id: "new"))
                _ = try recovered.compact()
                try closeChecked(recovered)
                explored += 1
            }
        }
        #expect(explored == 2 * steps)
        #expect(sawBefore && sawAfter)
        print("compaction crash points: \(steps) I/O steps, \(explored) crash states")
    }
}
