import Dispatch

/// The callers a ``LogWriter`` will wake when their records are durable, in the order they
/// started waiting. Guarded by the writer's lock.
struct CommitWaiters {
    private var waiters: [LogWriter.Waiter] = []
    /// A watch for the list to reach a count (``LogWriter/waitForWaiters(_:until:)``): the count, and
    /// what to signal then.
    private var watch: (count: Int, semaphore: DispatchSemaphore)?

    var isEmpty: Bool { waiters.isEmpty }
    var count: Int { waiters.count }

    /// Adds `waiter`, and signals a watch whose count the list reaches.
    mutating func add(_ waiter: LogWriter.Waiter) {
        waiters.append(waiter)
        if let watch, waiters.count >= watch.count {
            watch.semaphore.signal()
            self.watch = nil
        }
    }

    /// Removes and returns the waiters whose records are at or before `lsn`, keeping the others in order.
    mutating func take(through lsn: UInt64) -> [LogWriter.Waiter] {
        var covered: [LogWriter.Waiter] = []
        covered.reserveCapacity(waiters.count)
        var kept = 0
        for index in waiters.indices {
            if waiters[index].lsn <= lsn {
                covered.append(waiters[index])
            } else {
                waiters.swapAt(kept, index)
                kept += 1
            }
        }
        waiters.removeLast(waiters.count - kept)
        return covered
    }

    /// Removes and returns every waiter.
    mutating func takeAll() -> [LogWriter.Waiter] {
        defer { waiters = [] }
        return waiters
    }

    /// Signals `semaphore` once the list holds `count` waiters; `false` when it holds them already
    /// (and nothing will be signalled). Replaces an earlier watch.
    mutating func watch(for count: Int, signalling semaphore: DispatchSemaphore) -> Bool {
        guard waiters.count < count else { return false }
        watch = (count, semaphore)
        return true
    }

    /// Ends the watch, reached or not.
    mutating func endWatch() { watch = nil }
}
