/// What a ``JobQueue/compact()-9yby2`` did.
public struct CompactionReport: Sendable, Equatable {
    /// Bytes of the log files the snapshot replaced.
    public var bytesBefore: Int64
    /// Bytes of the snapshot file.
    public var bytesAfter: Int64
    /// Records written into the snapshot (its summary record included).
    public var recordsWritten: Int
    /// Jobs written into the snapshot.
    public var jobsWritten: Int
    /// Succeeded and cancelled jobs dropped because they finished longer ago than the retention period.
    public var jobsExpired: Int
    /// The snapshot's log file number.
    public var snapshotFile: UInt64
}

/// What the queue's snapshots remember of its past, so that an empty queue can
/// be told from one that never held anything.
public struct QueueHistory: Sendable, Equatable {
    /// The earliest time the queue is known to have existed (its oldest job's
    /// creation, or the first compaction); `nil` before the first compaction.
    public var createdAt: Date?
    /// Finished jobs dropped by retention in all compactions so far.
    public var expiredJobs: Int
}
