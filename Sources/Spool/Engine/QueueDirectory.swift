/// A queue directory: what it is, its inspection under a shared lock, its creation and its log files'
/// creation. Opening it for writing is QueueDirectory+Open.swift.
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
        guard let listing = try listIfDirectory(mayCreate: mayCreate) else { return false }
        return try judge(listing, mayCreate: mayCreate)
    }

    /// Lists `path` when it is a directory (or a link to one); `nil` when nothing is there and it may be
    /// created. Refuses anything else.
    func listIfDirectory(mayCreate: Bool) throws -> QueueListing? {
        // An empty path names no directory: every call on it would fail with a bare ENOENT.
        guard !path.isEmpty else { throw SpoolError.invalidArgument("the queue directory path is empty") }
        switch try fileSystem.entryKind(at: path) {
        case nil:
            guard mayCreate else { throw SpoolError(.queueNotFound, "no queue directory", path: path) }
            return nil
        case .directory?:
            break
        case .symbolicLink?:
            // The queue directory itself may be reached through a link; its entries may not.
            break
        case .file?, .other?:
            throw SpoolError(.notAQueue, "not a directory", path: path)
        }
        do {
            return try QueueListing.read(path, fileSystem: fileSystem)
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
    }

    /// Whether `listing` is a queue's: `true` when it holds log files, `false` when it holds none but may
    /// become one (nothing but what may come before the log, and `mayCreate`). Refuses any other directory.
    func judge(_ listing: QueueListing, mayCreate: Bool) throws -> Bool {
        let names = listing.names
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
    func createLogFile(sequence: UInt64, instanceID: [UInt8]) throws {
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

    func newInstanceID() -> [UInt8] {
        withUnsafeBytes(of: UUID().uuid) { Array($0) }
    }
}
