import Foundation
import Spool

/// Opens queues the way every `spool` command must.
enum QueueAccess {
    /// How long a command waits for another process to close the queue.
    static let lockWait: TimeInterval = 5

    /// The configuration of every command: leases that have not expired survive
    /// the open, because `claim` and `complete` run in separate processes.
    static func configuration(createIfMissing: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.createIfMissing = createIfMissing
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        return configuration
    }

    /// Opens the queue in `directory`, runs `body` with it, and closes it.
    ///
    /// While another process has the queue open, waits up to ``lockWait`` seconds.
    /// An error from `body` wins over an error from closing.
    static func withQueue<T>(
        _ directory: String, createIfMissing: Bool = false,
        _ body: (JobQueue) throws -> T
    ) throws -> T {
        let configuration = configuration(createIfMissing: createIfMissing)
        let queue = try waitingForLock { try JobQueue(directory: directory, configuration: configuration) }
        let result: T
        do {
            result = try body(queue)
        } catch {
            try? queue.close()
            throw error
        }
        try queue.close()
        return result
    }

    /// Replays the queue in `directory` read-only (``LogInspector/withJobs(directory:_:)``) and runs
    /// `body` with its jobs: nothing in the directory changes. Waits for the lock as ``withQueue`` does.
    static func inspecting<T>(_ directory: String, _ body: (InspectedQueue) throws -> T) throws -> T {
        try waitingForLock { try LogInspector.withJobs(directory: directory, body) }
    }

    /// Runs `open`, retrying while it throws ``SpoolError/Code/locked``, for up to ``lockWait`` seconds.
    static func waitingForLock<T>(_ open: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(lockWait)
        var pause: TimeInterval = 0.01
        while true {
            do {
                return try open()
            } catch SpoolError.Code.locked where Date() < deadline {
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.2)
            }
        }
    }
}
