import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import SpoolTestSupport
import Testing

/// The uploads app's controls over its transfers (issue 44): cancel reaches the system's task, a retried job
/// never reuses a key, bytes are progress, the job's network constraints reach the request, and the server's
/// answer (its body, its `Retry-After`) reaches the job.
@Suite(.blocking) struct TransferControlTests {
    /// Starts job `id`'s upload in `setup` and returns its session and key.
    static func started(
        _ id: JobID, in setup: Setup, _ system: TestTransferSystem, events: inout EventReader, count: Int = 1
    ) async throws -> (TestTransferSession, String) {
        await events.until { system.session("app.transfers")?.started.count == count }
        let session = try #require(system.session("app.transfers"))
        let key = try #require(session.started.last)
        #expect(TransferKey(key)?.job == id)
        return (session, key)
    }

    /// Cancelling the job mid-transfer cancels the system's task; the report the cancelled task still makes
    /// changes nothing and is an event. The same goes for a producer's cancel by tag, once ingested.
    @Test(.timeLimit(.minutes(1)), .onThePool) func cancellingAJobCancelsItsTransfer() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let setup = try TransferTests.uploads(folder, transfers: system, sharing: .shared)
        var events = EventReader(setup.work)
        let id = try await setup.queue.enqueue(NewJob(kind: "upload", id: "u", tags: ["album"]))
        await setup.work.appWillEnterForeground()
        let (session, key) = try await Self.started(id, in: setup, system, events: &events)

        try await setup.queue.cancel(id)
        await events.until(seen: .transferCancelled(key: key))
        #expect(session.cancelled == [key])
        session.complete(key, status: nil, error: "cancelled")
        await events.until(seen: .transferOutcomeDropped(key: key))
        #expect(try setup.queue.job(id)?.state == .cancelled)

        // A producer (a share extension) asks, through the protocol both share, to cancel by tag.
        let other = try await setup.queue.enqueue(NewJob(kind: "upload", id: "v", tags: ["album"]))
        let (_, otherKey) = try await Self.started(other, in: setup, system, events: &events, count: 2)
        var configuration = folder.configuration
        configuration.sharing = .shared
        let producer: any JobRequesting = try QueueProducer(directory: folder.directory, configuration: configuration)
        try await producer.requestCancel(tagged: "album")
        _ = try await setup.queue.ingestInbox()
        await events.until(seen: .transferCancelled(key: otherKey))
        #expect(session.cancelled == [key, otherKey])
        try await setup.close()
    }

    /// A park whose deadline passes brings the job back; its next attempt parks under a new key, and the
    /// first transfer is cancelled rather than left uploading beside the second.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aParkPastItsDeadlineCancelsTheEarlierTransfer() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let setup = try TransferTests.uploads(folder, transfers: system, parkFor: 600)
        var events = EventReader(setup.work)
        let id = try await setup.queue.enqueue(NewJob(kind: "upload", id: "u"))
        await setup.work.appWillEnterForeground()
        let (session, first) = try await Self.started(id, in: setup, system, events: &events)
        folder.clock.advance(by: 601)
        await events.until(seen: .transferCancelled(key: first))
        folder.clock.advance(by: 30)
        let (_, second) = try await Self.started(id, in: setup, system, events: &events, count: 2)
        #expect(second != first)
        #expect(session.cancelled == [first])
        try await setup.close()
    }

    /// A person's Retry after a 404 starts a transfer under a new key; the first transfer's report, replayed,
    /// is dropped and leaves the retried job running; the new transfer's report ends it.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aRetriedJobNeverReusesAKey() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let setup = try TransferTests.uploads(folder, transfers: system)
        var events = EventReader(setup.work)
        let id = try await setup.queue.enqueue(NewJob(kind: "upload", id: "u"))
        await setup.work.appWillEnterForeground()
        let (session, first) = try await Self.started(id, in: setup, system, events: &events)
        session.complete(first, status: 404)
        await events.until { (try? setup.queue.job(id)?.state) == .failed }

        try await setup.queue.retry(id)
        let (_, second) = try await Self.started(id, in: setup, system, events: &events, count: 2)
        #expect(second != first)
        session.complete(first, status: 404)
        await events.until(seen: .transferOutcomeDropped(key: first))
        let running = try #require(try setup.queue.job(id))
        #expect(running.state == .running && running.parkedKey == second)
        session.complete(second, status: 201)
        await events.until { (try? setup.queue.job(id)?.state) == .succeeded }
        try await setup.close()
    }

    /// The bytes a transfer moved are its job's progress, read as a handler's is, throttled, and again after a
    /// relaunch, from the session's delegate in the new process.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aTransfersBytesAreItsJobsProgressAcrossARelaunch() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let first = try TransferTests.uploads(folder, transfers: system)
        var events = EventReader(first.work)
        let id = try await first.queue.enqueue(NewJob(kind: "upload", id: "u"))
        await first.work.appWillEnterForeground()
        let (session, key) = try await Self.started(id, in: first, system, events: &events)
        session.progress(key, bytes: 500, of: 1000)
        #expect(first.queue.progress(of: id) == JobProgress(completed: 500, of: 1000))
        session.progress(key, bytes: 600, of: 1000)
        #expect(first.queue.progress(of: id) == JobProgress(completed: 500, of: 1000), "not throttled")
        folder.clock.advance(by: 0.25)
        session.progress(key, bytes: 700, of: 1000)
        #expect(first.queue.progress(of: id) == JobProgress(completed: 700, of: 1000))
        try await first.close()

        let relaunched = TestTransferSystem(held: ["app.transfers": [key]])
        let second = try TransferTests.uploads(folder, transfers: relaunched)
        #expect(second.queue.progress(of: id) == nil, "progress is memory only")
        var updates = second.queue.progressUpdates(.id(id)).makeAsyncIterator()
        relaunched.session("app.transfers")!.progress(key, bytes: 900, of: 1000)
        let update = await updates.next()
        #expect(update?.progress == JobProgress(completed: 900, of: 1000))
        try await second.close()
    }

    /// A job that needs an unmetered network waits while the device is on cellular, and starts on Wi-Fi with
    /// a request that forbids cellular and expensive networks, so the system does not carry it on over
    /// cellular; the request's own switches go through as well.
    @Test(.timeLimit(.minutes(1)), .onThePool) func theJobsNetworkConstraintsReachTheRequest() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let network = TestPathMonitor(NetworkPath(status: .satisfied, isExpensive: true))
        let setup = try Setup(folder, scheduler: TestScheduler(), transfers: system, network: network) { runner, work in
            try runner.register(kind: "upload") { _, context in
                try await work()!.startTransfer(
                    .upload(TransferTests.file, to: TransferTests.server, network: .init(constrained: false)),
                    in: context, for: 86_400)
            }
        }
        var events = EventReader(setup.work)
        var constraints = JobConstraints()
        constraints.requiresUnmeteredNetwork = true
        let id = try await setup.queue.enqueue(NewJob(kind: "upload", id: "u", constraints: constraints))
        await setup.work.appWillEnterForeground()
        #expect(try setup.queue.job(id)?.state == .enqueued, "started on cellular")
        network.report(NetworkPath(status: .satisfied, isExpensive: false))
        let (session, _) = try await Self.started(id, in: setup, system, events: &events)
        #expect(session.requests.first?.network == .init(cellular: false, expensive: false, constrained: false))
        try await setup.close()
    }

    /// "Pause uploads on cellular", turned on then off: the setting is one durable update of the enqueued job's
    /// constraints; on cellular the job waits, and once the person allows cellular it starts there, its request
    /// allowing cellular.
    @Test(.timeLimit(.minutes(1)), .onThePool) func cellularOffThenOnIsOneUpdateOfTheJob() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let network = TestPathMonitor(NetworkPath(status: .satisfied, isExpensive: true))
        let setup = try Setup(folder, scheduler: TestScheduler(), transfers: system, network: network) { runner, work in
            try runner.register(kind: "upload") { _, context in
                try await work()!.startTransfer(
                    .upload(TransferTests.file, to: TransferTests.server), in: context, for: 86_400)
            }
        }
        var events = EventReader(setup.work)
        let id = try await setup.queue.enqueue(NewJob(kind: "upload", id: "u"))
        // The setting goes on before the runner looks: the job now needs an unmetered network.
        try await setup.queue.update(id, constraints: JobConstraints(requiresUnmeteredNetwork: true))
        await setup.work.appWillEnterForeground()
        #expect(try setup.queue.job(id)?.state == .enqueued, "started on cellular with the setting on")
        try await setup.queue.update(id, constraints: JobConstraints(requiresNetwork: true))
        let (session, _) = try await Self.started(id, in: setup, system, events: &events)
        #expect(session.requests.first?.network == .any)
        try await setup.close()
    }

    /// The server's answer reaches the job: a 503 with `Retry-After: 120` retries exactly 120 seconds later,
    /// and a 201's body (the new photo's id) is the job's result, which its dependents read.
    @Test(.timeLimit(.minutes(1)), .onThePool) func theServersAnswerReachesTheJob() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let setup = try TransferTests.uploads(folder, transfers: system)
        var events = EventReader(setup.work)
        let id = try await setup.queue.enqueue(NewJob(kind: "upload", id: "u"))
        let dependent = try await setup.queue.enqueue(NewJob(kind: "notify", id: "n", dependencies: [id]))
        await setup.work.appWillEnterForeground()
        let (session, first) = try await Self.started(id, in: setup, system, events: &events)
        let failedAt = folder.clock.now()
        session.complete(first, status: 503, headers: ["Retry-After": "120"])
        await events.until { (try? setup.queue.job(id)?.state) == .enqueued }
        #expect(try setup.queue.job(id)?.nextRetryAt == failedAt.addingTimeInterval(120))

        folder.clock.advance(by: 119)
        #expect(try setup.queue.job(id)?.state == .enqueued)
        folder.clock.advance(by: 1)
        let (_, second) = try await Self.started(id, in: setup, system, events: &events, count: 2)
        let answer = Data(#"{"id":"photo-7"}"#.utf8)
        session.complete(second, status: 201, body: answer)
        await events.until { (try? setup.queue.job(id)?.state) == .succeeded }
        #expect(try setup.queue.job(id)?.result == answer)
        #expect(try setup.queue.job(dependent)?.prerequisiteResults == [id: answer])
        try await setup.close()
    }

    /// Reconciliation leans on nothing Apple does not document: at a launch for the session's events it runs
    /// after the session delivered them; at another launch it waits for the grace period and leaves a young
    /// park alone; and it cancels the tasks whose jobs are no longer parked under them.
    @Test(.timeLimit(.minutes(1)), .onThePool) func reconciliationWaitsForTheEventsOrTheGracePeriod() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        try await TransferTests.leaveAParkedTransfer(in: folder)
        let parked = try #require(try folder.open().parkedJobs().first?.parkedKey)
        // The system still has a task whose job is gone (cancelled while the app was not running), and has
        // finished the parked job's transfer: its report comes with the session's events.
        let stray = TransferKey(session: "app.transfers", job: "gone", startedAt: folder.clock.now()).description
        let relaunched = TestTransferSystem(held: ["app.transfers": [stray]])
        let second = try TransferTests.uploads(folder, transfers: relaunched)
        var events = EventReader(second.work)
        let handled = Calls()
        second.work.transfers!.handleEvents(forSession: "app.transfers") { handled.record() }
        await second.work.appWillEnterForeground()
        let session = try #require(relaunched.session("app.transfers"))
        session.complete(parked, status: 201)
        session.finishEvents()
        await events.until(seen: .transfersReconciled(session: "app.transfers", failed: [], cancelled: [stray]))
        await events.until(seen: .sessionEventsHandled(identifier: "app.transfers"))
        #expect(handled.count == 1)
        #expect(try second.queue.job("u")?.state == .succeeded, "a finished transfer's park was failed")
        #expect(session.cancelled == [stray])
        try await second.close()

        // A launch not made for events: a park younger than the grace period is left alone even though the
        // session does not list its task (it may not have started yet).
        let young = try TransferTests.uploads(folder, transfers: TestTransferSystem())
        var later = EventReader(young.work)
        let id = try await young.queue.enqueue(NewJob(kind: "upload", id: "w"))
        await young.work.appWillEnterForeground()
        await later.until(seenWhere: { if case .transferStarted = $0 { true } else { false } })
        #expect(await young.work.transfers!.reconcile() == [])
        folder.clock.advance(by: BackgroundTransfers.reconciliationGrace)
        await later.until(seenWhere: { if case .transfersReconciled = $0 { true } else { false } })
        #expect(try young.queue.job(id)?.state == .running, "the session lists the task it started: not failed")
        try await young.close()
    }

    /// A share extension's transfer may carry no unique key (the owner could drop the enqueue while the
    /// transfer runs), and an outcome its producer cannot enqueue is logged, not swallowed.
    @Test(.timeLimit(.minutes(1)), .onThePool) func anExtensionsTransferIsRefusedAUniqueKeyAndReportsItsFailures()
        async throws
    {
        let folder = AppFolder()
        defer { folder.remove() }
        var configuration = folder.configuration
        configuration.sharing = .shared
        try folder.open(sharing: .shared).close()
        let producer = try QueueProducer(directory: folder.directory, configuration: configuration)
        let sessionName = BackgroundTransfers.extensionSessionIdentifier("app.transfers")
        let session = TestTransferSession(identifier: sessionName, completions: TransferCompletions())
        await #expect(throws: SpoolError.self) {
            try await BackgroundTransfers.enqueue(
                NewJob(kind: "upload", uniqueKey: "photo-1"),
                transferring: .upload(TransferTests.file, to: TransferTests.server),
                producer: producer, session: session, for: 86_400)
        }
        #expect(session.started.isEmpty)

        configuration.maximumPayloadSize = 8
        let small = try QueueProducer(directory: folder.directory, configuration: configuration)
        let sink = TestEventSink()
        let completions = TransferCompletions(recordingThrough: small, log: sink)
        completions.transferDidComplete(TransferCompletion(key: "transfer:x:y:0.00000000", statusCode: 201, error: nil))
        #expect(sink.events.count == 1)
        if case .transferRecordFailed(let key, _) = sink.events.first {
            #expect(key == "transfer:x:y:0.00000000")
        } else {
            Issue.record("not a recording failure: \(sink.events)")
        }
    }

    /// A key's text names its session and job whatever characters they hold, and reads back.
    @Test func aKeyReadsBack() throws {
        let key = TransferKey(
            session: "app:transfers%", job: "photo:1\n2", startedAt: Date(timeIntervalSince1970: 1.5), nonce: 0xAB)
        #expect(key.description == "transfer:app%3Atransfers%25:photo%3A1%0A2:1500.000000ab")
        #expect(TransferKey(key.description) == key)
        #expect(TransferKey("transfer:app.transfers:u:1") == nil, "a key of a build before nonces")
        #expect(TransferKey("transfer:a:%zz:1.00000000") == nil)
    }
}
