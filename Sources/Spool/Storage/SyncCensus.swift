/// A count of the syncs that ran inside a Swift task, that is on a thread of Swift's
/// cooperative pool, where no call may wait on the disk (issue 45): `spool-bench`'s `stall`
/// workload reports it, and a correct async path keeps it at 0. A blocking caller's own
/// thread, and Spool's own queues, run no task and are not counted.
enum SyncCensus {
    private static let syncsInsideTasks = Locked(0)

    /// Counts the sync about to run, when it runs inside a task.
    @inline(__always)
    static func note() {
        guard withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        syncsInsideTasks.withLock { $0 += 1 }
    }

    /// The syncs counted since the process started.
    static var insideTasks: Int { syncsInsideTasks.withLock { $0 } }
}
