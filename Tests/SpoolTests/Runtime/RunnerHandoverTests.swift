import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The runner's handover (issue 19 item 4): when a worker finishes a job, the outcome and the
/// claim of the next due job for the same slot go into one record with one sync.
@Suite(.blocking) struct RunnerHandoverTests {
    /// Runs `count` due jobs through a runner with one slot whose handler `outcome` decides;
    /// returns the data syncs and records the log made meanwhile, and the claim order.
    private func stream(
        count: Int, retryPolicy: RetryPolicy = .default, dependents: Bool = false,
        handler: @escaping @Sendable (JobContext) throws -> Void
    )
        async throws -> (
            syncs: Int, records: Int, claimed: [JobID], summaries: [LogRecordSummary], handlerTasks: Int
        )
    {
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 1), retryPolicy: retryPolicy)
        for index in 0..<count {
            try await fixture.queue.enqueue(NewJob(kind: "ping", id: JobID("j\(index)")))
        }
        try fixture.runner.register(kind: "ping") { _, context in try handler(context) }
        let before = fixture.queue.logStatistics
        // Every record so far (one log file, LSNs from 1), to skip when reading the log back.
        let recordsBefore = Int(fixture.queue.engine.writer.lastAppendedLSN)
        fixture.runner.start()
        await fixture.events.wait(for: count) { $0.isSuccess || $0.isFailure }
        await fixture.runner.stop(.finishRunning)
        let after = fixture.queue.logStatistics
        let handlerTasks = fixture.runner.statistics.handlerTasks
        let claimed = fixture.events.all.compactMap { event -> JobID? in
            if case .claimed(let id, _) = event { return id } else { return nil }
        }
        try fixture.queue.close()
        let summaries = try LogInspector.records(directory: fixture.temp.queue).dropFirst(recordsBefore)
        fixture.temp.cleanup()
        return (
            after.dataSyncs - before.dataSyncs, after.records - before.records, claimed, Array(summaries), handlerTasks
        )
    }

    @Test(.onThePool) func aSteadyStreamOfSuccessesTakesOneSyncPerJob() async throws {
        let count = 20
        let run = try await stream(count: count) { _ in }
        // The loop's first claim, then one record per job: its completion and the next claim
        // (the last one's claims nothing, since nothing is left). Two per job before.
        #expect(run.syncs == count + 1, "\(run.syncs) syncs for \(count) jobs")
        #expect(run.records == count + 1, "\(run.records) records for \(count) jobs")
        #expect(run.claimed == (0..<count).map { JobID("j\($0)") })
        let handovers = run.summaries.filter { $0.operations.map(\.name) == ["complete", "claim"] }
        #expect(handovers.count == count - 1, "\(run.summaries.map { $0.operations.map(\.name) })")
        for record in handovers { #expect(record.operations[0].jobID != record.operations[1].jobID) }
    }

    /// A handover carries the slot's task on to the job it claimed: a steady stream starts one
    /// task (the loop's first claim), not one per job, so no thread is woken to start a handler.
    @Test(.onThePool) func aSteadyStreamRunsItsHandlersInOneTask() async throws {
        let count = 20
        let run = try await stream(count: count) { _ in }
        #expect(run.claimed.count == count)
        #expect(run.handlerTasks == 1, "\(run.handlerTasks) handler tasks for \(count) jobs")
    }

    /// A task that was cancelled is not carried on (cancellation cannot be taken back): the job the
    /// handover claimed starts in a new task and sees no cancellation. Here the first handler cancels
    /// its own task and returns normally, so that its outcome still hands over.
    @Test(.onThePool) func aCancelledTaskIsNotCarriedOnToTheNextJob() async throws {
        let cancelledAtStart = Locked<[String: Bool]>([:])
        let run = try await stream(count: 3) { context in
            cancelledAtStart.withLock { $0[context.job.id.rawValue] = Task.isCancelled }
            if context.job.id == "j0" { withUnsafeCurrentTask { $0?.cancel() } }
        }
        #expect(cancelledAtStart.withLock { $0 } == ["j0": false, "j1": false, "j2": false])
        #expect(run.handlerTasks == 2, "the first task, then the one started for j1 (carried on to j2)")
        #expect(run.summaries.filter { $0.operations.map(\.name) == ["complete", "claim"] }.count == 2)
    }

    /// A carried-on attempt wakes the loop only when the loop could miss something: its deadline comes
    /// before the one the loop sleeps towards, the loop sleeps with none, or the job is of another kind
    /// than the finished one (which frees a place under that kind's limit).
    @Test func aCarriedOnAttemptWakesTheLoopOnlyWhenTheLoopCouldMissIt() {
        let bound = Date(timeIntervalSince1970: 1_000)
        func wakes(_ finished: String, _ next: String, at seconds: Double, bound: Date?) -> Bool {
            JobRunner.handoverWakesLoop(
                finishedKind: finished, nextKind: next, deadline: Date(timeIntervalSince1970: seconds),
                loopWakeBound: bound)
        }
        #expect(!wakes("a", "a", at: 1_000, bound: bound))
        #expect(!wakes("a", "a", at: 1_030, bound: bound))
        #expect(wakes("a", "a", at: 999, bound: bound))
        #expect(wakes("a", "a", at: 1_030, bound: nil))
        #expect(wakes("a", "b", at: 1_030, bound: bound))
    }

    @Test(.onThePool) func aSteadyStreamOfRetryableFailuresTakesOneSyncPerJob() async throws {
        let count = 12
        // Retried a minute later on a clock that does not move: each job fails once, and the next is claimed with it.
        let run = try await stream(count: count, retryPolicy: .table([60], maxAttempts: 2)) { _ in
            throw HandoverTestFailure()
        }
        #expect(run.syncs == count + 1, "\(run.syncs) syncs for \(count) jobs")
        #expect(run.summaries.filter { $0.operations.map(\.name) == ["fail", "claim"] }.count == count - 1)
    }

    /// A job that others wait for: its success may make a dependent due that outranks what was
    /// due before, so the outcome is recorded alone and the runner claims afterwards, as it did.
    @Test(.onThePool) func anOutcomeThatUnblocksAJobIsRecordedAloneAndTheUnblockedJobIsClaimedNext() async throws {
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 1))
        let first = try await fixture.queue.enqueue(NewJob(kind: "ping", id: "first"))
        let other = try await fixture.queue.enqueue(NewJob(kind: "ping", id: "other"))
        let dependent = try await fixture.queue.enqueue(
            NewJob(kind: "ping", id: "dependent", priority: 10, dependencies: [first]))
        try fixture.runner.register(kind: "ping") { _, _ in }
        fixture.runner.start()
        await fixture.events.wait(for: 3) { $0.isSuccess }
        let claimed = fixture.events.all.compactMap { event -> JobID? in
            if case .claimed(let id, _) = event { return id } else { return nil }
        }
        #expect(claimed == [first, dependent, other])
        await fixture.runner.stop(.finishRunning)
        try fixture.queue.close()
        let names = try LogInspector.records(directory: fixture.temp.queue).map { $0.operations.map(\.name) }
        #expect(names.contains(["complete"]), "the prerequisite's success is a record of its own: \(names)")
        #expect(names.contains(["complete", "claim"]), "the others hand over: \(names)")
        fixture.temp.cleanup()
    }

    /// A lone claim and complete from the app keep their own records.
    @Test func theAppsOwnClaimAndCompleteKeepTheirRecords() throws {
        let temp = TemporaryDirectory("spool-handover")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "ping"))
        try queue.enqueue(NewJob(kind: "ping"))
        let before = queue.logStatistics
        let lease = try #require(try queue.claim())
        try queue.complete(lease)
        #expect(queue.logStatistics.dataSyncs - before.dataSyncs == 2)
        #expect(try queue.jobs(state: .enqueued).count == 1, "completing claims nothing")
        try queue.close()
    }
}

private struct HandoverTestFailure: Error {}
