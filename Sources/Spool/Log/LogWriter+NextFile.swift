/// A writer made at a roll-over, before its file exists: the roll-over moved the log to it under
/// the engine's lock without touching the disk, and its first leader (a blocking caller on its own
/// thread, or the flusher for an async one) makes the file.
extension LogWriter {
    /// How a writer made at a roll-over makes its file.
    struct NextFile {
        /// The writer of the file before: retired before the file is made, so that only the last
        /// file of the log can end in a torn group.
        let predecessor: LogWriter
        /// Creates the file, writes its header and syncs it and the directory (inside the fence).
        let create: @Sendable () throws -> any StorageFile
    }

    /// The first step of the first leader of a writer made at a roll-over (with the leader's role):
    /// the writer before retires (its records all durable, its reserved space cut), then the file
    /// is made; only then may a record of this writer be written. A failure fails the writer, and
    /// with it every waiter and later call, as a failed write does.
    func openNextFile() throws {
        guard let next = lock.withLock({ nextFile }) else { return }
        do {
            _ = try next.predecessor.retire()
            let file = try next.create()
            let before = next.predecessor.currentStatistics
            output = CommitFile(file: file, end: Int64(LogFormat.fileHeaderSize), settings: settings)
            lock.withLock {
                opened = file
                inherited = before
                nextFile = nil
            }
        } catch {
            let failure = error as? SpoolError ?? SpoolError(.ioFailure, "\(error)", path: path)
            poison(with: failure, counting: WriterStatistics())
            throw failure
        }
    }

    /// Makes the file of a writer made at a roll-over that was given no record (a roll-over right
    /// after it, a compaction's): the file numbers must follow one another without a gap.
    func openNextFileWithoutRecords() throws {
        let leads = try lock.withLock { () throws(SpoolError) -> Bool in
            guard nextFile != nil, !leaderActive else { return false }
            if let failure { throw failure }
            leaderActive = true
            return true
        }
        if leads { try lead() }
    }

    /// The writer of file `sequence` when it is one before this writer that has not retired yet
    /// (its records may not be in its file yet); `nil` otherwise. For payload reads.
    func unretiredWriter(ofFile sequence: UInt64) -> LogWriter? {
        var writer = lock.withLock { nextFile?.predecessor }
        while let candidate = writer {
            if candidate.fileSequence == sequence { return candidate }
            writer = candidate.lock.withLock { candidate.nextFile?.predecessor }
        }
        return nil
    }
}
