import Dispatch
import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import Testing

/// SpoolApp's own tasks run where the app says (issue 45 item 2): a transfer's outcome is judged by the rules
/// on the app's executor, and the runner's handler on the runner's.
@Suite struct ExecutorTests {
    /// A task executor over one serial dispatch queue, which tells whether the caller runs on it.
    final class QueueExecutor: TaskExecutor, @unchecked Sendable {
        // @unchecked: `queue` and `key` are constants.
        let queue = DispatchQueue(label: "spool.tests.app-executor")
        let key = DispatchSpecificKey<Bool>()
        init() { queue.setSpecific(key: key, value: true) }
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    }

    @Test(.timeLimit(.minutes(10))) func theWorksTasksRunOnTheAppsExecutor() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let executor = QueueExecutor()
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
}
