import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import Testing

@Suite struct TransferTests {
    static let file = URL(fileURLWithPath: "/photos/1.jpg")
    static let server = URL(string: "https://example.com/photos/1.jpg")!

    /// A run of the app that parks job `u` under a transfer the system then drops (its session is gone with
    /// the run): the next run's reconciliation asks its session about it.
    static func leaveAParkedTransfer(in folder: AppFolder) async throws {
        let first = try uploads(folder, transfers: TestTransferSystem())
        var events = EventReader(first.work)
        try await first.queue.enqueue(NewJob(kind: "upload", id: "u"))
        await first.work.appWillEnterForeground()
        await events.until(seenWhere: { if case .transferStarted = $0 { true } else { false } })
        try await first.close()
    }

    /// A setup whose "upload" handler hands its transfer to the system.
    static func uploads(
        _ folder: AppFolder, transfers: TestTransferSystem, sink: TestEventSink? = nil,
        sharing: ProcessSharing = .exclusive, parkFor duration: TimeInterval = 86_400
    ) throws -> Setup {
        try Setup(folder, scheduler: TestScheduler(), transfers: transfers, sink: sink, sharing: sharing) {
            runner, work in
            try runner.register(kind: "upload") { _, context in
                try await work()!.startTransfer(.upload(file, to: server), in: context, for: duration)
            }
            try runner.register(kind: "notify") { _, _ in }
        }
    }

    /// A transfer that finishes while the app runs and one that finishes while it is not running (reported
    /// after the relaunch) each end their job once; a second report of the first changes nothing; the
    /// system's background-events handler is called once the outcome is durable.
    @Test(.timeLimit(.minutes(1))) func aTransferIsCountedOnceBeforeAndAfterARelaunch() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let first = try Self.uploads(folder, transfers: system)
        var events = EventReader(first.work)
        let a = try await first.queue.enqueue(NewJob(kind: "upload", id: "a"))
        let b = try await first.queue.enqueue(NewJob(kind: "upload", id: "b"))
        await first.work.appWillEnterForeground()
        let session = try #require(system.session("app.transfers"))
        await events.until { session.started.count == 2 }
        let keyA = try #require(session.started.first { TransferKey($0)?.job == a })
        let keyB = try #require(session.started.first { TransferKey($0)?.job == b })
        session.complete(keyA, status: 200)
        await events.until { (try? first.queue.job(a)?.state) == .succeeded }
        session.complete(keyA, status: 200)
        await events.until(seen: .transferOutcomeDropped(key: keyA))
        #expect(try first.queue.job(a)?.attempts == 1)
        try await first.close()

        // B finished while the app was not running: the system still holds its report.
        let relaunched = TestTransferSystem(held: ["app.transfers": [keyB]])
        let second = try Self.uploads(folder, transfers: relaunched)
        var later = EventReader(second.work)
        let handled = Calls()
        second.work.transfers!.handleEvents(forSession: "app.transfers") { handled.record() }
        let session2 = try #require(relaunched.session("app.transfers"))
        await second.work.appWillEnterForeground()
        #expect(try second.queue.job(b)?.state == .running, "a transfer the system still holds was reconciled away")
        session2.complete(keyB, status: 201)
        session2.finishEvents()
        await later.until { handled.count == 1 }
        let jobB = try #require(try second.queue.job(b))
        #expect(jobB.state == .succeeded && jobB.attempts == 1)
        let jobA = try #require(try second.queue.job(a))
        #expect(jobA.state == .succeeded && jobA.attempts == 1)
        #expect(session2.started.isEmpty, "a finished transfer was started again")
        try await second.close()
    }

    /// A transfer the system no longer has after a relaunch (dropped, or never started: the app died between
    /// the park and the start) is failed by the retry policy, and its job runs again: a new transfer.
    @Test(.timeLimit(.minutes(1))) func aTransferTheSystemDroppedIsRetried() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let first = try Self.uploads(folder, transfers: system)
        var events = EventReader(first.work)
        let c = try await first.queue.enqueue(NewJob(kind: "upload", id: "c"))
        await first.work.appWillEnterForeground()
        await events.until { system.session("app.transfers")?.started.count == 1 }
        try await first.close()

        let relaunched = TestTransferSystem()
        let second = try Self.uploads(folder, transfers: relaunched)
        var later = EventReader(second.work)
        await second.work.appWillEnterForeground()
        #expect(try second.queue.job(c)?.state == .running, "reconciled before the grace period")
        // A launch not made for the session's events reconciles once the grace period has passed.
        folder.clock.advance(by: BackgroundTransfers.reconciliationGrace)
        await later.until(seenWhere: { if case .transfersReconciled = $0 { true } else { false } })
        let retried = try #require(try second.queue.job(c))
        #expect(retried.state == .enqueued && retried.attempts == 1 && retried.nextRetryAt != nil)
        folder.clock.advance(by: 30)
        await later.until { relaunched.session("app.transfers")?.started.count == 1 }
        #expect(try second.queue.job(c)?.attempts == 2)
        try await second.close()
    }

    /// The app's rule decides: a 404 fails the job for good; a 503 retries it.
    @Test(.timeLimit(.minutes(1))) func theRulesMapStatusesToOutcomes() async throws {
        let standard = TransferRules.standard
        #expect(standard.outcome(TransferCompletion(key: "k", statusCode: 204, error: nil)) == .success)
        #expect(standard.outcome(TransferCompletion(key: "k", statusCode: 404, error: nil)) == .fail("HTTP 404"))
        #expect(standard.outcome(TransferCompletion(key: "k", statusCode: 503, error: nil)) == .retry("HTTP 503"))
        #expect(standard.outcome(TransferCompletion(key: "k", statusCode: nil, error: "offline")) == .retry("offline"))
        let answer = Data(#"{"id":"p1"}"#.utf8)
        #expect(
            standard.outcome(TransferCompletion(key: "k", statusCode: 201, error: nil, body: answer)) == .result(answer)
        )
        #expect(
            standard.outcome(TransferCompletion(key: "k", statusCode: 201, error: nil, body: answer, isBodyCut: true))
                == .success)
        #expect(
            standard.outcome(TransferCompletion(key: "k", statusCode: 429, error: nil, headers: ["retry-after": "120"]))
                == .retryAfter("HTTP 429", seconds: 120))
        let dated = TransferCompletion(
            key: "k", statusCode: 503, error: nil,
            headers: ["Retry-After": "Wed, 21 Oct 2015 07:30:00 GMT", "Date": "Wed, 21 Oct 2015 07:28:00 GMT"])
        #expect(standard.outcome(dated) == .retryAfter("HTTP 503", seconds: 120))
        #expect(
            standard.outcome(
                TransferCompletion(key: "k", statusCode: 503, error: nil, headers: ["Retry-After": "soon"]))
                == .retry("HTTP 503"))

        let folder = AppFolder()
        defer { folder.remove() }
        let system = TestTransferSystem()
        let setup = try Self.uploads(folder, transfers: system)
        var events = EventReader(setup.work)
        let d = try await setup.queue.enqueue(NewJob(kind: "upload", id: "d"))
        await setup.work.appWillEnterForeground()
        await events.until { system.session("app.transfers")?.started.count == 1 }
        let key = try #require(system.session("app.transfers")?.started.first)
        #expect(TransferKey(key)?.job == d)
        system.session("app.transfers")!.complete(key, status: 404)
        await events.until { (try? setup.queue.job(d)?.state) == .failed }
        try await setup.close()
    }

    /// A share extension enqueues the parked job as a producer and starts the transfer in its own session;
    /// the app, handed that session's events, records the outcome and calls the system's handler.
    @Test(.timeLimit(.minutes(1))) func aShareExtensionsTransferIsRecordedByTheApp() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        var configuration = folder.configuration
        configuration.sharing = .shared
        let system = TestTransferSystem()
        let app = try Setup(folder, scheduler: TestScheduler(), transfers: system, sharing: .shared)
        let extensionSession = BackgroundTransfers.extensionSessionIdentifier("app.transfers")
        let producer = try QueueProducer(directory: folder.directory, configuration: configuration)
        let extensionTransfers = TestTransferSession(identifier: extensionSession, completions: TransferCompletions())
        let id = try await BackgroundTransfers.enqueue(
            NewJob(kind: "upload"), transferring: .upload(Self.file, to: Self.server), producer: producer,
            session: extensionTransfers, for: 86_400)
        let key = try #require(extensionTransfers.started.first)
        #expect(TransferKey(key)?.job == id && TransferKey(key)?.session == extensionSession)
        // Not ingested yet when the outcome comes: recording it ingests the producer's inbox first.
        #expect(try app.queue.job(id) == nil)

        // The system relaunches the app for the extension's session.
        let handled = Calls()
        #expect(app.work.transfers!.handleEvents(forSession: extensionSession) { handled.record() })
        #expect(!app.work.transfers!.handleEvents(forSession: "someone.else") {})
        let session = try #require(system.session(extensionSession))
        var events = EventReader(app.work)
        session.complete(key, status: 200)
        session.finishEvents()
        await events.until { handled.count == 1 }
        let job = try #require(try app.queue.job(id))
        #expect(job.state == .succeeded && job.attempts == 1)
        try await app.close()
    }

    /// A share extension's transfer that ends while the extension still runs reports to the extension's
    /// delegate, not the app's: the extension enqueues the outcome as a job after the parked one, and the
    /// app's runner records it for the parked job.
    @Test(.timeLimit(.minutes(1))) func aTransferEndingWhileTheExtensionRunsIsRecordedByTheApp() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        var configuration = folder.configuration
        configuration.sharing = .shared
        let app = try Setup(folder, scheduler: TestScheduler(), transfers: TestTransferSystem(), sharing: .shared)
        var events = EventReader(app.work)
        let extensionSession = BackgroundTransfers.extensionSessionIdentifier("app.transfers")
        let producer = try QueueProducer(directory: folder.directory, configuration: configuration)
        let extensionTransfers = TestTransferSession(
            identifier: extensionSession, completions: TransferCompletions(recordingThrough: producer))
        let id = try await BackgroundTransfers.enqueue(
            NewJob(kind: "upload"), transferring: .upload(Self.file, to: Self.server), producer: producer,
            session: extensionTransfers, for: 86_400)
        let key = try #require(extensionTransfers.started.first)
        extensionTransfers.complete(key, status: 201)
        await app.work.appWillEnterForeground()
        await events.until(seen: .transferFinished(key: key, outcome: .success))
        let job = try #require(try app.queue.job(id))
        #expect(job.state == .succeeded && job.attempts == 1)
        try await app.close()
    }
}

/// Counts calls from a `@Sendable` closure.
final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    func record() { lock.withLock { calls += 1 } }
    var count: Int { lock.withLock { calls } }
}
