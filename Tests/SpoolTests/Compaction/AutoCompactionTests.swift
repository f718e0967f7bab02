import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `Configuration.autoCompaction`: the queue compacts itself in the background
/// when obsolete records pile up, never twice at once, and recovers from a failed one.
@Suite(.blocking) struct AutoCompactionTests {
    private func configuration(
        _ clock: ManualClock, retention: TimeInterval = 0,
        auto: AutoCompaction? = AutoCompaction(minimumLogBytes: 16 << 10, obsoleteRatio: 1)
    ) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.logFileSize = 4096
        configuration.preallocationChunk = 4096
        configuration.retention = retention
        configuration.autoCompaction = auto
        // A job claimed when a test stops stays running across a reopen, so states compare equal.
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        return configuration
    }

    /// The sum of the sizes of the files in the queue directory.
    private func diskBytes(_ directory: String) throws -> Int64 {
        try FileManager.default.contentsOfDirectory(atPath: directory).reduce(0) { sum, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            return sum + ((attributes[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// Enqueue, claim and complete `count` jobs, keeping about `live` jobs waiting;
    /// calls `sample` after every 50 jobs.
    private func churn(
        _ queue: JobQueue, clock: ManualClock, count: Int, live: Int,
        sample: () throws -> Void = {}
    ) throws {
        for index in 0..<count {
            try queue.enqueue(NewJob(kind: "churn", payload: Data(repeating: UInt8(index % 256), count: 40)))
            clock.advance(by: 0.01)
            if index >= live, let lease = try queue.claim() { _ = try queue.complete(lease) }
            if index % 50 == 49 { try sample() }
        }
    }

    @Test func churnKeepsTheLogBoundedAndReopenGivesTheSameState() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        var peak: Int64 = 0
        try churn(queue, clock: clock, count: 3000, live: 20) {
            #expect(queue.engine.waitForBackgroundCompaction() == nil)
            peak = max(peak, try diskBytes(temporary.queue))
        }
        #expect(queue.engine.waitForBackgroundCompaction() == nil)
        // 3,000 jobs write ~600 KiB of records; the log stays near its 16 KiB threshold
        // (plus a preallocated 4 KiB file or two and a snapshot of ~20 jobs).
        #expect(peak < 64 << 10, "peak \(peak) bytes")
        #expect(queue.engine.backgroundCompactionCount > 5)
        #expect(queue.history.expiredJobs > 2500)
        let live = queue.engine.stateSnapshot
        checkInvariants(live)
        #expect(live.enqueuedCount == 20)
        #expect(live.jobs.count < 100)  // plus the jobs finished since the last compaction
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
        #expect(reopened.engine.stateSnapshot.nextSequence == live.nextSequence)
        #expect(
            reopened.history
                == QueueHistory(
                    createdAt: live.summary.map { Millis.date($0.createdAt) },
                    expiredJobs: Int(live.expiredJobs)))
        for job in live.jobs.values {
            #expect(try reopened.payload(of: JobID(job.id)).count == 40)
        }
    }

    @Test func nilTurnsItOff() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, auto: nil))
        defer { try? closeChecked(queue) }
        try churn(queue, clock: clock, count: 1000, live: 20)
        #expect(queue.engine.waitForBackgroundCompaction() == nil)
        #expect(queue.engine.backgroundCompactionCount == 0)
        #expect(queue.history.createdAt == nil)
        #expect(try diskBytes(temporary.queue) > 128 << 10)
    }

    @Test func liveJobsAloneNeverTriggerIt() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(queue) }
        // Only enqueues: every record is live, so nothing is obsolete.
        for index in 0..<1500 {
            try queue.enqueue(NewJob(kind: "live", payload: Data(repeating: UInt8(index % 256), count: 40)))
        }
        #expect(queue.engine.waitForBackgroundCompaction() == nil)
        #expect(queue.engine.backgroundCompactionCount == 0)
    }

    @Test func transitionRecordsWeighMoreThanTheirBytesTheSameLiveAndAfterReplay() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        // Far from the trigger: the count alone is under test here.
        let quiet = AutoCompaction(minimumLogBytes: 1 << 30, obsoleteRatio: 0.5)
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, auto: quiet))
        try queue.enqueue(contentsOf: (0..<10).map { NewJob(kind: "batch", id: JobID("b-\($0)")) })
        for index in 0..<5 {
            try queue.enqueue(NewJob(kind: "one", id: JobID("one-\(index)")))
            let lease = try #require(try queue.claim(kind: "one"))
            try queue.complete(lease)
        }
        // Six enqueue records count their bytes only; five claims and five completions weigh more.
        let bytes = queue.engine.currentLogBytes
        #expect(queue.engine.lock.withLock { queue.engine.compactionTrigger.recordsSinceSnapshot } == 10)
        #expect(queue.engine.lock.withLock { queue.engine.replayCost } == bytes + 10 * AutoCompaction.bytesPerRecord)
        try closeChecked(queue)
        // Replay counts what the live path counted.
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, auto: quiet))
        #expect(queue.engine.lock.withLock { queue.engine.compactionTrigger.recordsSinceSnapshot } == 10)
        // A compaction replaces them all; a transition after it counts again, here and after replay.
        _ = try queue.compact()
        #expect(queue.engine.lock.withLock { queue.engine.compactionTrigger.recordsSinceSnapshot } == 0)
        let lease = try #require(try queue.claim())
        try queue.complete(lease)
        #expect(queue.engine.lock.withLock { queue.engine.compactionTrigger.recordsSinceSnapshot } == 2)
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, auto: quiet))
        #expect(queue.engine.lock.withLock { queue.engine.compactionTrigger.recordsSinceSnapshot } == 2)
        try closeChecked(queue)
    }

    @Test func retainedFinishedJobsDoNotMakeItCompactOverAndOver() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        // Finished jobs are kept a day: a compaction cannot drop them, so each one must wait
        // until the log has doubled since the previous one.
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, retention: 86_400))
        defer { try? closeChecked(queue) }
        try churn(queue, clock: clock, count: 3000, live: 20) { queue.engine.waitForBackgroundCompaction() }
        #expect(queue.engine.waitForBackgroundCompaction() == nil)
        #expect(queue.engine.backgroundCompactionCount >= 1)
        // Each snapshot holds every job, so the next compaction waits until the log's replay cost
        // has grown by the snapshot's size (ratio 1). A job's three records cost at most about
        // four times its bytes in a snapshot (their bytes plus `bytesPerRecord` each), so the jobs
        // grow by at least a quarter between compactions: the count grows with the logarithm of
        // the jobs (the first compaction comes at about 40 jobs, the 16 KiB minimum, and log base
        // 1.25 of 3,000 / 40 is 19; measured 17), never with the 9,000 records.
        #expect(queue.engine.backgroundCompactionCount <= 24)
        #expect(queue.history.expiredJobs == 0)
        #expect(queue.engine.stateSnapshot.jobs.count == 3000)
    }

    @Test func aFailedBackgroundCompactionRefusesWritesUntilReopen() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let fileSystem = FaultyFileSystem()
        var faulty = configuration(clock)
        faulty.fileSystem = fileSystem
        fileSystem.inject(.snapshotWrite(EIO))
        let queue = try JobQueue(directory: temporary.queue, configuration: faulty)
        var acknowledged: [JobID] = []
        var refused: SpoolError?
        for index in 0..<5000 {
            do {
                acknowledged.append(try queue.enqueue(NewJob(kind: "churn", payload: Data(repeating: 1, count: 40))))
                if index >= 20, let lease = try queue.claim() { _ = try queue.complete(lease) }
            } catch let error as SpoolError {
                refused = error
                break
            }
            if queue.engine.waitForBackgroundCompaction() != nil { break }
        }
        let failure = try #require(queue.engine.waitForBackgroundCompaction())
        #expect(failure.errno == EIO)
        if let refused { #expect(refused.code == .needsReopen || refused.errno == EIO) }
        expectError(.needsReopen) { try queue.enqueue(NewJob(kind: "late", payload: Data())) }
        let live = queue.engine.stateSnapshot
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        checkInvariants(reopened.engine.stateSnapshot)
        // The snapshot never got its name: open replays the log files as they were.
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
        for id in acknowledged.suffix(20) { #expect(try reopened.job(id) != nil) }
        try reopened.enqueue(NewJob(kind: "after", payload: Data()))
    }
}
