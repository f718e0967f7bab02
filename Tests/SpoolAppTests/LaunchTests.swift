import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import SpoolTestSupport
import Testing

@Suite(.blocking) struct LaunchTests {
    /// The pending requests follow the queue: a request left by an earlier process that nothing needs is
    /// cancelled; each group of needs gets its request, never more than the app's identifiers (so never
    /// past iOS's 1 refresh + 10 processing, which the fake scheduler enforces); a stream of jobs that asks
    /// for nothing new submits nothing; once no job is left, every request is cancelled.
    @Test(.timeLimit(.minutes(1)), .onThePool) func requestsFollowTheQueueWithinTheLimits() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let now = folder.clock.now()
        let scheduler = TestScheduler(leftPending: [
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

        // A fourth group of needs, due between the two: three processing hints for two identifiers, so the
        // latest (power, +7200) merges into the next latest (network and power, +5400): the merged request
        // begins at +5400 and needs what both need, external power only.
        var both = NewJob(kind: "backup", delay: 5400)
        both.constraints.requiresNetwork = true
        both.constraints.requiresCharging = true
        try await setup.queue.enqueue(both)
        await events.until { scheduler.pending["app.process.2"]?.earliestBeginDate == now + 5400 }
        #expect(
            scheduler.pending["app.process.2"]
                == LaunchRequest(
                    identifier: "app.process.2", kind: .processing, earliestBeginDate: now + 5400,
                    requiresExternalPower: true))
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
    @Test(.timeLimit(.minutes(1)), .onThePool) func aLaunchCompletesWithSuccessWhenIdle() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
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
    /// completes, without success; the request the system dropped when it launched is asked for again, as
    /// the job is still due.
    @Test(.timeLimit(.minutes(1)), .onThePool) func anExpiredLaunchGivesTheAttemptsBack() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        let (never, keepOpen) = AsyncStream.makeStream(of: Void.self)
        let setup = try Setup(folder, scheduler: scheduler) { runner, _ in
            try runner.register(kind: "export") { _, _ in
                for await _ in never {}
            }
        }
        var events = EventReader(setup.work)
        let id = try await setup.queue.enqueue(NewJob(kind: "export"))
        await events.until { scheduler.pending["app.refresh"] != nil }
        let task = scheduler.launch("app.refresh")
        #expect(scheduler.pending["app.refresh"] == nil)
        try await setup.runnerEvents.wait(for: .claimed(id, attempt: 1), timeout: hangGuard)
        task.expire()
        #expect(await task.completion() == false)
        let job = try #require(try setup.queue.job(id))
        #expect(job.state == .enqueued && job.attempts == 0 && job.lastStopReason == .systemTimeExpired)
        #expect(task.completed == [false])
        #expect(!setup.runner.isRunning)
        await events.until { scheduler.pending["app.refresh"] != nil }
        keepOpen.finish()
        try await setup.close()
    }

    /// A launch that expires while the work at launch (reading the device's first reports) still runs
    /// completes without success and never starts the runner, then or later.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aLaunchExpiredBeforeItsWorkBeganNeverStartsTheRunner() async throws
    {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        // The first report comes only after the conditions' bound: the work at launch waits for the bound.
        let network = TestPathMonitor(NetworkPath(status: .satisfied), firstReportAfter: 3_600, on: folder.clock)
        let second = try Setup(folder, scheduler: scheduler, network: network)
        let task = scheduler.launch("app.refresh")
        task.expire()
        folder.clock.advance(by: BackgroundWork.conditionsReportBound)
        #expect(await task.completion() == false)
        #expect(!second.runner.isRunning)
        // After the work at launch, nothing may start the runner.
        var later = EventReader(second.work)
        try await second.queue.enqueue(NewJob(kind: "other"))
        await later.until(seenWhere: { if case .requestSubmitted = $0 { true } else { false } })
        #expect(!second.runner.isRunning)
        try await second.close()
    }

    /// Two launches at once share the runner: each completes once, with success, and once both have, the
    /// runner is stopped (the app is in the background).
    @Test(.timeLimit(.minutes(1)), .onThePool) func twoLaunchesAtOnceLeaveTheRunnerStopped() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        let setup = try Setup(folder, scheduler: scheduler) { runner, _ in
            try runner.register(kind: "sync") { _, _ in }
        }
        for round in 0..<5 {
            _ = try await setup.queue.enqueue(
                contentsOf: (0..<4).map { NewJob(kind: "sync", id: JobID("r\(round)-\($0)")) })
            let refresh = scheduler.launch("app.refresh")
            let process = scheduler.launch("app.process.1")
            #expect(await refresh.completion() == true)
            #expect(await process.completion() == true)
            #expect(refresh.completed == [true] && process.completed == [true])
            #expect(!setup.runner.isRunning, "round \(round): the runner runs after both launches completed")
        }
        try await setup.close()
    }

    /// The app goes to the background and comes back before the stop has finished: the last transition
    /// wins, and the runner runs.
    @Test(.timeLimit(.minutes(1)), .onThePool) func theLastTransitionWins() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let (never, keepOpen) = AsyncStream.makeStream(of: Void.self)
        let cancelled = Gate()
        let release = Gate()
        let setup = try Setup(folder, scheduler: TestScheduler()) { runner, _ in
            try runner.register(kind: "export") { _, _ in
                for await _ in never {}
                // Cancelled by the stop, which waits for this handler: it holds the stop until released.
                cancelled.open()
                await release.passed()
            }
        }
        let id = try await setup.queue.enqueue(NewJob(kind: "export"))
        await setup.work.appWillEnterForeground()
        try await setup.runnerEvents.wait(for: .claimed(id, attempt: 1), timeout: hangGuard)
        let background = Task { await setup.work.appDidEnterBackground() }
        await cancelled.passed()
        // The stop is under way: the app comes back before it has finished.
        let foreground = Task { await setup.work.appWillEnterForeground() }
        release.open()
        await foreground.value
        await background.value
        #expect(setup.runner.isRunning, "the app is in the foreground, its runner stopped")
        keepOpen.finish()
        try await setup.close()
    }

    /// An identifier the scheduler refuses to register (missing from the app's permitted identifiers) is a
    /// typed error at launch, not a silent absence of launches.
    @Test func aRefusedRegistrationIsAnError() throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler(refusing: ["app.refresh"])
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
        let scheduler = TestScheduler()
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
