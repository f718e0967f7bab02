/// Opening a queue for writing, in the order it happens (``QueueEngine/init(path:configuration:)`` runs
/// these steps, then ``QueueEngine/finishOpening(_:)``):
///
/// 1. The directory is created when it is missing and may be.
/// 2. What it is: a directory that holds no `LOCK` yet is listed and judged before anything is written
///    into it (the lock file would be the first); one that holds `LOCK` is judged from step 4's listing.
/// 3. The lock: an `flock` for an ``ProcessSharing/exclusive`` owner; for a ``ProcessSharing/shared``
///    one, a brief lock and the ownership fence (``OwnershipFence``), which every change below runs inside.
/// 4. The directory is listed, once, under the lock: replay, the repairs and the engine read this
///    listing (``QueueListing``), and a repair that removes or creates a file updates it.
/// 5. A file of a newer format anywhere refuses the queue before anything is changed.
/// 6. An exclusive opener records itself in `OWNER` when a `.shared` owner used the queue.
/// 7. A new queue gets its first log file.
/// 8. Replay reads every file and changes nothing; the caller judges what it found (a migration newer
///    than this build refuses the queue as it is).
/// 9. The repairs: unfinished snapshots, files a snapshot replaced and a torn creation are removed, a torn
///    tail cut, the last file's header written again when it holds no record; then the writer.
/// 10. The engine: migrations, jobs no build can run, running jobs reclaimed, the producers' inbox.
extension QueueDirectory {
    /// Opens for writing: steps 1 to 9 above.
    ///
    /// - Parameter checkReplayed: Judges the replayed state before anything is repaired: what it
    ///   throws is thrown with the directory as it was (apart from the first file of a new queue).
    func openForWriting(
        mode: RecoveryMode, createIfMissing: Bool,
        preallocationChunk: Int64 = LogWriter.defaultPreallocationChunk, durability: Durability = .full,
        rollOverSize: Int64 = .max, ownership: Ownership = Ownership(),
        checkReplayed: (QueueState) throws -> Void = { _ in }
    ) throws -> Opened {
        // 1. The directory.
        if try fileSystem.entryKind(at: path) == nil && createIfMissing {
            try createDirectories()
        }
        // 2. What it is, before a lock file is written into it.
        let locked = try fileSystem.entryKind(at: path + "/" + QueueDirectoryLayout.lockFileName) == .file
        if !locked {
            if let before = try listIfDirectory(mayCreate: createIfMissing) {
                _ = try judge(before, mayCreate: createIfMissing)
            }
        }
        // 3. The lock, and a `.shared` owner's fence. 4. The listing, under it.
        let (hold, listing) = try lock(ownership, mode: mode, judging: locked, createIfMissing: createIfMissing)
        do {
            return try hold.fenced {
                try open(
                    listing, hold: hold, mode: mode,
                    settings: CommitFile.Settings(
                        preallocationChunk: preallocationChunk, durability: durability, fence: hold.fence,
                        rollOverSize: rollOverSize),
                    ownership: ownership, checkReplayed: checkReplayed)
            }
        } catch {
            hold.release()
            throw error
        }
    }

    /// Steps 3 and 4: the lock (and fence), then the one listing; judged here when step 2 did not.
    private func lock(
        _ ownership: Ownership, mode: RecoveryMode, judging: Bool, createIfMissing: Bool
    ) throws -> (QueueHold, QueueListing) {
        switch ownership.sharing {
        case .exclusive:
            let lock = try fileSystem.lockDirectory(at: path, exclusive: true)
            do {
                let listing = try QueueListing.read(path, fileSystem: fileSystem)
                if judging { _ = try judge(listing, mayCreate: createIfMissing) }
                return (QueueHold(lock: lock, fence: nil), listing)
            } catch {
                lock.release()
                throw error
            }
        case .shared:
            let brief = try fileSystem.briefLock(at: path)
            do {
                let listing = try QueueListing.read(path, fileSystem: fileSystem)
                if judging { _ = try judge(listing, mayCreate: createIfMissing) }
                // The newer-format check first: an OWNER file of a newer version is refused as it is.
                try LogReplay(directory: path, fileSystem: fileSystem, mode: mode, listing: listing).refuseNewerFiles()
                let fence = try OwnershipFence.take(
                    directory: path, fileSystem: fileSystem, lock: brief, clock: ownership.clock,
                    lease: ownership.lease)
                return (QueueHold(lock: brief, fence: fence), listing)
            } catch {
                brief.release()
                throw error
            }
        }
    }

    /// Steps 5 to 9, inside the fence of a `.shared` owner: a `.shared` opener that lost the role
    /// meanwhile changes nothing.
    private func open(
        _ listing: QueueListing, hold: QueueHold, mode: RecoveryMode, settings: CommitFile.Settings,
        ownership: Ownership, checkReplayed: (QueueState) throws -> Void
    ) throws -> Opened {
        var listing = listing
        // 5. Nothing may be changed (no leftover deleted, no tail cut) in a queue a newer version wrote
        // (a `.shared` opener checked it under the same lock, before it took the role).
        // 6. A queue a `.shared` owner used: its lease is honoured, and its later writes refused.
        if ownership.sharing == .exclusive {
            try LogReplay(directory: path, fileSystem: fileSystem, mode: mode, listing: listing).refuseNewerFiles()
            try OwnershipFence.recordExclusiveOwner(directory: path, fileSystem: fileSystem, clock: ownership.clock)
        }
        // 7. A new queue's first file.
        if listing.logFiles.isEmpty { try createFirstLogFile(in: &listing) }
        // 8. Replay reads and changes nothing: what it refuses (a newer record, corruption) is refused
        // before any repair below. Unfinished snapshots are never read, so they go after it.
        var replay = try LogReplay(directory: path, fileSystem: fileSystem, mode: mode, listing: listing).run()
        try checkReplayed(replay.state)
        // 9. The repairs, and the writer.
        try repair(&replay, in: &listing, mode: mode)
        let writer = try resume(&replay, settings: settings)
        return Opened(replay: replay, writer: writer, hold: hold)
    }

    /// Creates file 1 of a new queue and adds it to `listing`.
    private func createFirstLogFile(in listing: inout QueueListing) throws {
        try createLogFile(sequence: 1, instanceID: newInstanceID())
        listing.created(QueueDirectoryLayout.logFileName(sequence: 1))
    }

    /// Step 9's removals: unfinished snapshots, the files a snapshot replaced, a torn creation (decided
    /// from what replay found, ``OpenRepairs``); a queue whose only file was a torn creation gets its
    /// first file again, and is replayed again.
    private func repair(_ replay: inout LogReplay.Outcome, in listing: inout QueueListing, mode: RecoveryMode) throws {
        let unfinished = listing.unfinishedSnapshots
        if !unfinished.isEmpty {
            // Snapshots a compaction did not finish: never renamed into the log, so nothing reads them.
            for snapshot in unfinished {
                try fileSystem.removeFile(at: snapshot)
                listing.removed(snapshot)
            }
            try fileSystem.syncDirectory(at: path)
        }
        let repairs = OpenRepairs.removals(after: replay, directory: path)
        if !repairs.removeObsolete.isEmpty {
            for obsolete in repairs.removeObsolete {
                try fileSystem.removeFile(at: obsolete)
                listing.removed(obsolete)
            }
            try fileSystem.syncDirectory(at: path)
            replay.obsoleteFiles = []
        }
        if let torn = repairs.removeTornCreation {
            // Replay judged the directory without it, and writing resumes in the file before it.
            try fileSystem.removeFile(at: torn)
            listing.removed(torn)
            try fileSystem.syncDirectory(at: path)
            replay.tornCreation = nil
            if repairs.createFirstFile {
                try createFirstLogFile(in: &listing)
                replay = try LogReplay(directory: path, fileSystem: fileSystem, mode: mode, listing: listing).run()
            }
        }
    }

    /// Step 9's last file: its torn tail cut, its header written again when it holds no record, synced
    /// with the directory; then the writer that resumes in it.
    private func resume(
        _ replay: inout LogReplay.Outcome, settings: CommitFile.Settings
    ) throws -> LogWriter {
        guard let last = replay.lastFile else { throw SpoolError(.notAQueue, "no log file", path: path) }
        guard let instanceID = replay.instanceID, let header = replay.lastFileHeader else {
            throw SpoolError(.notAQueue, "no log header", path: last.path)
        }
        let lastFileRepairs = OpenRepairs.lastFile(after: replay, header: header)
        let file = try fileSystem.openFile(at: last.path, mode: .readWrite)
        do {
            if let torn = lastFileRepairs.truncate {
                // The writer reserves the space after the tail again.
                try file.truncate(to: torn)
                try file.syncData()
                replay.report.tornTailOffset = torn
                replay.report.tornTailPath = last.path
                replay.report.tornTailBytes = replay.lastFileSize - torn
            }
            // The last file may come from a roll-over whose header sync or directory sync failed without
            // a crash (the queue then refused every write and was reopened): what replay read of it may
            // be in the page cache only. So its header is written again when it holds no record (a failed
            // sync may have dropped the dirty pages), the file synced, then the directory, before any
            // record written into it is acknowledged. The header is written as it was read (its version,
            // its first LSN), so the same bytes are written again.
            if lastFileRepairs.rewriteHeader {
                try file.write(header.encoded(), at: 0)
            }
            try file.syncData()
            try fileSystem.syncDirectory(at: path)
        } catch {
            file.close()
            throw error
        }
        return LogWriter(
            file: file, fileSequence: last.sequence, seed: RecordFrame.checksumSeed(instanceID: instanceID),
            end: replay.lastFileValidEnd, lastLSN: replay.lastLSN,
            preallocationChunk: settings.preallocationChunk, durability: settings.durability, fence: settings.fence,
            rollOverSize: settings.rollOverSize)
    }
}

extension QueueEngine {
    /// Step 10 of opening (see QueueDirectory+Open.swift), once the engine holds the replayed state:
    /// migrations, jobs no build can run, running jobs reclaimed, then the producers' inbox.
    ///
    /// - Returns: Replay's report, completed with what these steps did.
    func finishOpening(_ replay: LogReplay.Outcome) throws -> RecoveryReport {
        var recoveryReport = replay.report
        recoveryReport.abandonedMigrations = replay.abandonedMigrations
        // Migrations first: the jobs then are as this build expects them, for the steps after.
        recoveryReport.appliedMigrations = try durably { try $0.runMigrations() }
        recoveryReport.unrunnableJobs = try durably { try $0.abandonUnrunnableJobs() }
        recoveryReport.reclaimedJobs = try durably { try $0.reclaimRunningJobsAtOpen() }
        // The producers' records waiting in the inbox (the bounded fallback's first check). A file that
        // cannot be read (damage, a newer format) stays where it is: the report names it, and every
        // ingestInbox() throws its error. A failed write or sync of the log is the open's own failure:
        // the queue it would hand out refuses every change.
        if let outcome = try? inbox.ingest(into: self) {
            recoveryReport.inboxFilesNotIngested = outcome.unreadable.map { error in
                let spool = error as? SpoolError
                return RecoveryReport.Skipped(
                    path: spool?.path ?? inboxPath, offset: spool?.offset ?? 0, length: 0,
                    reason: spool.map { "\($0.code): \($0.message)" } ?? "\(error)")
            }
        }
        try lock.withLock { try status.finishOpening() }
        return recoveryReport
    }
}
