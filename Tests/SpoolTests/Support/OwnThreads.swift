import Dispatch
import Foundation

/// A task executor that runs its jobs, one at a time, on a dispatch queue a test can keep busy.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class HoldableTaskExecutor: TaskExecutor {
    let queue = DispatchQueue(label: "spool.test.holdable-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A task executor that runs each job on a new thread: tasks that prefer it never wait for a thread of
/// Swift's cooperative pool, which other suites' blocking tests may keep busy (under the thread
/// sanitizer, for minutes).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class ThreadPerJobExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
    }
}

/// Runs `body` on a new thread and returns (or throws) what it did.
func onOwnThread(_ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
