import Foundation
import Spool
import SpoolAppTesting
import SpoolTestSupport
import Testing

@testable import SpoolApp

@Suite struct ConditionsTests {
    /// The path monitor and Low Power Mode reach the queue as they change: a job needing an unmetered
    /// network waits on an expensive path and runs on Wi-Fi; one that must not run on a low battery waits
    /// in Low Power Mode and runs once it ends; an unconstrained one runs at once.
    @Test(.timeLimit(.minutes(1))) func conditionsChangeWhatRuns() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let path = TestPathMonitor(NetworkPath(status: .satisfied, isExpensive: true))
        let power = TestPowerMonitor(lowPowerMode: true)
        let setup = try Setup(folder, scheduler: TestScheduler(), network: path, power: power) { runner, _ in
            for kind in ["upload", "index", "ping"] { try runner.register(kind: kind) { _, _ in } }
        }
        var upload = NewJob(kind: "upload")
        upload.constraints.requiresUnmeteredNetwork = true
        var index = NewJob(kind: "index")
        index.constraints.requiresBatteryNotLow = true
        let (uploadID, indexID) = (try await setup.queue.enqueue(upload), try await setup.queue.enqueue(index))
        let ping = try await setup.queue.enqueue(NewJob(kind: "ping"))
        #expect(setup.work.conditions!.current.isNetworkAvailable && !setup.work.conditions!.current.isNetworkUnmetered)
        await setup.work.appWillEnterForeground()
        await setup.runner.idle()
        #expect(try setup.queue.job(ping)?.state == .succeeded)
        #expect(try setup.queue.job(uploadID)?.state == .enqueued)
        #expect(try setup.queue.job(indexID)?.state == .enqueued)

        path.report(NetworkPath(status: .satisfied))
        try await setup.runnerEvents.wait(for: .finished(uploadID, .succeeded), timeout: hangGuard)
        #expect(try setup.queue.job(indexID)?.state == .enqueued)
        power.report(lowPowerMode: false)
        try await setup.runnerEvents.wait(for: .finished(indexID, .succeeded), timeout: hangGuard)

        // What the app reports itself is kept beside what the monitors report.
        setup.work.conditions!.setCharging(true)
        setup.work.conditions!.setSatisfiedConditions(["signed-in"])
        path.report(NetworkPath(status: .unsatisfied))
        let now = setup.queue.deviceConditions
        #expect(
            now.isCharging && now.satisfiedConditions == ["signed-in"] && !now.isNetworkAvailable && now.isBatteryNotLow
        )
        try await setup.close()
    }
}

/// A scheduler that refuses every request.
final class RefusingScheduler: BackgroundTaskScheduling, @unchecked Sendable {
    struct Refused: Error {}
    func register(identifier: String, handler: @escaping @Sendable (any LaunchedTask) -> Void) -> Bool { true }
    func submit(_ request: LaunchRequest) throws { throw Refused() }
    func cancel(identifier: String) {}
}

@Suite struct EventTests {
    /// Logging is quiet by default: the sink gets failures only (a refused request), while the app's stream
    /// gets every event; with `.all` the sink gets every event too.
    @Test(.timeLimit(.minutes(1))) func theLogIsQuietByDefault() async throws {
        for logging in [EventLogging.failures, .all] {
            let folder = AppFolder()
            defer { folder.remove() }
            let sink = TestEventSink()
            let setup = try Setup(folder, scheduler: TestScheduler(), sink: sink, logging: logging)
            var events = EventReader(setup.work)
            try await setup.queue.enqueue(NewJob(kind: "sync"))
            await events.until(seenWhere: { if case .requestSubmitted = $0 { true } else { false } })
            try await setup.close()
            #expect(sink.events.allSatisfy(\.isFailure) == (logging == .failures))
            #expect(
                sink.events.contains { if case .requestSubmitted = $0 { true } else { false } } == (logging == .all))
        }
        let folder = AppFolder()
        defer { folder.remove() }
        let sink = TestEventSink()
        let setup = try Setup(
            folder, scheduler: TestScheduler(), sink: sink,
            register: { _, _ in })
        try await setup.close()
        #expect(sink.events.isEmpty)
    }

    /// A failure reaches the sink although logging is quiet.
    @Test(.timeLimit(.minutes(1))) func aRefusedRequestIsLogged() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let sink = TestEventSink()
        let queue = try folder.open()
        let work = try BackgroundWork(
            options: .init(launches: identifiers), system: .init(scheduler: RefusingScheduler(), log: sink))
        try work.attach(queue: queue, runner: try JobRunner(queue: queue))
        var events = EventReader(work)
        try await queue.enqueue(NewJob(kind: "sync"))
        await events.until { !sink.events.isEmpty }
        #expect(sink.events.allSatisfy { if case .requestRefused = $0 { true } else { false } })
        await work.close()
        try queue.close()
    }

    /// A stream the app does not read keeps only the newest events, up to its limit; a stream read as
    /// they come gets every one.
    @Test(.timeLimit(.minutes(1))) func anUnreadStreamKeepsTheNewestEvents() async throws {
        let log = EventLog(sink: nil, logging: .failures, bufferLimit: 2)
        let unread = log.stream()
        for index in 0..<5 { log.record(.requestCancelled(identifier: "r\(index)")) }
        log.finish()
        var kept: [BackgroundWorkEvent] = []
        for await event in unread { kept.append(event) }
        #expect(kept == [.requestCancelled(identifier: "r3"), .requestCancelled(identifier: "r4")])
    }
}
