import Dispatch

/// Whose turn it is to compact, and the compactions the engine runs in the background.
///
/// One compaction at a time, whoever asked (``turn(_:)``); at most one scheduled in the background
/// (``startInBackground(_:)``), on a queue of its own, with the count of those that wrote a snapshot and
/// the error of the last that failed. Its lock is a leaf: nothing else is taken while it is held.
final class Compactions: Sendable {
    /// One compaction at a time: taken before the engine's lock, never inside it.
    private let turnLock = Lock()
    private let background = Locked(Background())
    private let group = DispatchGroup()
    private let queue = DispatchQueue(label: "spool.compaction")
    /// The queue's directory, for the errors that name none.
    private let path: String

    init(path: String) {
        self.path = path
    }

    /// The background compactions' record.
    private struct Background {
        /// Whether one is scheduled or running.
        var scheduled = false
        /// The error of the last one that failed (the queue refuses writes after it).
        var lastError: SpoolError?
        /// Those that wrote a snapshot since open.
        var completed = 0
    }

    /// Runs `body` when no other compaction runs.
    func turn<T>(_ body: () throws -> T) rethrows -> T {
        try turnLock.withLock(body)
    }

    /// Whether a background compaction is scheduled or running.
    var isScheduled: Bool { background.withLock { $0.scheduled } }

    /// Background compactions that wrote a snapshot since open.
    var completedCount: Int { background.withLock { $0.completed } }

    /// Schedules `compaction` on the background queue unless one is scheduled or running already.
    /// It returns whether it wrote a snapshot; its error is kept (``waitForBackground()``), except
    /// ``SpoolError/Code/closed`` (a queue closed under it).
    func startInBackground(_ compaction: @escaping @Sendable () throws -> Bool) {
        let start = background.withLock { state -> Bool in
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            var failure: SpoolError?
            var compacted = false
            do {
                compacted = try compaction()
            } catch let error as SpoolError {
                if error.code != .closed { failure = error }
            } catch {
                failure = SpoolError(.ioFailure, "a background compaction failed: \(error)", path: path)
            }
            background.withLock {
                if let failure { $0.lastError = failure }
                if compacted { $0.completed += 1 }
                $0.scheduled = false
            }
        }
    }

    /// Waits until no background compaction is scheduled or running; returns the error of the last one
    /// that failed, if any.
    @discardableResult
    func waitForBackground() -> SpoolError? {
        group.wait()
        return background.withLock { $0.lastError }
    }

    /// Waits for every compaction: those in the background, then the one whose turn it is (close).
    func waitForAll() {
        group.wait()
        turnLock.withLock {}
    }
}
