import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `compact()` rewrites the log as a snapshot that recreates every job exactly.
@Suite(.blocking) struct CompactionTests {
    private func configuration(_ clock: ManualClock) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.logFileSize = 4096
        configuration.preallocationChunk = 4096
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        configuration.retryPolicy = .table([5, 10], maxAttempts: 3)
        return configuration
    }

    private func logSequences(_ directory: String) throws -> [UInt64] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .compactMap(QueueDirectoryLayout.logSequence(fromFileName:)).sorted()
    }

    /// A mixed workload: every state, leases, deadlines, unique keys, errors, deletes.
    private func populate(_ queue: JobQueue, clock: ManualClock, count: Int) throws -> [JobID: Data] {
        var payloads: [JobID: Data] = [:]
        for index in 0..<count {
            let payload = Data("job \(index) ".utf8 + Array(repeating: UInt8(index % 200), count: index % 70))
            let id = try queue.enqueue(
                NewJob(
                    kind: index % 2 == 0 ? "a" : "b", payload: payload, priority: index % 3,
                    delay: Double(index % 4), uniqueKey: index % 5 == 0 ? "key-\(index)" : nil))
            payloads[id] = payload
            clock.advance(by: 2)
            switch index % 6 {
            case 0: if let lease = try queue.claim() { _ = try queue.complete(lease) }
            case 1: if let lease = try queue.claim() { _ = try queue.fail(lease, error: "boom \(index)") }
            case 2: _ = try queue.claim()  // stays running, lease kept
            case 3: _ = try queue.cancel(id)
            case 4: if let lease = try queue.claim() { _ = try queue.fail(lease, error: "fatal", terminal: true) }
            default:
                if index % 12 == 5 {
                    try queue.delete(id)
                    payloads[id] = nil
                }
            }
        }
        return payloads
    }

    @Test func compactionThenReopenGivesTheSameStateAndPayloads() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        let payloads = try populate(queue, clock: clock, count: 150)
        let filesBefore = try logSequences(temporary.queue)
        #expect(filesBefore.count > 3)
        let before = queue.engine.stateSnapshot
        let report = try queue.compact()
        #expect(report.jobsWritten == before.jobs.count)
        #expect(report.jobsExpired == 0)
        #expect(report.bytesAfter > 0 && report.bytesAfter < report.bytesBefore)
        #expect(try logSequences(temporary.queue) == [report.snapshotFile, report.snapshotFile + 1])
        let after = queue.engine.stateSnapshot
        // The same jobs, with payloads now in the snapshot.
        #expect(withoutPayloadLocations(after) == withoutPayloadLocations(before))
        #expect(after.jobs.values.allSatisfy { $0.payload.fileSequence == report.snapshotFile })
        for (id, payload) in payloads { #expect(try queue.payload(of: id) == payload) }
        // Work goes on after the snapshot, and the order of enqueue is kept.
        let late = try queue.enqueue(NewJob(kind: "a", payload: Data("late".utf8)))
        #expect(queue.engine.stateSnapshot.jobs[late.rawValue]!.sequence == before.nextSequence)
        let live = queue.engine.stateSnapshot
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
        #expect(reopened.engine.stateSnapshot.nextSequence == live.nextSequence)
        #expect(reopened.engine.stateSnapshot.uniqueKeys == live.uniqueKeys)
        for (id, payload) in payloads { #expect(try reopened.payload(of: id) == payload) }
        #expect(try reopened.payload(of: late) == Data("late".utf8))
        checkInvariants(reopened.engine.stateSnapshot)
        #expect(reopened.history.createdAt != nil)
        // Claims come in the same order as they would have without compaction.
        var expected = live
        let expectedID = expected.bestReadyJob(at: Millis.from(clock.now()), kind: "a")?.id
        #expect(expectedID != nil)
        #expect(try reopened.claim(kind: "a")?.job.id.rawValue == expectedID)
    }

    @Test func compactingAgainReplacesTheFormerSnapshot() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        var payloads = try populate(queue, clock: clock, count: 40)
        let first = try queue.compact()
        payloads.merge(try populate(queue, clock: clock, count: 40).filter { $0.key.rawValue != "" }) { $1 }
        let second = try queue.compact()
        #expect(second.snapshotFile > first.snapshotFile + 1)
        #expect(try logSequences(temporary.queue) == [second.snapshotFile, second.snapshotFile + 1])
        let third = try queue.compact()
        #expect(try logSequences(temporary.queue) == [third.snapshotFile, third.snapshotFile + 1])
        let live = queue.engine.stateSnapshot
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
        for (id, payload) in payloads where live.jobs[id.rawValue] != nil {
            #expect(try reopened.payload(of: id) == payload)
        }
    }

    @Test func retentionDropsOldSucceededAndCancelledJobsOnly() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var configuration = configuration(clock)
        configuration.retention = 3600
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        #expect(queue.history == QueueHistory(createdAt: nil, expiredJobs: 0))
        let start = clock.now()
        let done = try queue.enqueue(NewJob(kind: "k", id: "done"))
        _ = try queue.complete(try #require(try queue.claim()))
        let cancelled = try queue.enqueue(NewJob(kind: "k", id: "cancelled", uniqueKey: "u"))
        _ = try queue.cancel(cancelled)
        let failed = try queue.enqueue(NewJob(kind: "k", id: "failed"))
        _ = try queue.fail(try #require(try queue.claim()), error: "x", terminal: true)
        clock.advance(by: 3000)
        let recent = try queue.enqueue(NewJob(kind: "k", id: "recent"))
        _ = try queue.complete(try #require(try queue.claim()))
        let waiting = try queue.enqueue(NewJob(kind: "k", id: "waiting", uniqueKey: "u"))
        clock.advance(by: 1000)  // "done" and "cancelled" finished 4000 s ago, "recent" 1000 s ago

        let report = try queue.compact()
        #expect(report.jobsExpired == 2)
        #expect(try queue.job(done) == nil)
        #expect(try queue.job(cancelled) == nil)
        #expect(try queue.job(failed)?.state == .failed)
        #expect(try queue.job(recent)?.state == .succeeded)
        #expect(try queue.job(waiting)?.state == .enqueued)
        #expect(queue.history.expiredJobs == 2)
        #expect(queue.history.createdAt == start)
        let live = queue.engine.stateSnapshot
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration)
        defer { try? closeChecked(reopened) }
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
        #expect(reopened.history == QueueHistory(createdAt: start, expiredJobs: 2))
        // A later compaction adds to the count.
        clock.advance(by: 7200)
        #expect(try reopened.compact().jobsExpired == 1)
        #expect(reopened.history.expiredJobs == 3)
    }

    @Test func anUnfinishedSnapshotIsDeletedAtOpen() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try populate(queue, clock: clock, count: 10)
        let live = queue.engine.stateSnapshot
        try closeChecked(queue)
        let leftover = temporary.queue + "/" + QueueDirectoryLayout.snapshotTempName(sequence: 9)
        try writeFile(leftover, [1, 2, 3])
        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
    }

    /// Writers and claimers go on while compactions run; the result replays to the same state.
    @Test func callsGoOnDuringCompaction() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var configuration = configuration(clock)
        configuration.logFileSize = 2048
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                if worker == 0 {
                    for _ in 0..<6 { _ = try queue.compact() }
                    return
                }
                for index in 0..<150 {
                    let payload = Data("w\(worker)-\(index)".utf8)
                    let id = try queue.enqueue(NewJob(kind: "k", payload: payload, id: JobID("w\(worker)-\(index)")))
                    if index % 2 == 0, let lease = try queue.claim() {
                        if lease.payload != Data(lease.job.id.rawValue.utf8) {
                            failures.withLock { $0.append("payload of \(lease.job.id)") }
                        }
                        _ = try queue.complete(lease)
                    }
                    if try queue.payload(of: id) != payload { failures.withLock { $0.append("payload of \(id)") } }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(failures.withLock { $0.isEmpty }, "\(failures.withLock { $0.prefix(3) })")
        let live = queue.engine.stateSnapshot
        #expect(live.jobs.count == 450)
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration)
        defer { try? closeChecked(reopened) }
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(live))
        for job in live.jobs.values { #expect(try reopened.payload(of: JobID(job.id)) == Data(job.id.utf8)) }
    }

    private func withoutPayloadLocations(_ state: QueueState) -> [String: StoredJob] {
        comparableJobs(state).mapValues { job in
            var copy = job
            copy.payload = PayloadLocation(
                fileSequence: 0, offset: 0, length: job.payload.length,
                checksum: job.payload.checksum)
            return copy
        }
    }
}
