import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import SpoolTestSupport
import Testing

/// iOS's rules for an app's background work, each as a property the fakes check: every permitted identifier
/// registered at launch, once, whatever happens to the queue; a launch completed within a bound of its
/// expiry; the life cycle followed without forwards, background time ended; a launch that reads the device
/// before it judges idle; logs that keep paths private.
@Suite(.blocking) struct RegistrationTests {
    /// The identifiers are registered before the queue is opened, and stay served when it cannot be: a
    /// launch then completes at once saying why, nothing is submitted that no queue could serve, and a
    /// queue attached later serves the next launch.
    @Test(.timeLimit(.minutes(1)), .onThePool) func registrationComesFirstAndALaunchWithoutAQueueCompletes()
        async throws
    {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        let sink = TestEventSink()
        let work = try BackgroundWork(
            options: .init(launches: identifiers), system: .init(scheduler: scheduler, log: sink))
        #expect(scheduler.registered == allIdentifiers)
        // The queue's folder is a file: the open fails, as on a locked device or a full disk.
        try FileManager.default.createDirectory(at: folder.folder, withIntermediateDirectories: true)
        try Data().write(to: folder.directory)
        #expect(throws: SpoolError.self) {
            try work.attach {
                let queue = try folder.open()
                return (queue, try JobRunner(queue: queue))
            }
        }
        let launch = scheduler.launch("app.process.1")
        #expect(await launch.completion() == false)
        #expect(launch.completed == [false])
        #expect(sink.events.contains { if case .queueUnavailable = $0 { true } else { false } })
        #expect(sink.events.contains { if case .launchWithoutQueue("app.process.1", _) = $0 { true } else { false } })
        #expect(scheduler.submitted == 0, "a request was submitted with no queue to serve it")

        // The folder is usable again: a later attach serves the next launch.
        try FileManager.default.removeItem(at: folder.directory)
        let queue = try folder.open()
        let runner = try JobRunner(queue: queue)
        try runner.register(kind: "sync") { _, _ in }
        let id = try await queue.enqueue(NewJob(kind: "sync"))
        try work.attach(queue: queue, runner: runner)
        #expect(await scheduler.launch("app.refresh").completion() == true)
        #expect(try queue.job(id)?.state == .succeeded)
        await work.close()
        try queue.close()
    }

    /// A launch that comes before the queue is attached waits for it, then runs what is due.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aLaunchBeforeTheAttachWaitsForTheQueue() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        let work = try BackgroundWork(options: .init(launches: identifiers), system: .init(scheduler: scheduler))
        let queue = try folder.open()
        let runner = try JobRunner(queue: queue)
        try runner.register(kind: "sync") { _, _ in }
        let id = try await queue.enqueue(NewJob(kind: "sync"))
        let launch = scheduler.launch("app.refresh")
        #expect(launch.completed.isEmpty)
        try work.attach(queue: queue, runner: runner)
        #expect(await launch.completion() == true)
        #expect(try queue.job(id)?.state == .succeeded)
        await work.close()
        try queue.close()
    }

    /// Identifiers the app's `Info.plist` does not permit are found before any is registered: none is.
    @Test func identifiersAreCheckedBeforeAnyIsRegistered() throws {
        let scheduler = TestScheduler(permitted: ["app.refresh", "app.process.1"])
        #expect(throws: SpoolError.self) {
            _ = try BackgroundWork(options: .init(launches: identifiers), system: .init(scheduler: scheduler))
        }
        #expect(scheduler.registered.isEmpty)
        // A wildcard entry permits what it prefixes.
        let wildcard = TestScheduler(permitted: ["app.*"])
        _ = try BackgroundWork(options: .init(launches: identifiers), system: .init(scheduler: wildcard))
        #expect(wildcard.registered == allIdentifiers)
    }

    /// A second set-up in one process is a typed error, never a second registration (which iOS punishes by
    /// killing the app: the fake records an issue); the first keeps serving launches, and one refused part
    /// way leaves the identifiers registered before it served.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aSecondSetUpIsAnErrorNotASecondRegistration() async throws {
        let scheduler = TestScheduler()
        let first = try BackgroundWork(options: .init(launches: identifiers), system: .init(scheduler: scheduler))
        #expect {
            _ = try BackgroundWork(options: .init(launches: identifiers), system: .init(scheduler: scheduler))
        } throws: { ($0 as? SpoolError)?.code == .invalidState }
        await first.close()
        // After close, launches complete at once; still no second set-up.
        #expect(await scheduler.launch("app.refresh").completion() == false)
        #expect(throws: SpoolError.self) {
            _ = try BackgroundWork(options: .init(launches: identifiers), system: .init(scheduler: scheduler))
        }

        let refusing = TestScheduler(refusing: ["app.process.2"])
        let sink = TestEventSink()
        #expect(throws: SpoolError.self) {
            _ = try BackgroundWork(
                options: .init(launches: identifiers), system: .init(scheduler: refusing, log: sink))
        }
        #expect(refusing.registered == ["app.refresh", "app.process.1"])
        #expect(await refusing.launch("app.process.1").completion() == false)
        #expect(sink.events.contains { if case .launchWithoutQueue("app.process.1", _) = $0 { true } else { false } })
    }
}

@Suite struct ExpiryTests {
    /// An expired launch is completed within `expiryCompletionBound` on the queue's clock although its
    /// handler ignores cancellation (and so the give-back's wait for it never ends in time): the attempt is
    /// given back all the same, and the handler's late end changes nothing.
    @Test(.timeLimit(.minutes(1))) func anExpiredLaunchCompletesWithinTheBoundWhateverItsHandlerDoes() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        let stuck = Gate()
        let setup = try Setup(folder, scheduler: scheduler) { runner, _ in
            try runner.register(kind: "stuck") { _, _ in await stuck.passed() }
        }
        let id = try await setup.queue.enqueue(NewJob(kind: "stuck"))
        let launch = scheduler.launch("app.refresh")
        try await setup.runnerEvents.wait(for: .claimed(id, attempt: 1), timeout: hangGuard)
        launch.expire()
        // The bound's deadline is read when the expiry comes: past it, its sleep returns at once.
        folder.clock.advance(by: BackgroundWork.expiryCompletionBound)
        #expect(await launch.completion() == false)
        // The attempt was given back (before the give-back waited for the handler).
        var changes = setup.queue.changes().makeAsyncIterator()
        while try setup.queue.job(id)?.state != .enqueued { _ = await changes.next() }
        #expect(try setup.queue.job(id)?.attempts == 0)
        stuck.open()
        await setup.runner.stop(.releaseRunning)
        #expect(launch.completed == [false])
        try await setup.close()
    }
}

extension ExpiryTests {
    /// A launch whose give-back cannot finish (it waits behind the work at launch, here the device's first
    /// report, which comes only when the conditions' bound has passed) is completed when the expiry bound
    /// has passed on the queue's clock, not when the give-back ends.
    @Test(.timeLimit(.minutes(1))) func anExpiredLaunchCompletesWithinTheBoundWhateverTheGiveBackWaitsFor()
        async throws
    {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        // The path monitor's first report comes long after the conditions' bound: the work at launch ends
        // only when that bound (1 s on the clock) has passed.
        let network = TestPathMonitor(NetworkPath(status: .satisfied), firstReportAfter: 3_600, on: folder.clock)
        let second = try Setup(folder, scheduler: scheduler, network: network)
        let launch = scheduler.launch("app.refresh")
        launch.expire()
        folder.clock.advance(by: BackgroundWork.expiryCompletionBound)
        #expect(BackgroundWork.expiryCompletionBound < BackgroundWork.conditionsReportBound)
        #expect(await launch.completion() == false)
        try await second.close()
        #expect(launch.completed == [false])
    }
}

@Suite struct LifecycleFollowingTests {
    /// Without any forward from the app: becoming active runs the runner; entering the background asks for
    /// background time, gives the running attempt back, stops the runner and ends the time.
    @Test(.timeLimit(.minutes(1))) func theLifeCycleIsFollowedWithoutForwards() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let lifecycle = TestLifecycle()
        let time = TestBackgroundTime()
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        let setup = try Setup(folder, scheduler: TestScheduler(), lifecycle: lifecycle, backgroundTime: time) {
            runner, _ in
            try runner.register(kind: "sync") { _, _ in }
            // Runs until its attempt is cancelled (the iteration ends with the handler's task).
            try runner.register(kind: "long") { _, _ in for await _ in never {} }
        }
        var events = EventReader(setup.work)
        lifecycle.post(.becameActive)
        let id = try await setup.queue.enqueue(NewJob(kind: "sync"))
        try await setup.runnerEvents.wait(for: .succeeded(id), timeout: hangGuard)
        let long = try await setup.queue.enqueue(NewJob(kind: "long"))
        try await setup.runnerEvents.wait(for: .claimed(long, attempt: 1), timeout: hangGuard)

        lifecycle.post(.enteredBackground)
        #expect(time.begun == 1, "no background time was asked for on entering the background")
        await events.until(seen: .enteredBackground)
        #expect(time.outstanding == 0 && !setup.runner.isRunning)
        #expect(try setup.queue.job(long)?.state == .enqueued && setup.queue.job(long)?.attempts == 0)
        try await setup.close()
    }

    /// The background time's expiry ends it at once, before the attempts are given back (a handler that
    /// ignores cancellation holds the give-back); the give-back's own end does not end it again.
    @Test(.timeLimit(.minutes(1))) func expiredBackgroundTimeIsEndedAtOnce() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let lifecycle = TestLifecycle()
        let time = TestBackgroundTime()
        let stuck = Gate()
        let setup = try Setup(folder, scheduler: TestScheduler(), lifecycle: lifecycle, backgroundTime: time) {
            runner, _ in try runner.register(kind: "stuck") { _, _ in await stuck.passed() }
        }
        var events = EventReader(setup.work)
        lifecycle.post(.becameActive)
        let id = try await setup.queue.enqueue(NewJob(kind: "stuck"))
        try await setup.runnerEvents.wait(for: .claimed(id, attempt: 1), timeout: hangGuard)
        lifecycle.post(.enteredBackground)
        time.expire()  // records an issue unless the grant was ended before the handler returned
        #expect(time.outstanding == 0)
        await events.until(seen: .backgroundTimeExpired)
        stuck.open()
        await events.until(seen: .enteredBackground)
        #expect(!setup.runner.isRunning)
        try await setup.close()
        #expect(time.begun == 1)
    }
}

@Suite struct FirstReportTests {
    /// A cold launch waits for the monitors' first reports before its runner judges idle: a job that needs
    /// the network and a battery not low runs in the launch, whether the reports come 0, 5, 50 or 500 ms
    /// after the monitors start (asynchronously, on the queue's clock).
    @Test(.timeLimit(.minutes(1)), arguments: [0.0, 0.005, 0.05, 0.5])
    func aLaunchReadsTheDeviceBeforeItJudgesIdle(delay: Double) async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = TestScheduler()
        let network = TestPathMonitor(NetworkPath(status: .satisfied), firstReportAfter: delay, on: folder.clock)
        let power = TestPowerMonitor(lowPowerMode: false, firstReportAfter: delay, on: folder.clock)
        // The job is in the queue before the app starts, as at a cold launch.
        var job = NewJob(kind: "upload")
        job.constraints.requiresNetwork = true
        job.constraints.requiresBatteryNotLow = true
        let id = try {
            let queue = try folder.open()
            defer { try? queue.close() }
            return try queue.enqueue(job)
        }()
        let setup = try Setup(folder, scheduler: scheduler, network: network, power: power) { runner, _ in
            try runner.register(kind: "upload") { _, _ in }
        }
        let launch = scheduler.launch("app.process.1")
        // The monitors' first reports are due at +delay on the clock (the launch's bound is +1 s): a report's
        // task that sleeps later than this returns at once.
        folder.clock.advance(by: delay)
        #expect(await launch.completion() == true)
        #expect(try setup.queue.job(id)?.state == .succeeded, "the launch judged idle before reading the device")
        try await setup.close()
    }

    /// A path that requires a connection is a network that can be tried.
    @Test(.timeLimit(.minutes(1))) func aPathThatRequiresAConnectionCountsAsAvailable() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let setup = try Setup(
            folder, scheduler: TestScheduler(), network: TestPathMonitor(NetworkPath(status: .requiresConnection)))
        #expect(setup.work.conditions?.current.isNetworkAvailable == true)
        #expect(NetworkPath(status: .requiresConnection).isAvailable && !NetworkPath(status: .unsatisfied).isAvailable)
        try await setup.close()
    }
}

@Suite(.blocking) struct LogPrivacyTests {
    /// What a log shows of any event holds no error text, so no path or URL: those are in the redacted part.
    @Test func errorTextsAreNeverShown() {
        let secret = "/private/var/mobile/Containers/Data/Application/photo.jpg https://example.com/u?token=1"
        let request = LaunchRequest(identifier: "app.process.1", kind: .processing, earliestBeginDate: Date())
        let events: [BackgroundWorkEvent] = [
            .requestRefused(request, error: secret), .schedulingFailed(error: secret),
            .launchWithoutQueue(identifier: "app.refresh", reason: secret), .queueUnavailable(error: secret),
            .transferFinished(key: "transfer:s:1:1", outcome: .retry(secret)),
            .transferFinished(key: "transfer:s:1:1", outcome: .fail(secret)),
            .transferRecordFailed(key: "transfer:s:1:1", error: secret),
        ]
        for event in events {
            let line = event.logLine
            #expect(!line.shown.contains("photo.jpg") && !line.shown.contains("example.com"), "\(event)")
            #expect(line.redacted == secret, "\(event)")
        }
        #expect(BackgroundWorkEvent.launchStarted(identifier: "app.refresh").logLine.redacted == nil)
    }
}

/// Every identifier the tests register.
let allIdentifiers: Set<String> = ["app.refresh", "app.process.1", "app.process.2"]
