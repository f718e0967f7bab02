import Dispatch
import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Group commit with a sync held open: who writes which group, and what every
/// waiting caller learns. Each test body blocks (on semaphores, on threads), so
/// it runs on a thread of its own, never on Swift's cooperative pool, where the
/// async callers it starts must run.
@Suite(.blocking) struct GroupCommitTests {
    /// How the callers that wait behind the leader call the queue.
    enum Callers: CaseIterable, Sendable { case blockingThreads, asyncTasks }

    private struct Setup {
        let temp = TemporaryDirectory()
        let fileSystem = FaultyFileSystem()
        let queue: JobQueue
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        init() throws {
            var configuration = testConfiguration()
            configuration.fileSystem = fileSystem
            queue = try JobQueue(directory: temp.queue, configuration: configuration)
            // The first file chunk is reserved now, so that the syncs below are the data syncs counted.
            try queue.enqueue(NewJob(kind: "k", id: "warm-up"))
        }
    }

    /// Enqueues under way; `outcomes` holds the errno of each failure, nil for a success.
    private struct Enqueues {
        let outcomes = Locked<[Int32?]>([])
        let done = DispatchGroup()

        /// Waits for every enqueue to return.
        func callAsFunction() -> [Int32?] {
            done.wait()
            return outcomes.withLock { $0 }
        }

        /// Whether every enqueue returned within `seconds`.
        func returned(within seconds: Double) -> Bool {
            done.wait(timeout: .now() + seconds) == .success
        }
    }

    /// Starts `count` enqueues of ids `prefix-0…` that run concurrently.
    private func startEnqueues(_ count: Int, prefix: String, on queue: JobQueue, as callers: Callers) -> Enqueues {
        let enqueues = Enqueues()
        @Sendable func record(_ error: (any Error)?) {
            enqueues.outcomes.withLock { $0.append(error.map { ($0 as? SpoolError)?.errno ?? -1 }) }
            enqueues.done.leave()
        }
        for index in 0..<count {
            enqueues.done.enter()
            let job = NewJob(kind: "k", id: JobID("\(prefix)-\(index)"))
            switch callers {
            case .blockingThreads:
                Thread {
                    do {
                        try queue.enqueue(job)
                        record(nil)
                    } catch { record(error) }
                }.start()
            case .asyncTasks:
                // On threads of their own: a caller that waits for a thread of Swift's pool (kept busy
                // by other suites' blocking tests) would never reach the writer before the hang guard.
                let enqueue: @Sendable () async -> Void = {
                    do {
                        try await queue.enqueue(job)
                        record(nil)
                    } catch { record(error) }
                }
                if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                    Task(executorPreference: ThreadPerJobExecutor()) { await enqueue() }
                } else {
                    Task.detached { await enqueue() }
                }
            }
        }
        return enqueues
    }

    /// Starts a leader whose sync is held, then 20 followers that wait behind it; the
    /// sync after the held one (the followers') meets `secondSync`.
    private func startLeaderAndFollowers(
        _ setup: Setup, _ callers: Callers,
        secondSync: FaultyFileSystem.Fault
    ) throws -> (Enqueues, Enqueues) {
        setup.fileSystem.inject(.holdSync(entered: setup.entered, release: setup.release))
        setup.fileSystem.inject(secondSync)
        let leader = startEnqueues(1, prefix: "leader", on: setup.queue, as: .blockingThreads)
        try waitUntilHeld(setup)
        let followers = startEnqueues(20, prefix: "follower", on: setup.queue, as: callers)
        waitForWaiters(20, on: setup.queue)
        return (leader, followers)
    }

    /// Waits (bounded) until the leader's sync is held.
    private func waitUntilHeld(_ setup: Setup) throws {
        if setup.entered.wait(timeout: .now() + hangGuard) == .timedOut {
            setup.release.signal()
            throw SpoolError(.ioFailure, "the leader's sync was not held")
        }
    }

    /// Waits (bounded) until `count` callers wait behind the held sync; the writer signals each one.
    private func waitForWaiters(_ count: Int, on queue: JobQueue) {
        #expect(queue.engine.writer.waitForWaiters(count, until: .now() + hangGuard), "\(count) callers never waited")
    }

    @Test(.onThePool, arguments: Callers.allCases)
    func callersThatWaitedThroughASyncShareTheNextOneWhichTheLeaderDoesNotWaitFor(callers: Callers) async throws {
        try await onOwnThread { try sharedSync(callers) }
    }

    private func sharedSync(_ callers: Callers) throws {
        let setup = try Setup()
        defer { setup.temp.cleanup() }
        let queue = setup.queue
        let syncsBefore = queue.logStatistics.dataSyncs
        let recordsBefore = queue.logStatistics.records
        let secondEntered = DispatchSemaphore(value: 0)
        let secondRelease = DispatchSemaphore(value: 0)
        let (leader, followers) = try startLeaderAndFollowers(
            setup, callers, secondSync: .holdSync(entered: secondEntered, release: secondRelease))
        // Only the leader's record was in the held sync: none of the others may have returned.
        #expect(queue.logStatistics.records == recordsBefore)
        setup.release.signal()

        // The second sync (the followers') is held now: the leader has returned all the same.
        #expect(secondEntered.wait(timeout: .now() + hangGuard) == .success)
        let leaderReturnedDuringIt = leader.returned(within: hangGuard)
        let followersReturnedDuringIt = followers.returned(within: 0.05)
        secondRelease.signal()
        #expect(leaderReturnedDuringIt, "the leader waited for a sync that does not cover its record")
        #expect(!followersReturnedDuringIt)
        #expect(leader() == [nil])
        let outcomes = followers()
        #expect(outcomes.count == 20 && outcomes.allSatisfy { $0 == nil }, "\(outcomes)")
        // Two syncs: the leader's, then one (by the flusher) for all 20 that waited through it.
        #expect(queue.logStatistics.dataSyncs - syncsBefore == 2)
        try closeChecked(queue)
        let reopened = try JobQueue(directory: setup.temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count == 22)
        try closeChecked(reopened)
    }

    @Test(.onThePool, arguments: Callers.allCases)
    func aFailedSyncOfTheFlusherFailsEveryCallerItCoveredAndNotTheLeader(callers: Callers) async throws {
        try await onOwnThread { try failedSharedSync(callers) }
    }

    private func failedSharedSync(_ callers: Callers) throws {
        let setup = try Setup()
        defer { setup.temp.cleanup() }
        let queue = setup.queue
        let (leader, followers) = try startLeaderAndFollowers(setup, callers, secondSync: .sync(EIO))
        setup.release.signal()

        #expect(leader() == [nil])
        let outcomes = followers()
        #expect(outcomes.count == 20 && outcomes.allSatisfy { $0 == EIO }, "\(outcomes)")
        expectError(.needsReopen) { try queue.enqueue(NewJob(kind: "k", id: "after")) }
        try? queue.close()
        let reopened = try JobQueue(directory: setup.temp.queue, configuration: testConfiguration())
        let ids = Set(try reopened.jobs().map(\.id.rawValue))
        #expect(ids.contains("leader-0") && ids.contains("warm-up"))
        try closeChecked(reopened)
    }

    /// The benchmark's acknowledgements per sync divide by these counts: a roll-over (or a
    /// compaction) that started a new file must not start them again from zero.
    @Test func logStatisticsCountEveryFileSinceTheQueueOpened() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.logFileSize = 4096
        configuration.autoCompaction = nil
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        defer { try? closeChecked(queue) }
        let before = queue.logStatistics
        for index in 0..<100 { try queue.enqueue(NewJob(kind: "k", id: JobID("job-\(index)"))) }
        let after = queue.logStatistics
        #expect(queue.engine.writer.fileSequence >= 2, "the enqueues should have rolled the log over")
        #expect(after.records - before.records == 100)
        // One sync per enqueue, one caller at a time.
        #expect(after.dataSyncs - before.dataSyncs == 100)
        #expect(after.dataSyncNanoseconds > before.dataSyncNanoseconds)
    }

    @Test(.onThePool) func aSuspendedCallerIsAcknowledgedWhileAnotherCallersExecutorIsBusy() async throws {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        try await onOwnThread { try busyExecutor() }
    }

    /// A task resumes on its own executor, which may be busy (a task executor it prefers, an
    /// event loop, a low priority): other callers of its group must not wait for it to run.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    private func busyExecutor() throws {
        let setup = try Setup()
        defer { setup.temp.cleanup() }
        let queue = setup.queue
        setup.fileSystem.inject(.holdSync(entered: setup.entered, release: setup.release))
        let leader = startEnqueues(1, prefix: "leader", on: queue, as: .blockingThreads)
        try waitUntilHeld(setup)
        // The first caller of the next group runs on an executor of its own.
        let executor = HoldableTaskExecutor()
        let first = Enqueues()
        first.done.enter()
        Task(executorPreference: executor) {
            let error: (any Error)?
            do {
                try await queue.enqueue(NewJob(kind: "k", id: "first"))
                error = nil
            } catch let caught { error = caught }
            first.outcomes.withLock { $0.append(error.map { ($0 as? SpoolError)?.errno ?? -1 }) }
            first.done.leave()
        }
        waitForWaiters(1, on: queue)
        let others = startEnqueues(5, prefix: "other", on: queue, as: .asyncTasks)
        waitForWaiters(6, on: queue)
        // Its executor is busy (a long synchronous job) when the group's sync completes.
        let busy = DispatchSemaphore(value: 0)
        executor.queue.async { busy.wait() }
        setup.release.signal()

        let othersReturnedWhileBusy = others.returned(within: hangGuard)
        busy.signal()
        #expect(othersReturnedWhileBusy, "callers whose records are durable waited for another caller's executor")
        #expect(leader() == [nil])
        let outcomes = others()
        #expect(outcomes.count == 5 && outcomes.allSatisfy { $0 == nil }, "\(outcomes)")
        #expect(first() == [nil])
        try closeChecked(queue)
    }

    /// What the test runs while the flusher's sync (the followers') is held.
    enum DuringFlush: CaseIterable, Sendable { case close, rollOver }

    @Test(arguments: DuringFlush.allCases, Callers.allCases)
    func aCloseOrRollOverDuringTheFlushersSyncWaitsForItAndLosesNothing(during: DuringFlush, callers: Callers)
        async throws
    {
        try await onOwnThread { try endDuringFlush(during, callers) }
    }

    private func endDuringFlush(_ during: DuringFlush, _ callers: Callers) throws {
        let setup = try Setup()
        defer { setup.temp.cleanup() }
        let queue = setup.queue
        let secondEntered = DispatchSemaphore(value: 0)
        let secondRelease = DispatchSemaphore(value: 0)
        let (leader, followers) = try startLeaderAndFollowers(
            setup, callers, secondSync: .holdSync(entered: secondEntered, release: secondRelease))
        setup.release.signal()
        #expect(secondEntered.wait(timeout: .now() + hangGuard) == .success)
        #expect(leader() == [nil])

        // The flusher holds the writer's file in its sync: the close (or the retiring writer) must wait for it.
        let ended = Locked<(any Error)??>(nil)
        let endedGroup = DispatchGroup()
        endedGroup.enter()
        Thread {
            let result = Result { () throws -> Void in
                switch during {
                case .close: try closeChecked(queue)
                case .rollOver: try queue.engine.lockedRollOver()
                }
            }
            ended.withLock { if case .failure(let error) = result { $0 = .some(error) } else { $0 = .some(nil) } }
            endedGroup.leave()
        }.start()
        // The 20 followers still wait in the held sync, and now the closing caller too.
        waitForWaiters(21, on: queue)
        let endedDuringTheSync = endedGroup.wait(timeout: .now() + 0.05) == .success
        secondRelease.signal()
        #expect(!endedDuringTheSync, "\(during) returned while the flusher's sync was under way")
        #expect(endedGroup.wait(timeout: .now() + hangGuard) == .success)
        let error = ended.withLock { $0 }
        #expect(error.map { $0 == nil } == true, "\(String(describing: error))")
        let outcomes = followers()
        #expect(outcomes.count == 20 && outcomes.allSatisfy { $0 == nil }, "\(outcomes)")
        if during == .rollOver {
            try queue.enqueue(NewJob(kind: "k", id: "after-the-roll-over"))
            try closeChecked(queue)
        }
        let reopened = try JobQueue(directory: setup.temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().count == (during == .rollOver ? 23 : 22))
        try closeChecked(reopened)
    }
}
