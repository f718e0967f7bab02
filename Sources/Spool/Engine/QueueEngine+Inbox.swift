#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The owner's ingestion of the producers' inbox files (FORMAT.md, *Producer inbox files*).
extension QueueEngine {
    /// The folder holding the producers' inbox files.
    var inboxPath: String { InboxFormat.directory(ofQueue: path) }

    /// Whether the queue has an inbox folder (a producer ever wrote into it).
    var hasInbox: Bool { (try? configuration.fileSystem.entryKind(at: inboxPath)) == .directory }

    /// The most body bytes of producer records one ingestion transaction takes (far below a record's maximum).
    static let ingestionTarget = 8 << 20

    /// An inbox file read to its end is removed by the next ingestion that finds nothing new in it once
    /// its records reach this offset, without waiting for it to settle (a producer that never pauses).
    static let inboxFileRemovalSize = 1 << 20

    /// Ingests every inbox file whose lock is free: their new records go into the log, each file's in
    /// one transaction (or a few, for a file holding more than ``ingestionTarget`` bytes) together with
    /// `inbox_ingested`, and a file read to its end is removed. A busy file (its producer is writing)
    /// waits for the next ingestion.
    ///
    /// A refused request (a cancel of a finished job, an id in use, a missing prerequisite) is dropped,
    /// as a key held under policy keep is: it never fails the ingestion.
    ///
    /// - Returns: The jobs ingested.
    /// - Throws: The first file's error (``SpoolError/Code/corruption`` naming its path and offset,
    ///   ``SpoolError/Code/newerFormat``, an I/O error), after every other file was ingested.
    func ingestInbox() throws -> Int {
        try ingestionLock.withLock { try ingestEveryInboxFile() }
    }

    /// ``ingestInbox()``'s work, under ``ingestionLock``.
    private func ingestEveryInboxFile() throws -> Int {
        try withOpenState {}
        let fileSystem = configuration.fileSystem
        guard try fileSystem.entryKind(at: inboxPath) == .directory else { return 0 }
        var ingested = 0
        var firstFailure: (any Error)?
        for name in try fileSystem.contentsOfDirectory(at: inboxPath).sorted() {
            guard let id = InboxFormat.fileID(fromName: name) else { continue }
            do {
                ingested += try ingestInboxFile(name: name, id: id)
            } catch {
                if let spool = error as? SpoolError, spool.code == .closed || spool.code == .needsReopen { throw spool }
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
        return ingested
    }

    /// Ingests one inbox file under its lock; returns the jobs ingested (0 when its lock is busy).
    private func ingestInboxFile(name: String, id: [UInt8]) throws -> Int {
        let fileSystem = configuration.fileSystem
        let filePath = inboxPath + "/" + name
        let file: any StorageFile
        do {
            file = try fileSystem.openFile(at: filePath, mode: .readWrite)
        } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
            return 0
        }
        defer { file.close() }
        // Busy: its producer is writing, and posts a wake-up once it unlocked (InboxDoorbell).
        guard try file.tryLockFile() else { return 0 }
        var locked = true
        defer { if locked { file.unlockFile() } }
        // Removed by an ingestion between the listing and the lock.
        guard try file.linkCount() > 0 else { return 0 }
        let bytes = try file.read(at: 0, count: Int(try file.size()))
        let recorded = lock.withLock { state.inboxOffsets[name] }
        let outcome = try bytes.withUnsafeBytes { raw -> InboxScanner.Outcome? in
            guard try InboxScanner.checkHeader(raw, id: id, path: filePath) else { return nil }
            return try InboxScanner.scan(raw, id: id, path: filePath, from: Int(recorded ?? 0))
        }
        // A creation cut short holds nothing a producer acknowledged: the file goes — at the second
        // ingestion that finds it so, as its producer may be between creating it and locking it to
        // write its first record (an owner woken by the file's creation would otherwise remove it
        // under that producer every time).
        guard let outcome else {
            let seenBefore = lock.withLock { !headerlessInboxFiles.insert(name).inserted }
            if seenBefore {
                try fileSystem.removeFile(at: filePath)
                lock.withLock { _ = headerlessInboxFiles.remove(name) }
            }
            return 0
        }
        guard !outcome.records.isEmpty else {
            // Read to its end before: removed once it has settled (FORMAT.md, owner's ingestion step 5).
            if settled(name, end: outcome.end) {
                try fileSystem.removeFile(at: filePath)
                lock.withLock { _ = settledInboxFiles.removeValue(forKey: name) }
            }
            return 0
        }
        // What was read is complete and synced (the producer writes only under the lock): the commit
        // needs the file no more, and its producer may append meanwhile instead of moving to a new file.
        file.unlockFile()
        locked = false
        var ingested = 0
        var records = outcome.records[...]
        while !records.isEmpty {
            var chunk = 0
            var bodyBytes = 0
            while chunk < records.count,
                chunk == 0 || bodyBytes + records[records.startIndex + chunk].bodyBytes <= Self.ingestionTarget
            {
                bodyBytes += records[records.startIndex + chunk].bodyBytes
                chunk += 1
            }
            let taken = Array(records.prefix(chunk))
            records = records.dropFirst(chunk)
            ingested += try durably { engine in
                try engine.commitIngestion(of: taken, from: bytes, file: name)
            }
        }
        // Read to its end (a torn tail is a producer's last write, cut short: nothing follows it ever).
        lock.withLock { settledInboxFiles[name] = (outcome.end, nowMillis) }
        return ingested
    }

    /// Whether inbox file `name`, found with nothing new after its records' `end`, is to be removed: an
    /// earlier ingestion read it to the same end, and either its records fill ``inboxFileRemovalSize``
    /// bytes or none came for ``Configuration/inboxCheckInterval``. The removal needs no directory sync:
    /// should it be lost, the recorded offset says all is in.
    private func settled(_ name: String, end: Int) -> Bool {
        let now = nowMillis
        // Clamped before the conversion, which traps on a value past Int64 (an infinite interval).
        let interval = Int64(min((configuration.inboxCheckInterval * 1000).rounded(.up), 1e15))
        return lock.withLock {
            guard let seen = settledInboxFiles[name], seen.end == end else {
                settledInboxFiles[name] = (end, now)
                return false
            }
            return end >= Self.inboxFileRemovalSize || now - seen.since >= interval
        }
    }

    /// Commits the requests of `records` (of the inbox file `file`, whose bytes are `bytes`), each judged
    /// by the rules where it comes, and `inbox_ingested` up to the last one's end, in one transaction.
    private func commitIngestion(of records: [InboxScanner.Record], from bytes: [UInt8], file: String) throws
        -> Pending<Int>
    {
        try withOpenState {
            var plan = EnqueuePlan(jobs: records.reduce(0) { $0 + $1.entries.count }, over: state)
            var enqueued = 0
            for record in records {
                for (index, entry) in record.entries.enumerated() {
                    switch entry {
                    case .enqueue(let job, let policy):
                        let start = Int(job.payload.offset)
                        let payload = Data(bytes[start..<(start + Int(job.payload.length))])
                        var new = NewEnqueue(
                            id: job.id, kind: job.kind, payload: payload, priority: job.priority,
                            createdAt: job.createdAt, runAt: job.runAt, maxAttempts: job.maxAttempts,
                            uniqueKey: job.uniqueKey, options: job.options)
                        // Its tags are the entry after it (the decoder checked they name it).
                        if index + 1 < record.entries.count, case .tags(_, let tags) = record.entries[index + 1] {
                            new.tags = tags
                        }
                        if plan.addIfTaken(policy: policy, new) { enqueued += 1 }
                    case .cancel(let id, let at):
                        _ = plan.addIfTaken(.cancel(id: id, at: at))
                    case .tags:
                        // Taken with the enqueue before it, or dropped with it.
                        break
                    }
                }
            }
            _ = plan.addIfTaken(.inboxIngested(file: file, offset: Int64(records.last!.end)))
            return Pending(enqueued, try commit(plan.finish()))
        }
    }

    /// The `inbox_ingested` entries a snapshot keeps: those of the inbox files that still exist. The
    /// folder is listed, then synced: a file missing from the listing was removed before it, so the
    /// sync makes its removal durable before the snapshot forgets its entry.
    func inboxOffsetsToKeep(_ offsets: [String: Int64]) throws -> [String: Int64] {
        guard !offsets.isEmpty else { return [:] }
        let fileSystem = configuration.fileSystem
        guard try fileSystem.entryKind(at: inboxPath) == .directory else { return [:] }
        let present = Set(try fileSystem.contentsOfDirectory(at: inboxPath))
        try fileSystem.syncDirectory(at: inboxPath)
        return offsets.filter { present.contains($0.key) }
    }
}
