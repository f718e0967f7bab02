/// Reads a queue directory's log files in order, verifies every checksum and
/// applies every operation to a fresh ``QueueState``. It changes nothing on
/// disk; ``QueueDirectory`` decides what to repair.
struct LogReplay {
    let directory: String
    let fileSystem: any FileSystem
    let mode: RecoveryMode
    /// The directory as open listed it (under its lock); `nil`: replay lists it itself (an inspection).
    var listing: QueueListing? = nil

    /// A log file's name and sequence number.
    struct LogFile {
        var sequence: UInt64
        var path: String
    }

    /// What replay found.
    struct Outcome {
        var state = QueueState()
        var report = RecoveryReport()
        var instanceID: [UInt8]?
        var lastLSN: UInt64 = 0
        /// The last file read, where writing resumes.
        var lastFile: LogFile?
        /// The header of the last file read.
        var lastFileHeader: FileHeader?
        /// Where the last intact record of the last file ends.
        var lastFileValidEnd: Int64 = 0
        /// The last file ended in a torn tail at this offset.
        var tornTailOffset: Int64?
        /// The last file's size on disk.
        var lastFileSize: Int64 = 0
        /// The size of each file read, by sequence number (the automatic compaction weighs the log's bytes).
        var fileSizes: [UInt64: Int64] = [:]
        /// A file after the last one read, holding no complete header (shorter than one, or
        /// zeroes): a creation torn by a crash, set aside unread (open removes it), with its size.
        var tornCreation: (file: LogFile, size: Int64)?
        /// The file read before the current one and where its last intact record ends, for
        /// the continuity check of the next file's header.
        var previousFile: (file: LogFile, validEnd: Int64)?
        /// Log format version of each file read.
        var versions: Set<UInt16> = []
        /// Files read per format version.
        var fileVersions: [UInt16: Int] = [:]
        /// Records read per body version (a count per possible version byte: replay adds one per record).
        var bodyVersionCounts = [Int](repeating: 0, count: 256)
        /// Records read per body version, for the versions read.
        var bodyVersions: [UInt8: Int] {
            var versions: [UInt8: Int] = [:]
            for (version, count) in bodyVersionCounts.enumerated() where count > 0 { versions[UInt8(version)] = count }
            return versions
        }
        /// Migrations begun in the log but never committed (a crash cut them short), discarded.
        var abandonedMigrations = 0
        /// The newest snapshot, where replay started.
        var snapshotSequence: UInt64?
        /// Transition records (those that enqueue no job) replayed after the snapshot (all of
        /// them when there is none): what the automatic compaction's trigger weighs besides bytes.
        var transitionRecordsAfterSnapshot = 0
        /// Transition records replayed so far, the snapshot's included.
        var transitionRecords = 0
        /// Files before the newest snapshot: obsolete, not read.
        var obsoleteFiles: [LogFile] = []
        /// What ``JobIndexWarmer`` read, kept so that its reads are not optimised away.
        var indexWarmerSink: UInt64 = 0
    }

    /// Log files in the directory, in sequence order; other names are ignored.
    static func logFiles(in directory: String, fileSystem: any FileSystem) throws -> [LogFile] {
        try QueueListing.read(directory, fileSystem: fileSystem).logFiles
    }

    /// The log files replay reads: those of ``listing``, or of a listing of its own.
    private func logFiles() throws -> [LogFile] {
        try listing?.logFiles ?? Self.logFiles(in: directory, fileSystem: fileSystem)
    }

    /// Replays every file. `inspect` sees each record's operations before they are applied.
    func run(inspect: ((_ path: String, _ offset: Int, _ lsn: UInt64, _ operations: [LogOperation]) -> Void)? = nil)
        throws -> Outcome
    {
        var result = Outcome()
        var files = try logFiles()
        for logFile in files {
            let kind = try fileSystem.entryKind(at: logFile.path)
            if kind == .file { continue }
            // Listed, then gone: removed meanwhile (a reader without a lock reads again from the listing).
            if kind == nil {
                throw SpoolError(
                    .ioFailure, "the log file was removed after the directory was listed", path: logFile.path,
                    errno: Platform.Errno.noSuchEntry, operation: "lstat")
            }
            throw SpoolError(
                .notAQueue, "a log file name that is not a regular file (symbolic links are not followed)",
                path: logFile.path)
        }
        // The writer counts files up from 1 and never comes near this; a larger number is damage, and
        // the arithmetic on file numbers (the next file, a gap) may then trust its range.
        if let beyond = files.last, beyond.sequence > QueueDirectoryLayout.maximumFileSequence {
            throw SpoolError(
                .corruption,
                "log file number \(beyond.sequence) is out of range (at most "
                    + "\(QueueDirectoryLayout.maximumFileSequence))", path: beyond.path)
        }
        // A last file without a complete header is a creation a crash cut short: it never held an
        // acknowledged record, and open removes it. The rest of the directory is judged as open
        // leaves it, so that a read-only inspection and open accept and refuse the same queues.
        if let last = files.last, let size = try tornCreationSize(last) {
            if files.count > 1 { try Self.checkNumbering(last, after: files[files.count - 2]) }
            result.tornCreation = (last, size)
            files.removeLast()
        }
        if let start = try files.lastIndex(where: isSnapshot) {
            // A snapshot is complete before it gets its name: replay starts from the newest one.
            result.snapshotSequence = files[start].sequence
            result.obsoleteFiles = Array(files[..<start])
            files.removeFirst(start)
        }
        // Without a snapshot the log starts at file 1: files are only ever removed once a snapshot replaces them.
        let lowest = files.first ?? result.tornCreation?.file
        if result.snapshotSequence == nil, let lowest, lowest.sequence != 1 {
            // The lowest file may be a snapshot whose header or first record is damaged: say so, where.
            if let damage = try firstRecordDamage(lowest) { throw damage }
            throw SpoolError(
                .corruption, "log files 1 to \(lowest.sequence - 1) are missing (no snapshot replaces them)",
                path: lowest.path)
        }
        var snapshotRecords = 0
        for (index, logFile) in files.enumerated() {
            let isLast = index == files.count - 1
            if index > 0 { try Self.checkNumbering(logFile, after: files[index - 1]) }
            if index == 0, result.snapshotSequence != nil {
                guard !isLast else {
                    if let torn = result.tornCreation {
                        // The file after a snapshot had its header synced before the snapshot got its name
                        // (FORMAT.md, *Snapshots and compaction*): no crash leaves it torn.
                        throw SpoolError(
                            .corruption,
                            "the file after the snapshot \(logFile.sequence) holds no complete header (\(torn.size) bytes); no crash leaves it so",
                            path: torn.file.path, offset: 0)
                    }
                    throw SpoolError(
                        .corruption, "a snapshot is the last log file; the file after it is missing",
                        path: logFile.path)
                }
                try replayFile(logFile, isLast: false, mayEndTorn: false, into: &result, inspect: inspect)
                snapshotRecords = result.transitionRecords
                guard let summary = result.state.summary else {
                    throw SpoolError(.corruption, "the snapshot holds no summary", path: logFile.path)
                }
                // Its records are numbered from 1: the last one read is how many it holds.
                if let extent = result.state.snapshotExtent, extent != result.lastLSN {
                    let end = result.previousFile?.validEnd ?? 0
                    let damage = LogDamage(
                        offset: Int(end),
                        kind: .snapshotCut(
                            .init(
                                path: logFile.path, offset: end, length: 0,
                                reason: result.lastLSN < extent
                                    ? "the snapshot holds \(result.lastLSN) of the \(extent) records its first record "
                                        + "announces: it ends early, and the jobs of the missing records are lost"
                                    : "the snapshot holds \(result.lastLSN) records, more than the \(extent) records its "
                                        + "first record announces: records were added after its end, or the count is damaged"
                            )))
                    try carryOut(RecoveryPlan.decide(damage, mode: mode), file: logFile, into: &result)
                }
                // The snapshot's own records are numbered from 1; the log goes on after the last LSN it includes.
                result.lastLSN = summary.lastLSN
            } else {
                // The file before a torn creation was complete before that file was made: it may not end torn.
                try replayFile(
                    logFile, isLast: isLast, mayEndTorn: isLast && result.tornCreation == nil,
                    into: &result, inspect: inspect)
            }
            result.report.filesRead += 1
        }
        result.transitionRecordsAfterSnapshot = result.transitionRecords - snapshotRecords
        if result.state.pendingMigration != nil {
            result.abandonedMigrations += 1
            result.state.abandonPendingMigration()
        }
        result.state.finishReplay()
        return result
    }

    /// Refuses a gap in the file numbers: one number may be free between two files (the place of a
    /// snapshot a compaction never completed: it rolled the log over past it), never two.
    static func checkNumbering(_ logFile: LogFile, after previous: LogFile) throws {
        guard logFile.sequence != previous.sequence + 1, logFile.sequence != previous.sequence + 2 else { return }
        throw SpoolError(.corruption, "log file \(previous.sequence + 1) is missing", path: logFile.path)
    }

    /// The size of `logFile` when it holds no complete header: shorter than a header of the version its
    /// first bytes name (a prefix of one, or zeroes), or zeroes only; `nil` for any other file.
    func tornCreationSize(_ logFile: LogFile) throws -> Int64? {
        let file = try fileSystem.openFile(at: logFile.path, mode: .readOnly)
        defer { file.close() }
        let size = try file.size()
        let head = try file.read(at: 0, count: LogFormat.longestFileHeaderSize)
        guard case .failure(.incomplete) = head.withUnsafeBytes({ FileHeader.decode($0) }) else { return nil }
        // `incomplete` is a prefix of a header (from the magic's first byte on), or a header's worth of
        // zeroes: that is a torn creation only when every byte of the file is zero (space a crash left zeroed).
        if head.first == LogFormat.magic.first { return size }
        return try file.withContents { $0.allSatisfy { $0 == 0 } } ? size : nil
    }

    /// Reads the header of every log file and refuses, before anything is changed, a queue holding a
    /// file written in a newer format version: open must not repair or delete anything in it.
    func refuseNewerFiles() throws {
        for logFile in try logFiles() {
            guard try fileSystem.entryKind(at: logFile.path) == .file else { continue }
            let file = try fileSystem.openFile(at: logFile.path, mode: .readOnly)
            defer { file.close() }
            let head = try file.read(at: 0, count: LogFormat.fileHeaderSize)
            if case .failure(.newerVersion(let version)) = head.withUnsafeBytes({ FileHeader.decode($0) }) {
                throw Self.newerFileError(version: version, path: logFile.path)
            }
        }
    }

    static func newerFileError(version: UInt16, path: String) -> SpoolError {
        SpoolError(
            .newerFormat,
            "written in file format version \(version); this build reads versions \(LogFormat.oldestReadableVersion) to \(LogFormat.currentVersion)",
            path: path, offset: 8)
    }

    static func newerRecordError(lsn: UInt64, version: UInt8, path: String, offset: Int) -> SpoolError {
        SpoolError(
            .newerFormat,
            "record \(lsn) has body version \(version); this build reads body versions \(TransactionCodec.baseBodyVersion) to \(TransactionCodec.bodyVersion)",
            path: path, offset: Int64(offset))
    }

    /// Replays one file.
    ///
    /// - Parameters:
    ///   - isLast: The file is the last one read: writing resumes in it.
    ///   - mayEndTorn: Damage at its end may be a torn tail (only the directory's last file).
    private func replayFile(
        _ logFile: LogFile, isLast: Bool, mayEndTorn: Bool, into result: inout Outcome,
        inspect: ((String, Int, UInt64, [LogOperation]) -> Void)?
    ) throws {
        let file = try fileSystem.openFile(at: logFile.path, mode: .readOnly)
        defer { file.close() }
        try file.withContents { raw in
            result.state.reserveJobs(forLogBytes: raw.count)
            result.fileSizes[logFile.sequence] = Int64(raw.count)
            if isLast {
                result.lastFile = logFile
                result.lastFileSize = Int64(raw.count)
            }
            let header: FileHeader
            switch FileHeader.decode(raw) {
            case .success(let decoded):
                header = decoded
            case .failure(.incomplete):
                // Only a last file can be a torn creation, and ``run(inspect:)`` set that aside.
                throw SpoolError(.corruption, "the file header is incomplete", path: logFile.path, offset: 0)
            case .failure(.notASpoolFile):
                throw SpoolError(.notAQueue, "not a Spool log file (wrong magic)", path: logFile.path, offset: 0)
            case .failure(.newerVersion(let version)):
                throw Self.newerFileError(version: version, path: logFile.path)
            case .failure(.damaged(let reason)):
                throw SpoolError(.corruption, "damaged file header: \(reason)", path: logFile.path, offset: 0)
            }
            guard header.sequence == logFile.sequence else {
                throw SpoolError(
                    .corruption, "header says file \(header.sequence), name says \(logFile.sequence)",
                    path: logFile.path, offset: 28)
            }
            if let instance = result.instanceID, instance != header.instanceID {
                throw SpoolError(
                    .corruption, "the file belongs to another queue (instance id differs)",
                    path: logFile.path, offset: 12)
            }
            result.instanceID = header.instanceID
            result.versions.insert(header.version)
            result.fileVersions[header.version, default: 0] += 1
            if isLast { result.lastFileHeader = header }
            var expectedLSN = result.snapshotSequence == logFile.sequence ? 1 : result.lastLSN + 1
            if let firstLSN = header.firstLSN, firstLSN != expectedLSN {
                try checkContinuity(logFile, firstLSN: firstLSN, expected: expectedLSN, into: &result)
                expectedLSN = max(expectedLSN, firstLSN)
            }

            let scanner = LogScanner(
                bytes: raw, seed: RecordFrame.checksumSeed(instanceID: header.instanceID),
                isLastFile: mayEndTorn, mode: mode)
            let outcome: LogScanner.Outcome
            var warmer = JobIndexWarmer()
            defer { result.indexWarmerSink ^= warmer.sink }
            do {
                outcome = try scanner.scan(from: header.size, expectedLSN: expectedLSN) { event in
                    switch event {
                    case .skipped(let offset, let length, let reason):
                        Self.skip(
                            .init(path: logFile.path, offset: Int64(offset), length: Int64(length), reason: reason),
                            into: &result)
                    case .stale(let found, let reason):
                        // Passing over it unread is only right for a record this build could read: one of a
                        // newer body version may be what a newer build wrote after its own compaction.
                        if found.bodyRange.count > 0, raw[found.bodyRange.lowerBound] > TransactionCodec.bodyVersion {
                            throw Self.newerRecordError(
                                lsn: found.header.lsn, version: raw[found.bodyRange.lowerBound],
                                path: logFile.path, offset: found.offset)
                        }
                        Self.skip(
                            .init(
                                path: logFile.path, offset: Int64(found.offset),
                                length: Int64(found.end - found.offset), reason: reason), into: &result)
                    case .record(let found):
                        warmer.warm(recordAt: found.offset, in: raw, jobs: result.state.jobs)
                        try applyRecord(found, in: raw, file: logFile, into: &result, inspect: inspect)
                    }
                }
            } catch let corruption as LogScanner.Corruption {
                throw SpoolError(.corruption, corruption.reason, path: logFile.path, offset: Int64(corruption.offset))
            }
            if isLast {
                result.lastFileValidEnd = Int64(outcome.validEnd)
                result.tornTailOffset = outcome.tornTailOffset.map(Int64.init)
            }
            result.previousFile = (logFile, Int64(outcome.validEnd))
        }
    }

    private func applyRecord(
        _ found: RecordFrame.Found, in raw: UnsafeRawBufferPointer, file: LogFile,
        into result: inout Outcome,
        inspect: ((String, Int, UInt64, [LogOperation]) -> Void)?
    ) throws {
        let body = UnsafeRawBufferPointer(rebasing: raw[found.bodyRange])
        var decoder: TransactionCodec.BodyDecoder
        do {
            decoder = try TransactionCodec.BodyDecoder(
                body, fileSequence: file.sequence,
                bodyOffset: Int64(found.bodyRange.lowerBound))
            if mode == .strict && inspect == nil {
                // A record that does not decode or apply fails the whole open in strict mode, so
                // no state built from part of it survives: each operation is applied as it is
                // decoded, without a list of them (a snapshot record holds thousands of jobs).
                var isFirst = true
                while let operation = try decoder.next() {
                    if isFirst, !operation.enqueuesJob { result.transitionRecords += 1 }
                    isFirst = false
                    do {
                        try result.state.apply(operation)
                    } catch {
                        let damage = LogDamage(
                            offset: found.offset,
                            kind: .operationRefused(lsn: found.header.lsn, reason: "\(error)"))
                        try carryOut(RecoveryPlan.decide(damage, mode: mode), file: file, into: &result)
                    }
                }
            } else {
                // Salvage skips a record that does not decode whole, before applying any of it;
                // inspection sees each record's operations before they are applied.
                var operations: [LogOperation] = []
                operations.reserveCapacity(decoder.count)
                while let operation = try decoder.next() { operations.append(operation) }
                inspect?(file.path, found.offset, found.header.lsn, operations)
                try applyEach(operations, of: found, file: file, into: &result)
                if let first = operations.first, !first.enqueuesJob { result.transitionRecords += 1 }
            }
        } catch TransactionCodec.Failure.newerBodyVersion(let version) {
            throw Self.newerRecordError(lsn: found.header.lsn, version: version, path: file.path, offset: found.offset)
        } catch TransactionCodec.Failure.malformed(let reason) {
            let damage = LogDamage(
                offset: found.offset,
                kind: .undecodableRecord(lsn: found.header.lsn, end: found.end, reason: reason))
            try carryOut(RecoveryPlan.decide(damage, mode: mode), file: file, into: &result)
            result.lastLSN = found.header.lsn
            return
        }
        result.bodyVersionCounts[Int(decoder.version)] += 1
        result.report.recordsReplayed += 1
        result.lastLSN = found.header.lsn
    }

    /// Applies a decoded record's operations in order; in salvage mode one that does not apply is skipped.
    private func applyEach(
        _ operations: [LogOperation], of found: RecordFrame.Found, file: LogFile,
        into result: inout Outcome
    ) throws(SpoolError) {
        for operation in operations {
            do {
                try result.state.apply(operation)
            } catch {
                let damage = LogDamage(
                    offset: found.offset,
                    kind: .operationRefused(lsn: found.header.lsn, reason: "\(error)"))
                try carryOut(RecoveryPlan.decide(damage, mode: mode), file: file, into: &result)
            }
        }
    }

}
