import Dispatch

extension LogWriter {
    /// Blocks until at least `count` callers wait for a sync (the leader not counted), or until
    /// `deadline`; returns whether they do. For tests that hold a sync open and must know who
    /// waits behind it: each caller that starts waiting is counted by ``CommitWaiters``, which
    /// signals the watch, so nothing polls.
    func waitForWaiters(_ count: Int, until deadline: DispatchTime) -> Bool {
        let watch = DispatchSemaphore(value: 0)
        guard lock.withLock({ waiters.watch(for: count, signalling: watch) }) else { return true }
        let reached = watch.wait(timeout: deadline) == .success
        lock.withLock { waiters.endWatch() }
        return reached
    }
}
