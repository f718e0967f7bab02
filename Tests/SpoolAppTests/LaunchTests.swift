import Foundation
import Spool
import SpoolApp
import Testing

@Suite struct LaunchTests {
    /// The pending requests follow the queue: a request left by an earlier process that nothing needs is
    /// cancelled; each group of needs gets its request, never more than the app's identifiers (so never
    /// past iOS's 1 refresh + 10 processing, which the fake scheduler enforces); a stream of jobs that asks
    /// for nothing new submits nothing; once no job is left, every request is cancelled.
    @Test(.timeLimit(.minutes(1))) func requestsFollowTheQueueWithinTheLimits() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let now = folder.clock.now()
        let scheduler = FakeScheduler(leftPending: [
            LaunchRequest(identifier: "app.process.2", kind: .processing, earliestBeginDate: now)
        ])
        let setup = try Setup(folder, scheduler: scheduler)
        var events = EventReader(setup.work)
        // The first update, at start: nothing is needed, so the earlier process's request goes.
        await events.until { scheduler.pending.isEmpty }

        let plain = try await setup.queue.enqueue(NewJob(kind: "sync"))
        await events.until { scheduler.pending.count == 1 }
        #expect(
            scheduler.pending["app.refresh"]
                == LaunchRequest(identifier: "app.refresh", kind: .refresh, earliestBeginDate: now),
            "\(scheduler.pending) \(events.seen)")

        var network = NewJob(kind: "upload", delay: 3600)
        network.constraints.requiresNetwork = true
        try await setup.queue.enqueue(network)
        var power = NewJob(kind: "index", delay: 7200)
        power.constraints.requiresCharging = true
        try await setup.queue.enqueue(power)
        await events.until { scheduler.pending.count == 3 }
        #expect(
            scheduler.pending["app.process.1"]
                == LaunchRequest(
                    identifier: "app.process.1", kind: .processing, earliestBeginDate: now + 3600,
                    requiresNetworkConnectivity: true))
        #expect(
            scheduler.pending["app.process.2"]
                == LaunchRequest(
                    identifier: "app.process.2", kind: .processing, earliestBeginDate: now + 7200,
                    requiresExternalPower: true))

        // A fourth group of needs: three processing hints for two identifiers, merged (the latest two
        // into one needing what both need: external power).
        var both = NewJob(kind: "backup", delay: 9000)
        both.constraints.requiresNetwork = true
        both.constraints.requiresCharging = true
        try await setup.queue.enqueue(both)
        await events.until {
            scheduler.pending["app.process.2"]?.requiresNetworkConnectivity == false
                && scheduler.pending["app.process.2"]?.earliestBeginDate == now + 7200
        }
        #expect(scheduler.pending.count == 3)

        // A stream of plain jobs due now asks for nothing new: after it, a network job due earlier than the
        // first moves one request, and that is the one submission the stream and it made.
        let submitted = scheduler.submitted
        for _ in 0..<50 { try await setup.queue.enqueue(NewJob(kind: "sync")) }
        var earlier = NewJob(kind: "upload", delay: 1800)
        earlier.constraints.requiresNetwork = true
        try await setup.queue.enqueue(earlier)
        await events.until { scheduler.pending["app.process.1"]?.earliestBeginDate == now + 1800 }
        #expect(scheduler.submitted == submitted + 1, "a stream of jobs of the same needs resubmitted its request")

        // No job left: every request is cancelled.
        for job in try setup.queue.jobs() where !job.state.isFinished { try await setup.queue.cancel(job.id) }
        _ = plain
        await events.until { scheduler.pending.isEmpty }
        try await setup.close()
    }

    /// A launch runs what is due and completes with success once the runner is idle; in the background
    /// the runner is stopped before the launch completes, and the launch completes once.
    @Test(.timeLimit(.minutes(1))) func aLaunchCompletesWithSuccessWhenIdle() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = FakeScheduler()
        let setup = try Setup(folder, scheduler: scheduler) { runner, _ in
            try runner.register(kind: "sync") { _, _ in }
        }
        let ids = try await setup.queue.enqueue(contentsOf: [
            NewJob(kind: "sync"), NewJob(kind: "sync"), NewJob(kind: "sync"),
        ])
        let task = scheduler.launch("app.refresh")
        #expect(await task.completion() == true)
        for id in ids { #expect(try setup.queue.job(id)?.state == .succeeded) }
        #expect(!setup.runner.isRunning, "the runner still runs in the background after the launch completed")
        #expect(task.completed == [true])
        try await setup.close()
    }

    /// When the launch's time runs out, the running attempt is given back (not spent) before the launch
    /// completes, without success.
    @Test(.timeLimit(.minutes(1))) func anExpiredLaunchGivesTheAttemptsBack() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = FakeScheduler()
        let (never, keepOpen) = AsyncStream.makeStream(of: Void.self)
        let setup = try Setup(folder, scheduler: scheduler) { runner, _ in
            try runner.register(kind: "export") { _, _ in
                for await _ in never {}
            }
        }
        let id = try await setup.queue.enqueue(NewJob(kind: "export"))
        let task = scheduler.launch("app.process.1")
        try await setup.runnerEvents.wait(for: .claimed(id, attempt: 1), timeout: 30)
        task.expire()
        #expect(await task.completion() == false)
        let job = try #require(try setup.queue.job(id))
        #expect(job.state == .enqueued && job.attempts == 0 && job.lastStopReason == .systemTimeExpired)
        #expect(task.completed == [false])
        #expect(!setup.runner.isRunning)
        keepOpen.finish()
        try await setup.close()
    }

    /// An identifier the scheduler refuses to register (missing from the app's permitted identifiers) is a
    /// typed error at launch, not a silent absence of launches.
    @Test func aRefusedRegistrationIsAnError() throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = FakeScheduler()
        _ = scheduler.register(identifier: "app.refresh") { _ in }
        #expect(throws: SpoolError.self) { _ = try Setup(folder, scheduler: scheduler) }
    }
}

@Suite struct SuspensionTests {
    /// iOS kills a suspended process that holds, or waits for, a file lock in an App Group container
    /// (`0xdead10cc`). With a `.shared` queue, once a background launch has completed, and once the app
    /// has entered the background, this process holds no lock on any file of the queue and waits for none.
    @Test(.enabled(if: ProcLocks.isAvailable), .timeLimit(.minutes(1))) func noLockIsHeldOnceSuspendable() async throws
    {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = FakeScheduler()
        let setup = try Setup(folder, scheduler: scheduler, sharing: .shared) { runner, _ in
            try runner.register(kind: "sync") { _, _ in }
        }
        let pid = ProcessInfo.processInfo.processIdentifier
        for _ in 0..<3 {
            _ = try await setup.queue.enqueue(contentsOf: [NewJob(kind: "sync"), NewJob(kind: "sync")])
            #expect(await scheduler.launch("app.refresh").completion() == true)
            #expect(try ProcLocks.locks(of: pid, in: folder.directory.path).isEmpty, "a lock held after a launch")
        }
        await setup.work.appWillEnterForeground()
        try await setup.queue.enqueue(NewJob(kind: "sync"))
        await setup.runner.idle()
        await setup.work.appDidEnterBackground()
        #expect(try ProcLocks.locks(of: pid, in: folder.directory.path).isEmpty, "a lock held in the background")
        try await setup.close()
    }
}
