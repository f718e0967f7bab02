import Dispatch
import Foundation

/// A task executor over one serial dispatch queue of its own, which tells whether the caller runs on it
/// (``isCurrent``): give it as `JobRunner.Options.taskExecutor` or `BackgroundWork.Options.taskExecutor`
/// and check, in a handler or a transfer rule, that the work runs where the app said.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class TestTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `queue` and `key` are constants.
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    /// An executor on a new serial queue labelled `label`.
    public init(label: String = "spool.testing.task-executor") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    /// Runs `job` on the queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Whether the caller runs on this executor's queue.
    public var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}
