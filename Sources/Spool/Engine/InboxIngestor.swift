/// The owner's ingestion of the producers' inbox files (FORMAT.md, *Producer inbox files*, "The owner's
/// ingestion"): reads every file it can lock, merges their pending records into one sequence
/// (``InboxMerge``), commits them with `inbox_ingested`, and removes files that have settled.
///
/// It owns what it remembers between ingestions — files found without a header, files read to their
/// end — and its turn: one ingestion at a time in this process. (An inbox file's lock is the process's
/// (POSIX), so two ingestions here would both get it, and the first to close its handle would release
/// it under the other, which then removes a file a producer has written more into.)
final class InboxIngestor: Sendable {
    /// The most body bytes of producer records one ingestion transaction takes (far below a record's maximum).
    static let transactionTarget = 8 << 20

    /// An inbox file read to its end is removed by the next ingestion that finds nothing new in it once
    /// its records reach this offset, without waiting for it to settle (a producer that never pauses).
    static let removalSize = 1 << 20

    private let memory = Locked(Memory())
    private let order: InboxOrder

    init(order: InboxOrder = .merged) {
        self.order = order
    }

    /// What an ingestion remembers for the next (guarded by `memory`'s lock, held for a whole ingestion).
    private struct Memory {
        /// Files found without a complete header: each is removed by the next ingestion that finds it so
        /// again, not by the first, whose producer may be between creating it and writing into it.
        var headerless: Set<String> = []
        /// Files read to their end: the end of their records and when (ms). A later ingestion that finds
        /// nothing new in one removes it once ``removalSize`` or the check interval says so.
        var settled: [String: (end: Int, since: Int64)] = [:]
    }

    /// One file's bytes as read, and its records from the recorded offset.
    struct ReadFile {
        var name: String
        var bytes: [UInt8]
        var outcome: InboxScanner.Outcome
        /// Read under its lock (all of it judged), or while its producer was writing (its complete records only).
        var readUnderLock: Bool
    }

    /// One taken record, in the order to apply: its file and the record.
    struct Item {
        var file: ReadFile
        var record: InboxScanner.Record
    }

    /// What one ingestion did: the jobs it ingested, and the error of each file it could not read (those
    /// files left as they are).
    struct Outcome {
        var ingested = 0
        var unreadable: [any Error] = []
    }

    /// Ingests the inbox of `engine`'s queue; see ``QueueEngine/ingestInbox()``. Throws only what ends the
    /// whole ingestion (the queue closed, a failed commit); a file's own error is in the outcome.
    func ingest(into engine: QueueEngine) throws -> Outcome {
        try memory.withLock { memory in try ingest(into: engine, remembering: &memory) }
    }

    private func ingest(into engine: QueueEngine, remembering memory: inout Memory) throws -> Outcome {
        try engine.withOpenState {}
        let fileSystem = engine.configuration.fileSystem
        guard try fileSystem.entryKind(at: engine.inboxPath) == .directory else { return Outcome() }
        // Read before the listing: a file created after it holds only later readings.
        let clock = engine.configuration.clock
        let cutoff = InboxMerge.Cutoff(boot: clock.bootIdentifier(), now: clock.monotonicNanoseconds())
        var files: [ReadFile] = []
        var outcome = Outcome()
        for name in try fileSystem.contentsOfDirectory(at: engine.inboxPath).sorted() {
            guard let id = InboxFormat.fileID(fromName: name) else { continue }
            do {
                if let file = try look(at: name, id: id, engine: engine, memory: &memory) { files.append(file) }
            } catch {
                if let spool = error as? SpoolError, spool.code == .closed || spool.code == .needsReopen { throw spool }
                outcome.unreadable.append(error)
            }
        }
        var items = taken(from: files, cutoff: cutoff)[...]
        while !items.isEmpty {
            var count = 0
            var bodyBytes = 0
            while count < items.count,
                count == 0 || bodyBytes + items[items.startIndex + count].record.bodyBytes <= Self.transactionTarget
            {
                bodyBytes += items[items.startIndex + count].record.bodyBytes
                count += 1
            }
            let chunk = Array(items.prefix(count))
            items = items.dropFirst(count)
            outcome.ingested += try engine.durably { try $0.commitIngestion(of: chunk) }
        }
        // The files taken to their end (a torn tail is a producer's last write, cut short: nothing follows it).
        let now = engine.nowMillis
        for file in files where file.readUnderLock && taken(file, cutoff: cutoff) {
            memory.settled[file.name] = (file.outcome.end, now)
        }
        return outcome
    }

    /// The pending records of `files` to apply now, in order.
    private func taken(from files: [ReadFile], cutoff: InboxMerge.Cutoff) -> [Item] {
        switch order {
        case .merged:
            let steps = InboxMerge.order(
                names: files.map(\.name), stamps: files.map { $0.outcome.records.map(\.stamp) }, cutoff: cutoff)
            return steps.map { Item(file: files[$0.file], record: files[$0.file].outcome.records[$0.record]) }
        case .fileByFile:
            return files.flatMap { file in file.outcome.records.map { Item(file: file, record: $0) } }
        }
    }

    /// Whether every pending record of `file` is taken now (``taken(from:cutoff:)``, for one file).
    private func taken(_ file: ReadFile, cutoff: InboxMerge.Cutoff) -> Bool {
        guard case .merged = order else { return true }
        return file.outcome.records.allSatisfy { record in
            guard let stamp = record.stamp, stamp.bootID == cutoff.boot else { return true }
            return cutoff.takes(stamp.monotonic)
        }
    }

    /// Reads one inbox file: its records from the offset the log records for it, or `nil` when it has
    /// none to take. Under its lock, a file read to its end before is removed once it has settled, and one
    /// without a header the second time an ingestion finds it so. A file whose producer holds the lock is
    /// read without it: its complete records are taken all the same, so a producer stopped in the middle
    /// of a call holds back neither its own acknowledged records nor, by the merge, anyone else's.
    private func look(at name: String, id: [UInt8], engine: QueueEngine, memory: inout Memory) throws -> ReadFile? {
        let fileSystem = engine.configuration.fileSystem
        let filePath = engine.inboxPath + "/" + name
        let file: any StorageFile
        do {
            file = try fileSystem.openFile(at: filePath, mode: .readWrite)
        } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
            return nil
        }
        defer { file.close() }
        let recorded = Int(engine.lock.withLock { engine.state.inboxOffsets[name] } ?? Int64(InboxFormat.headerSize))
        guard try file.tryLockFile() else {
            let bytes = try file.read(at: 0, count: Int(try file.size()))
            let outcome = bytes.withUnsafeBytes { InboxScanner.scanWhileWritten($0, id: id, from: recorded) }
            guard let outcome, !outcome.records.isEmpty else { return nil }
            return ReadFile(name: name, bytes: bytes, outcome: outcome, readUnderLock: false)
        }
        defer { file.unlockFile() }
        // Removed by an ingestion between the listing and the lock.
        guard try file.linkCount() > 0 else { return nil }
        let bytes = try file.read(at: 0, count: Int(try file.size()))
        let outcome = try bytes.withUnsafeBytes { raw -> InboxScanner.Outcome? in
            guard try InboxScanner.checkHeader(raw, id: id, path: filePath) else { return nil }
            return try InboxScanner.scan(raw, id: id, path: filePath, from: recorded)
        }
        let clock = engine.configuration.clock
        try InboxScanner.checkStamps(
            outcome?.records ?? [], boot: clock.bootIdentifier(), readAfter: clock.monotonicNanoseconds(),
            path: filePath)
        guard let outcome else {
            // A creation cut short holds nothing a producer acknowledged: the file goes — at the second
            // ingestion that finds it so, as its producer may be between creating it and locking it.
            if !memory.headerless.insert(name).inserted {
                try fileSystem.removeFile(at: filePath)
                memory.headerless.remove(name)
            }
            return nil
        }
        guard !outcome.records.isEmpty else {
            if settled(name, end: outcome.end, engine: engine, memory: &memory) {
                try fileSystem.removeFile(at: filePath)
                memory.settled.removeValue(forKey: name)
            }
            return nil
        }
        // What was read is complete and synced (the producer writes only under the lock): the commit
        // needs the file no more, and its producer may append meanwhile instead of moving to a new file.
        return ReadFile(name: name, bytes: bytes, outcome: outcome, readUnderLock: true)
    }

    /// Whether inbox file `name`, found with nothing new after its records' `end`, is to be removed: an
    /// earlier ingestion read it to the same end, and either its records fill ``removalSize`` bytes or
    /// none came for ``Configuration/inboxCheckInterval``. The removal needs no directory sync: should it
    /// be lost, the recorded offset says all is in.
    private func settled(_ name: String, end: Int, engine: QueueEngine, memory: inout Memory) -> Bool {
        let now = engine.nowMillis
        // Clamped before the conversion, which traps on a value past Int64 (an infinite interval).
        let interval = Int64(min((engine.configuration.inboxCheckInterval * 1000).rounded(.up), 1e15))
        guard let seen = memory.settled[name], seen.end == end else {
            memory.settled[name] = (end, now)
            return false
        }
        return end >= Self.removalSize || now - seen.since >= interval
    }
}
