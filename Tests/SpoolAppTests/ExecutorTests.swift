import Dispatch
import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import Testing

/// The runtimes' tasks run where the app says (issue 45 item 2): a runner's handlers on its executor (and on
/// the global pool without one), SpoolApp's own tasks (a transfer's outcome judged by the rules) on the work's.
@Suite struct ExecutorTests {
    @Test(.timeLimit(.minutes(1))) func theWorksTasksRunOnTheAppsExecutor() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let executor = TestTaskExecutor()
        let driver = BackgroundWorkTestDriver(clock: folder.clock)
        let judged = Locked<[Bool]>([])
        var options = BackgroundWork.Options(
            launches: identifiers, transferSession: "app.transfers",
            transferRules: TransferRules { completion in
                judged.withLock { $0.append(executor.isCurrent) }
                return TransferRules.standard.outcome(completion)
            })
        options.taskExecutor = executor
        let work = try BackgroundWork(options: options, system: driver.system)
        let queue = try folder.open()
        var runnerOptions = JobRunner.Options()
        runnerOptions.taskExecutor = executor
        let runner = try JobRunner(queue: queue, options: runnerOptions)
        let handled = Locked<[Bool]>([])
        try runner.register(kind: "upload") { _, context in
            handled.withLock { $0.append(executor.isCurrent) }
            try await work.startTransfer(.upload(TransferTests.file, to: TransferTests.server), in: context, for: 600)
        }
        try work.attach(queue: queue, runner: runner)
        var events = EventReader(work)
        let id = try await queue.enqueue(NewJob(kind: "upload"))
        await work.appWillEnterForeground()
        await events.until { driver.transfers.session("app.transfers")?.started.count == 1 }
        driver.complete(try #require(driver.transfers.session("app.transfers")?.started.first), status: 204)
        await events.until { (try? queue.job(id)?.state) == .succeeded }
        #expect(handled.withLock { $0 } == [true])
        #expect(judged.withLock { $0 } == [true])
        await work.close()
        try queue.close()
    }

    @Test(.timeLimit(.minutes(1))) func handlersRunOnTheGivenExecutor() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let queue = try folder.open()
        defer { try? queue.close() }
        let executor = TestTaskExecutor()
        var options = JobRunner.Options()
        options.taskExecutor = executor
        let runner = try JobRunner(queue: queue, options: options)
        let onExecutor = Locked<[Bool]>([])
        try runner.register(kind: "k") { _, _ in
            onExecutor.withLock { $0.append(executor.isCurrent) }
        }
        let ids = try (0..<3).map { _ in try queue.enqueue(NewJob(kind: "k")) }
        runner.start()
        for id in ids {
            for await change in queue.changes(.id(id)) {
                if case .updated(let job) = change, job.state == .succeeded { break }
            }
        }
        await runner.stop()
        #expect(onExecutor.withLock { $0 } == [true, true, true])

        // Without one, a handler runs on the global pool, not on that queue.
        let plain = try JobRunner(queue: queue)
        let elsewhere = Locked<Bool?>(nil)
        try plain.register(kind: "k") { _, _ in elsewhere.withLock { $0 = executor.isCurrent } }
        let last = try await queue.enqueue(NewJob(kind: "k"))
        plain.start()
        for await change in queue.changes(.id(last)) {
            if case .updated(let job) = change, job.state == .succeeded { break }
        }
        await plain.stop()
        #expect(elsewhere.withLock { $0 } == false)
    }
}
