import Dispatch
import Foundation
import Testing

@testable import Spool

/// The runner's tasks run where the app says (issue 45 item 2): given a task executor, its loop and its
/// handlers run on it, not on Swift's global pool.
@Suite struct RunnerExecutorTests {
    /// A task executor over one serial dispatch queue, which marks the jobs it runs.
    final class QueueExecutor: TaskExecutor, @unchecked Sendable {
        // @unchecked: `queue` and `key` are constants.
        let queue = DispatchQueue(label: "spool.tests.runner-executor")
        let key = DispatchSpecificKey<Bool>()

        init() { queue.setSpecific(key: key, value: true) }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }

        /// Whether the caller runs on the executor's queue.
        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
    }

    @Test(.timeLimit(.minutes(10))) func handlersRunOnTheGivenExecutor() async throws {
        let temp = TemporaryDirectory("spool-runner-executor")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? queue.close() }
        let executor = QueueExecutor()
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
