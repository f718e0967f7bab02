import Dispatch

/// Compaction and automatic compaction: keeping the log proportional to the live jobs.
extension QueueEngine {
    // MARK: Automatic compaction

    /// The unfinished jobs, which a compaction keeps. Call with `lock` held.
    private var liveJobs: Int { state.enqueuedCount + state.runningCount + state.failedCount }

    /// What replaying the log costs, in bytes (``CompactionTrigger/replayCost(activeEnd:)``). Call with `lock` held.
    var replayCost: Int64 { compactionTrigger.replayCost(activeEnd: writer.appendedEnd) }

    /// Whether the log is due for a compaction by ``Configuration/autoCompaction``. O(1); call with `lock` held.
    func needsCompaction() -> Bool {
        // A snapshot cannot hold a migration half written: none starts until its commit is applied.
        guard state.pendingMigration == nil, status.isOpen else { return false }
        return compactionTrigger.isDue(liveJobs: liveJobs, activeEnd: writer.appendedEnd)
    }

    /// How much more replay cost (bytes, and ``AutoCompaction/bytesPerRecord`` per record)
    /// the log may take before automatic compaction starts (`nil`: off, or a compaction is
    /// under way), for the benchmark's worst case.
    var bytesBeforeAutoCompaction: Int64? {
        lock.withLock {
            guard !compactions.isScheduled, let limit = compactionTrigger.limit(liveJobs: liveJobs) else { return nil }
            return limit - replayCost
        }
    }

    /// Starts one compaction in the background when the log is due and none is scheduled. Call with `lock` held.
    func compactInBackgroundIfDue() {
        guard !compactions.isScheduled, needsCompaction() else { return }
        compactions.startInBackground { [self] in try durably { try $0.compact(onlyIfNeeded: true) } != nil }
    }

    /// Waits until no background compaction is scheduled or running (for tests and close);
    /// returns the error of the last one that failed, if any.
    @discardableResult
    func waitForBackgroundCompaction() -> SpoolError? { compactions.waitForBackground() }

    /// Background compactions that wrote a snapshot since open.
    var backgroundCompactionCount: Int { compactions.completedCount }

    /// The log's bytes as automatic compaction counts them (up to the end of each file's last record).
    var currentLogBytes: Int64 { lock.withLock { compactionTrigger.logBytes(activeEnd: writer.appendedEnd) } }

    // MARK: Compaction

    /// Writes the live jobs into a snapshot file and deletes the log files it replaces.
    ///
    /// 1. Under the engine lock: succeeded and cancelled jobs past the retention
    ///    are expired by a record in the active file (n); the writer rolls over to
    ///    file n+2, leaving n+1 for the snapshot (every record of file n is durable
    ///    by then); the state is copied (a copy-on-write value) with the last LSN.
    /// 2. Without the lock, while records go to n+2: the snapshot is written to
    ///    `snap-<n+1>.tmp`, synced, renamed to `wal-<n+1>.log`, and the directory synced.
    /// 3. Under the lock: jobs whose payload is unchanged point into the snapshot.
    /// 4. Files before n+1 are deleted, then the directory synced.
    ///
    /// A crash before the rename leaves files up to n and n+2 (one number free),
    /// which replay reads as before; after it, replay starts at the snapshot, and
    /// open deletes the older files.
    ///
    /// - Parameter onlyIfNeeded: Do nothing (and return `nil`) unless ``Configuration/autoCompaction``
    ///   says the log is due, checked under the lock (a background compaction).
    /// - Returns: The report, pending on the last record before the snapshot (the records that
    ///   expired jobs): the roll-over made it durable already, so ``durably(_:)`` returns at once.
    func compact(onlyIfNeeded: Bool = false) throws -> Pending<CompactionReport?> {
        try compactions.turn {
            let now = nowMillis
            let cutoff = now - Millis.from(seconds: configuration.retention)
            let planned = try withOpenState { () -> (QueueState, SnapshotSummary, UInt64, Int, Int, UInt64)? in
                if onlyIfNeeded, !needsCompaction() { return nil }
                let expiredIDs = state.jobs.values
                    .filter { ($0.state == .succeeded || $0.state == .cancelled) && ($0.finishedAt ?? .max) <= cutoff }
                    .inEnqueueOrder().map(\.id)
                if !expiredIDs.isEmpty { _ = try commit(expiredIDs.map { PlannedOperation(.expire(id: $0)) }) }
                let snapshotSequence = writer.fileSequence + 1
                let lastLSN = try rollOver(skipping: 1)
                let createdAt = min(state.summary?.createdAt ?? now, state.jobs.values.map(\.createdAt).min() ?? now)
                let summary = SnapshotSummary(
                    lastLSN: lastLSN, nextSequence: state.nextSequence, createdAt: createdAt,
                    expiredJobs: state.expiredJobs)
                // The snapshot replaces every record so far; those appended from now on follow it.
                return (
                    state, summary, snapshotSequence, expiredIDs.count, compactionTrigger.recordsSinceSnapshot, lastLSN
                )
            }
            guard let (copy, summary, sequence, expired, recordsReplaced, lastLSN) = planned else {
                return Pending(nil, nil)
            }
            do {
                return Pending(
                    try finishCompaction(
                        copy: copy, summary: summary, sequence: sequence, expired: expired,
                        recordsReplaced: recordsReplaced), lastLSN)
            } catch let error as SpoolError {
                // What reached the disk is unknown (a failed sync cannot be retried), as after a failed
                // write of the log: the queue refuses changes until it is reopened, and open sorts it out.
                lock.withLock { status.poison(with: Self.needsReopen(after: error, "a compaction failed")) }
                throw error
            }
        }
    }

    /// Steps 2 to 4 of ``compact()``: the snapshot, the payloads moved into it, the old files deleted.
    func finishCompaction(
        copy: QueueState, summary: SnapshotSummary, sequence: UInt64,
        expired: Int, recordsReplaced: Int
    ) throws -> CompactionReport {
        let replaced = try LogReplay.logFiles(in: path, fileSystem: configuration.fileSystem)
            .filter { $0.sequence < sequence }
        var bytesBefore: Int64 = 0
        for file in replaced {
            let handle = try configuration.fileSystem.openFile(at: file.path, mode: .readOnly)
            bytesBefore += try handle.size()
            handle.close()
        }
        let jobs = copy.jobs.values.inEnqueueOrder()
        let inboxOffsets = try inboxOffsetsToKeep(copy.inboxOffsets)
        let writer = SnapshotWriter(
            directory: path, fileSystem: configuration.fileSystem, instanceID: instanceID,
            sequence: sequence, fenced: { try self.fenced($0) })
        // Once the queue is closed, the snapshot is given up rather than renamed into the log:
        // close() waits for this compaction before it releases the directory, and sooner this way.
        let outcome = try writer.write(
            summary: summary, appliedMigration: copy.appliedMigration,
            kindControls: copy.kindControlOperations, inboxOffsets: inboxOffsets, jobs: jobs,
            payload: { try self.payload(at: $0.payload) },
            beforeRename: { try self.withOpenState {} })
        try withOpenState {
            state.relocatePayloads(outcome.moves)
            state.adoptSummary(summary)
            compactionTrigger.compacted(
                snapshotSequence: sequence, snapshotBytes: outcome.bytes, recordsReplaced: recordsReplaced,
                jobs: jobs.count, activeEnd: self.writer.appendedEnd)
        }
        try fenced {
            for file in replaced { try configuration.fileSystem.removeFile(at: file.path) }
            if !replaced.isEmpty { try configuration.fileSystem.syncDirectory(at: path) }
        }
        logFileReaders.forget(below: sequence)
        return CompactionReport(
            bytesBefore: bytesBefore, bytesAfter: outcome.bytes, recordsWritten: outcome.records,
            jobsWritten: jobs.count, jobsExpired: expired, snapshotFile: sequence)
    }

    /// What the snapshots remember of the queue's past.
    var history: QueueHistory {
        lock.withLock {
            QueueHistory(
                createdAt: state.summary.map { Millis.date($0.createdAt) },
                expiredJobs: Int(clamping: state.expiredJobs))
        }
    }
}
