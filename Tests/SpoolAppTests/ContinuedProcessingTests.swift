import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import SpoolTestSupport
import Testing

/// A continued-processing scheduler and its launch, as the test drives them.
final class FakeContinuedScheduler: ContinuedProcessingScheduling, @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [String: @Sendable (any ProgressReportingLaunch) -> Void] = [:]
    private(set) var submitted: [(identifier: String, title: String)] = []

    func registerContinued(identifier: String, handler: @escaping @Sendable (any ProgressReportingLaunch) -> Void)
        -> Bool
    {
        lock.withLock { handlers[identifier] = handler }
        return true
    }

    func submitContinued(identifier: String, title: String, subtitle: String) throws {
        lock.withLock { submitted.append((identifier, title)) }
    }

    /// The system runs the submitted request now.
    func launch(_ identifier: String) -> FakeContinuedTask {
        let task = FakeContinuedTask(identifier: identifier)
        lock.withLock { handlers[identifier] }?(task)
        return task
    }
}

final class FakeContinuedTask: ProgressReportingLaunch, @unchecked Sendable {
    private let launched: TestLaunch
    private let lock = NSLock()
    private var reports: [(Int64, Int64)] = []
    private var watchers: [(Int64, CheckedContinuation<Void, Never>)] = []

    init(identifier: String) { launched = TestLaunch(identifier: identifier) }

    var identifier: String { launched.identifier }
    func setExpirationHandler(_ handler: (@Sendable () -> Void)?) { launched.setExpirationHandler(handler) }
    func setTaskCompleted(success: Bool) { launched.setTaskCompleted(success: success) }
    func reportProgress(completed: Int64, total: Int64) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            reports.append((completed, total))
            let ready = watchers.filter { $0.0 == completed }.map(\.1)
            watchers.removeAll { $0.0 == completed }
            return ready
        }
        for watcher in ready { watcher.resume() }
    }
    func updateTitle(_ title: String, subtitle: String) {}

    var progress: [(Int64, Int64)] { lock.withLock { reports } }

    /// Returns once a report of `completed` units came.
    func reported(_ completed: Int64) async {
        await withCheckedContinuation { continuation in
            let already = lock.withLock { () -> Bool in
                if reports.contains(where: { $0.0 == completed }) { return true }
                watchers.append((completed, continuation))
                return false
            }
            if already { continuation.resume() }
        }
    }
    func completion() async -> Bool { await launched.completion() }
}

@Suite struct ContinuedProcessingTests {
    /// The jobs' progress reaches the launch (1,000 units a job), which completes with success once both
    /// succeeded: the last report is all of it.
    @Test(.timeLimit(.minutes(1))) func progressIsForwardedUntilTheJobsAreDone() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let scheduler = FakeContinuedScheduler()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let queue = try folder.open()
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, options: .init(maxConcurrentJobs: 1), events: events)
        try runner.register(kind: "export") { _, context in
            context.reportProgress(completed: 1, of: 2)
            for await _ in gate { break }
        }
        let work = try BackgroundWork(
            options: .init(launches: identifiers, continuedProcessing: "app.continued"),
            system: .init(scheduler: TestScheduler(), continuedProcessing: scheduler))
        try work.attach(queue: queue, runner: runner)
        let ids = try await queue.enqueue(contentsOf: [NewJob(kind: "export"), NewJob(kind: "export")])
        try work.continueInBackground(ids, title: "Exporting", subtitle: "2 videos")
        let identifier = try #require(scheduler.submitted.first?.identifier)
        #expect(identifier.hasPrefix("app.continued.") && scheduler.submitted.count == 1)
        let task = scheduler.launch(identifier)
        try await events.wait(for: .claimed(ids[0], attempt: 1), timeout: hangGuard)
        await task.reported(500)
        open.yield()
        try await events.wait(for: .claimed(ids[1], attempt: 1), timeout: hangGuard)
        open.yield()
        #expect(await task.completion() == true)
        #expect(task.progress.allSatisfy { $0.1 == 2_000 })
        #expect(task.progress.contains { $0.0 == 500 }, "a running job's reported half never showed: \(task.progress)")
        #expect(task.progress.last?.0 == 2_000)
        open.finish()
        await work.close()
        try queue.close()
    }
}
