// Hooks for `spool-bench` and the tests, outside the public API: `package` access, which the package's
// own modules see and an app does not.

/// What the log writers of an open queue have done since the queue was opened.
package struct LogStatistics: Sendable, Equatable {
    /// Data syncs (`fdatasync`, `F_FULLFSYNC`): one per commit group.
    package var dataSyncs: Int
    /// Full syncs (`fsync`): one per preallocated chunk of the log file.
    package var fullSyncs: Int
    /// Records made durable.
    package var records: Int
    /// Nanoseconds spent in the data syncs counted by `dataSyncs`.
    package var dataSyncNanoseconds: UInt64
}

extension JobQueue {
    /// Counts of syncs and records since the queue was opened, across every log file
    /// written since (a roll-over or a compaction starts a new one).
    package var logStatistics: LogStatistics {
        let counts = engine.writerStatistics
        return LogStatistics(
            dataSyncs: counts.dataSyncs, fullSyncs: counts.fullSyncs, records: counts.records,
            dataSyncNanoseconds: counts.dataSyncNanoseconds)
    }

    /// Enqueues a job *without* waiting for it to be durable: only for building
    /// large logs quickly. ``waitUntilDurable()`` makes everything durable.
    @discardableResult
    package func enqueueWithoutWaiting(_ job: NewJob) throws -> JobID {
        try engine.enqueue(job).valueBeforeDurable
    }

    /// Waits until every record appended so far is durable.
    package func waitUntilDurable() throws {
        try engine.durably { Pending((), $0.writer.lastAppendedLSN) }
    }

    /// Waits until no background compaction is scheduled or running; throws the
    /// error of the last one that failed, if any.
    package func waitForBackgroundCompaction() throws {
        if let error = engine.waitForBackgroundCompaction() { throw error }
    }

    /// Background compactions that wrote a snapshot since the queue was opened.
    package var backgroundCompactionCount: Int { engine.backgroundCompactionCount }

    /// How many more bytes the log may take before automatic compaction starts
    /// (`nil` when it is off or a compaction is under way).
    package var bytesBeforeAutoCompaction: Int64? { engine.bytesBeforeAutoCompaction }
}

extension JobQueue {
    /// Syncs (of any queue of this process) that ran inside a Swift task, on a thread of the
    /// cooperative pool, since the process started (``SyncCensus``).
    package static var syncsInsideTasks: Int { SyncCensus.insideTasks }
}
