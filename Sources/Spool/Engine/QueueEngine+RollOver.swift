/// Roll-over: retiring the active log file and starting the next one.
extension QueueEngine {
    /// Moves the log to a new file, `wal-<n+1>.log`, now (a compaction's roll-over, and the tests', through
    /// their `lockedRollOver`). Call with `lock` held; a commit's roll-over is ``rollOverWithoutWaiting()``.
    ///
    /// It happens here, between two records and under the engine lock that
    /// every append holds, so no commit group can span two files and no record
    /// can be appended meanwhile. The old file's records are all made durable
    /// first, so that only the new (last) file can ever end in a torn group;
    /// then the new file is created with its header synced and the directory
    /// synced, before any record goes into it. A crash before that leaves a
    /// file shorter than its header (or zeroed), which open removes.
    ///
    /// - Parameter skipping: File numbers left free between the old file and the new one (1 for a snapshot).
    /// - Returns: The LSN of the last record in the old file.
    @discardableResult
    func rollOver(skipping: UInt64 = 0) throws -> UInt64 {
        if let failure = status.failure { throw failure }
        let old = writer
        let lastLSN: UInt64
        do {
            lastLSN = try old.retire()
        } catch let error as SpoolError {
            // The old file's last records failed their sync: the state holds changes the disk may not.
            status.poison(with: Self.needsReopen(after: error, "a write or sync of the log failed"))
            throw error
        }
        let sequence = old.fileSequence + 1 + skipping
        let file: any StorageFile
        do {
            file = try fenced {
                try directory.openNewLogFile(sequence: sequence, instanceID: instanceID, firstLSN: lastLSN + 1)
            }
        } catch let error as SpoolError {
            // The old writer refuses appends now and the new file may be half made: only a reopen repairs it.
            status.poison(with: Self.needsReopen(after: error, "creating the next log file failed"))
            throw error
        }
        let next = LogWriter(
            file: file, fileSequence: sequence, seed: old.seed, end: Int64(LogFormat.fileHeaderSize),
            lastLSN: lastLSN, preallocationChunk: configuration.preallocationChunk,
            durability: configuration.durability, fence: fence, rollOverSize: configuration.logFileSize)
        writers.replace(with: next)
        compactionTrigger.fileRetired(sequence: old.fileSequence, bytes: old.appendedEnd)
        return lastLSN
    }

    /// Moves the log to a new file, `wal-<n+1>.log`, without touching the disk: a commit's roll-over.
    /// Call with `lock` held.
    ///
    /// The new file's writer starts without its file (``LogWriter/init(following:fileSequence:path:create:)``):
    /// its first leader — the flusher for an async caller, a blocking caller on its own thread —
    /// makes every record of the old file durable and retires it, then creates the new file with
    /// its header synced and the directory synced, before any record goes into it, as
    /// ``rollOver(skipping:)`` does here. So no caller holds the engine's lock while the disk works,
    /// and no async caller's thread waits on it. A failure fails the new writer, and every wait on
    /// it poisons the engine (``durably(_:)``).
    func rollOverWithoutWaiting() throws {
        if let failure = status.failure { throw failure }
        let old = writer
        let sequence = old.fileSequence + 1
        let firstLSN = old.lastAppendedLSN + 1
        let (directory, instanceID, hold) = (directory, instanceID, hold)
        let next = LogWriter(
            following: old, fileSequence: sequence,
            path: path + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)
        ) {
            try hold.fenced {
                try directory.openNewLogFile(sequence: sequence, instanceID: instanceID, firstLSN: firstLSN)
            }
        }
        writers.replace(with: next, following: true)
        compactionTrigger.fileRetired(sequence: old.fileSequence, bytes: old.appendedEnd)
    }

    /// Runs `body` inside the fence of a ``ProcessSharing/shared`` owner (as it is when exclusive):
    /// every change of the directory outside the log writer's commit groups goes through here.
    func fenced<T>(_ body: () throws -> T) throws -> T { try hold.fenced(body) }
}
