/// Opens a queue directory: checks what it is, locks it, creates the first
/// log file of a new queue, replays the log and repairs a torn tail.
struct QueueDirectory {
    let path: String
    let fileSystem: any FileSystem

    /// What opening found, ready for the engine.
    struct Opened {
        var replay: LogReplay.Outcome
        var writer: LogWriter
        /// The directory's lock, and a ``ProcessSharing/shared`` owner's fence.
        var hold: QueueHold
    }

    /// How an opener takes the role of the queue's owner (``Configuration/sharing``).
    struct Ownership {
        var sharing: ProcessSharing = .exclusive
        var clock: any SpoolClock = SystemClock()
        var lease: TimeInterval = 30
    }

    /// Checks that `path` is a queue (or may become one) without changing anything.
    /// - Returns: `true` when the directory holds log files.
    func checkIsQueue(mayCreate: Bool) throws -> Bool {
        // An empty path names no directory: every call on it would fail with a bare ENOENT.
        guard !path.isEmpty else { throw SpoolError.invalidArgument("the queue directory path is empty") }
        switch try fileSystem.entryKind(at: path) {
        case nil:
            guard mayCreate else { throw SpoolError(.queueNotFound, "no queue directory", path: path) }
            return false
        case .directory?:
            break
        case .symbolicLink?:
            // The queue directory itself may be reached through a link; its entries may not.
            break
        case .file?, .other?:
            throw SpoolError(.notAQueue, "not a directory", path: path)
        }
        let names: [String]
        do {
            names = try fileSystem.contentsOfDirectory(at: path)
        } catch let error as SpoolError where error.errno == Platform.Errno.notADirectory {
            // A link to something that is not a directory.
            throw SpoolError(
                .notAQueue, "not a directory", path: path, errno: Platform.Errno.notADirectory,
                operation: error.operation)
        } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
            // A link to nothing (it is not created through), or a directory removed meanwhile.
            throw SpoolError(
                .queueNotFound, "no queue directory", path: path,
                errno: Platform.Errno.noSuchEntry, operation: error.operation)
        }
        if names.contains(where: { QueueDirectoryLayout.logSequence(fromFileName: $0) != nil }) { return true }
        // `OWNER` may come before the first log file: a `.shared` opener takes the role first; and `inbox/`:
        // a producer may record jobs before the owner ever opened the queue.
        let beforeTheLog = [QueueDirectoryLayout.lockFileName, OwnerRecord.fileName, InboxFormat.directoryName]
        if names.contains(where: { !beforeTheLog.contains($0) }) {
            throw SpoolError(.notAQueue, "the directory holds files but no Spool log", path: path)
        }
        guard mayCreate else { throw SpoolError(.queueNotFound, "the directory holds no queue", path: path) }
        return false
    }

    /// Opens for writing: lock, create if new, replay, repair.
    ///
    /// - Parameter checkReplayed: Judges the replayed state before anything is repaired: what it
    ///   throws is thrown with the directory as it was (apart from the first file of a new queue).
    func openForWriting(
        mode: RecoveryMode, createIfMissing: Bool,
        preallocationChunk: Int64 = LogWriter.defaultPreallocationChunk, durability: Durability = .full,
        ownership: Ownership = Ownership(),
        checkReplayed: (QueueState) throws -> Void = { _ in }
    ) throws -> Opened {
        if try fileSystem.entryKind(at: path) == nil && createIfMissing {
            try createDirectories()
        }
        _ = try checkIsQueue(mayCreate: createIfMissing)
        let lock: any DirectoryLock
        var fence: OwnershipFence?
        switch ownership.sharing {
        case .exclusive:
            lock = try fileSystem.lockDirectory(at: path, exclusive: true)
        case .shared:
            let brief = try fileSystem.briefLock(at: path)
            lock = brief
            do {
                // The newer-format check first: an OWNER file of a newer version is refused as it is.
                try LogReplay(directory: path, fileSystem: fileSystem, mode: mode).refuseNewerFiles()
                fence = try OwnershipFence.take(
                    directory: path, fileSystem: fileSystem, lock: brief, clock: ownership.clock,
                    lease: ownership.lease)
            } catch {
                lock.release()
                throw error
            }
        }
        // Every change below is fenced: a `.shared` opener that lost the role meanwhile changes nothing.
        let hold = QueueHold(lock: lock, fence: fence)
        do {
            // Nothing may be changed (no leftover deleted, no tail cut) in a queue a newer version wrote.
            try LogReplay(directory: path, fileSystem: fileSystem, mode: mode).refuseNewerFiles()
            if ownership.sharing == .exclusive {
                // A queue a `.shared` owner used: its lease is honoured, and its later writes refused.
                try OwnershipFence.recordExclusiveOwner(
                    directory: path, fileSystem: fileSystem, clock: ownership.clock)
            }
            if try LogReplay.logFiles(in: path, fileSystem: fileSystem).isEmpty {
                try hold.fenced { try createLogFile(sequence: 1, instanceID: newInstanceID()) }
            }
            // Replay reads and changes nothing: what it refuses (a newer record, corruption) is refused
            // before any repair below. Unfinished snapshots are never read, so they go after it.
            var replay = try LogReplay(directory: path, fileSystem: fileSystem, mode: mode).run()
            try checkReplayed(replay.state)
            return try hold.fenced {
                try repair(
                    &replay, mode: mode, preallocationChunk: preallocationChunk, durability: durability, hold: hold)
            }
        } catch {
            lock.release()
            throw error
        }
    }

    /// The repairs of ``openForWriting(mode:createIfMissing:preallocationChunk:durability:ownership:checkReplayed:)``
    /// after replay, and the writer; inside the fence of a `.shared` owner.
    private func repair(
        _ replay: inout LogReplay.Outcome, mode: RecoveryMode, preallocationChunk: Int64, durability: Durability,
        hold: QueueHold
    ) throws -> Opened {
        do {
            try removeUnfinishedSnapshots()
            // What to repair is decided from what replay found (OpenRepairs); it is carried out here.
            let repairs = OpenRepairs.removals(after: replay, directory: path)
            if !repairs.removeObsolete.isEmpty {
                for obsolete in repairs.removeObsolete { try fileSystem.removeFile(at: obsolete) }
                try fileSystem.syncDirectory(at: path)
                replay.obsoleteFiles = []
            }
            if let torn = repairs.removeTornCreation {
                // Replay judged the directory without it, and writing resumes in the file before it.
                try fileSystem.removeFile(at: torn)
                try fileSystem.syncDirectory(at: path)
                replay.tornCreation = nil
                if repairs.createFirstFile {
                    try createLogFile(sequence: 1, instanceID: newInstanceID())
                    replay = try LogReplay(directory: path, fileSystem: fileSystem, mode: mode).run()
                }
            }
            guard let last = replay.lastFile else { throw SpoolError(.notAQueue, "no log file", path: path) }
            guard let instanceID = replay.instanceID, let header = replay.lastFileHeader else {
                throw SpoolError(.notAQueue, "no log header", path: last.path)
            }
            let lastFileRepairs = OpenRepairs.lastFile(after: replay, header: header)
            let file = try fileSystem.openFile(at: last.path, mode: .readWrite)
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
            let writer = LogWriter(
                file: file, fileSequence: last.sequence,
                seed: RecordFrame.checksumSeed(instanceID: instanceID),
                end: replay.lastFileValidEnd, lastLSN: replay.lastLSN,
                preallocationChunk: preallocationChunk, durability: durability, fence: hold.fence)
            return Opened(replay: replay, writer: writer, hold: hold)
        }
    }

    /// Deletes `snap-*.tmp` files: snapshots a compaction did not finish. They were never
    /// renamed into the log, so nothing reads them.
    private func removeUnfinishedSnapshots() throws {
        let unfinished = try fileSystem.contentsOfDirectory(at: path).filter(QueueDirectoryLayout.isSnapshotTemp)
        guard !unfinished.isEmpty else { return }
        for name in unfinished { try fileSystem.removeFile(at: path + "/" + name) }
        try fileSystem.syncDirectory(at: path)
    }

    /// Replays without writing or creating anything, under a shared lock (fails while the queue is
    /// open for writing); a directory without `LOCK` is read without a lock (see ``FileSystem/lockDirectory(at:exclusive:)``).
    func inspect(
        mode: RecoveryMode,
        visit: ((String, Int, UInt64, [LogOperation]) -> Void)? = nil
    ) throws -> LogReplay.Outcome {
        try inspect(mode: mode, visit: visit) { $0 }
    }

    /// Replays as ``inspect(mode:visit:)`` does, then runs `body` with the result while
    /// still holding the shared lock (so that it may read payloads from the log files).
    func inspect<T>(
        mode: RecoveryMode, visit: ((String, Int, UInt64, [LogOperation]) -> Void)? = nil,
        then body: (LogReplay.Outcome) throws -> T
    ) throws -> T {
        guard try checkIsQueue(mayCreate: false) else {
            throw SpoolError(.queueNotFound, "the directory holds no queue", path: path)
        }
        let lock = try fileSystem.lockDirectory(at: path, exclusive: false)
        defer { lock.release() }
        let replay = LogReplay(directory: path, fileSystem: fileSystem, mode: mode)
        // As open does: a file of a newer version anywhere (even one replay would not read) refuses the queue.
        try replay.refuseNewerFiles()
        return try body(try replay.run(inspect: visit))
    }

    /// Creates every missing directory on the path, syncing each one's parent
    /// so that the new entry survives a power cut.
    func createDirectories() throws {
        var parent = path.hasPrefix("/") ? "/" : "."
        for component in path.split(separator: "/") {
            let current = (parent == "/" ? "" : parent) + "/" + component
            if try fileSystem.entryKind(at: current) == nil {
                do {
                    try fileSystem.createDirectory(at: current)
                } catch let error as SpoolError where error.errno == Platform.Errno.exists {
                    // Another process creating the same queue made it between the check and the
                    // `mkdir`: a directory (or a link to one) is what was wanted. Its creator may not
                    // have synced the parent yet, so it is synced here too before anything goes in.
                    guard try fileSystem.entryKind(at: current).map({ $0 == .directory || $0 == .symbolicLink }) == true
                    else {
                        throw error
                    }
                }
                try fileSystem.syncDirectory(at: parent)
            }
            parent = current
        }
    }

    /// Creates a log file holding only its header, synced, with its directory entry synced.
    private func createLogFile(sequence: UInt64, instanceID: [UInt8]) throws {
        try openNewLogFile(sequence: sequence, instanceID: instanceID, firstLSN: 1).close()
    }

    /// Creates log file `sequence` (`O_EXCL`), writes its header, syncs it, then
    /// syncs the directory: only then may a record go into it. A crash before the
    /// header is synced leaves a file that open removes (shorter than a header, or zeroes).
    ///
    /// - Parameter firstLSN: The LSN its first record will have (the header names it).
    /// - Returns: The new file, open for reading and writing.
    func openNewLogFile(sequence: UInt64, instanceID: [UInt8], firstLSN: UInt64) throws -> any StorageFile {
        let filePath = path + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)
        let file = try fileSystem.openFile(at: filePath, mode: .createNew)
        do {
            try file.write(FileHeader(instanceID: instanceID, sequence: sequence, firstLSN: firstLSN).encoded(), at: 0)
            try file.syncData()
            try fileSystem.syncDirectory(at: path)
        } catch {
            file.close()
            throw error
        }
        return file
    }

    private func newInstanceID() -> [UInt8] {
        withUnsafeBytes(of: UUID().uuid) { Array($0) }
    }
}
