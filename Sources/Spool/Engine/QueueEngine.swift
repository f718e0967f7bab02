import Dispatch

/// The live path: checks a request against the state, records it, applies it.
///
/// Each mutating method, under `lock`, validates the request, encodes its
/// operations as one record, appends it to the ``LogWriter``, then decodes that
/// same record and applies it with ``QueueState/apply(_:)`` — the function
/// replay uses — so the live state is exactly what a replay of the log gives.
/// It returns the record's LSN; the public API waits for that LSN to be
/// durable before it returns to the caller. Queries read the state under the
/// lock; they may see a change whose sync is still in progress.
final class QueueEngine: @unchecked Sendable {
    // The engine's parts live in QueueEngine+*.swift (transitions, leases, compaction, migrations,
    // queries); its members are internal so that those files reach them. The type is internal too.
    // @unchecked: `state` and `isClosed` are guarded by `lock`, `activeWriter`
    // by `writerLock` (and changed only with `lock` held too); the other stored
    // properties are immutable or thread-safe themselves.

    let path: String
    let configuration: Configuration
    /// The writer of the active log file. A roll-over replaces it; callers
    /// waiting for an LSN of the previous file may use either, since the
    /// previous file's records are all durable before the new writer exists.
    var writer: LogWriter { writerLock.withLock { activeWriter } }
    var activeWriter: LogWriter
    let writerLock = Lock()
    /// What the writers of the files before the active one did (guarded by `writerLock`).
    var retiredWriterStatistics = WriterStatistics()

    /// What the log's writers have done since the queue was opened: the active file's
    /// writer and every writer a roll-over or a compaction retired.
    var writerStatistics: WriterStatistics {
        writerLock.withLock { retiredWriterStatistics.adding(activeWriter.currentStatistics) }
    }
    let directory: QueueDirectory
    let instanceID: [UInt8]
    /// Handles of the files before the active one, for payload reads.
    let segmentReaders: SegmentReaders
    /// Set during init only; immutable afterwards.
    private(set) var recoveryReport: RecoveryReport
    let directoryLock: any DirectoryLock
    /// Publishes the ids of the jobs each committed transaction changed.
    let changes = ChangeFeed()
    let lock = Lock()
    var state: QueueState
    var isClosed = false
    /// One compaction at a time.
    let compactionLock = Lock()
    /// True until init returns: no background compaction starts while open migrates and reclaims jobs.
    var isOpening = true
    /// Set when a roll-over or a compaction failed half way; every later write fails with it until a reopen.
    var writeFailure: SpoolError?

    // Automatic compaction (see ``AutoCompaction``); guarded by `lock`.
    /// Bytes (up to the end of the last record) of each log file before the active one.
    var retiredFileBytes: [UInt64: Int64] = [:]
    /// The sum of `retiredFileBytes`.
    var retiredBytes: Int64 = 0
    /// The log's replay cost (``replayCost``) just after the last compaction finished.
    var bytesAfterCompaction: Int64 = 0
    /// Transition records (records that enqueue no job) in the log after its snapshot (all of
    /// them when there is none), for the automatic compaction's trigger.
    var recordsSinceSnapshot = 0
    /// The estimated bytes one live job takes in a snapshot: measured by the last
    /// compaction, moved towards the size of each new job's enqueue meanwhile.
    var averageJobBytes: Double = 128
    /// Whether a background compaction is scheduled or running.
    var backgroundCompactionScheduled = false
    /// The error of the last background compaction that failed (the queue refuses writes after it).
    var lastBackgroundCompactionError: SpoolError?
    /// Background compactions that wrote a snapshot since open.
    var completedBackgroundCompactions = 0
    var backgroundCompactionCount: Int { lock.withLock { completedBackgroundCompactions } }
    let backgroundCompactions = DispatchGroup()
    let backgroundQueue = DispatchQueue(label: "spool.compaction")

    var clock: any SpoolClock { configuration.clock }

    init(path: String, configuration: Configuration) throws {
        guard (1...JobLimits.maxPayloadBytes).contains(configuration.maximumPayloadSize) else {
            throw SpoolError.invalidArgument("maximumPayloadSize must be from 1 to \(JobLimits.maxPayloadBytes)")
        }
        try JobLimits.checkLeaseDuration(configuration.leaseDuration)
        guard configuration.segmentSize > Int64(LogFormat.fileHeaderSize) else {
            throw SpoolError.invalidArgument("segmentSize must be larger than a file header")
        }
        try configuration.retryPolicy.validate()
        guard configuration.retention >= 0 else {
            throw SpoolError.invalidArgument("retention must be a number of seconds, not negative")
        }
        self.path = path
        self.configuration = configuration
        directory = QueueDirectory(path: path, fileSystem: configuration.fileSystem)
        segmentReaders = SegmentReaders(directory: path, fileSystem: configuration.fileSystem)
        // Migration settings need no state: invalid ones are refused before the directory is touched,
        // and a queue migrated further than this build knows before anything in it is repaired.
        let highestMigration = try Self.checkMigrationNumbers(configuration.migrations)
        let opened = try directory
            .openForWriting(mode: configuration.recoveryMode, createIfMissing: configuration.createIfMissing,
                            preallocationChunk: configuration.preallocationChunk) { replayed in
                try Self.refuseNewerMigrations(applied: replayed.appliedMigration, highest: highestMigration, path: path)
            }
        activeWriter = opened.writer
        instanceID = opened.replay.instanceID ?? []
        directoryLock = opened.lock
        state = opened.replay.state
        recordsSinceSnapshot = opened.replay.transitionRecordsAfterSnapshot
        recoveryReport = opened.replay.report
        do {
            let activeSequence = opened.writer.fileSequence
            for file in try LogReplay.logFiles(in: path, fileSystem: configuration.fileSystem)
                where file.sequence < activeSequence {
                let handle = try configuration.fileSystem.openFile(at: file.path, mode: .readOnly)
                defer { handle.close() }
                let size = try handle.size()
                retiredFileBytes[file.sequence] = size
                retiredBytes += size
            }
            recoveryReport.abandonedMigrations = opened.replay.abandonedMigrations
            // Migrations first: the jobs then are as this build expects them, for the steps after.
            recoveryReport.appliedMigrations = try durably { try $0.runMigrations() }
            recoveryReport.unrunnableJobs = try durably { try $0.abandonUnrunnableJobs() }
            recoveryReport.reclaimedJobs = try durably { try $0.reclaimRunningJobsAtOpen() }
            lock.withLock { isOpening = false }
        } catch {
            isClosed = true
            try? writer.close()
            directoryLock.release()
            throw error
        }
    }

    // MARK: Committing

    /// Records `operations` as one transaction and applies it. Call with `lock` held.
    ///
    /// The operations applied are the planned ones, each enqueue pointing at
    /// where the encoder put its payload: exactly what decoding the record
    /// gives, which debug builds check on every commit.
    func commit(_ operations: [PlannedOperation]) throws -> UInt64 {
        var payloadRanges: [Range<Int>] = []
        if let writeFailure { throw writeFailure }
        // Encoded behind room for the frame header, so that the writer does not copy the body again.
        let frame = TransactionCodec.encode(operations, payloadRanges: &payloadRanges, headroom: LogFormat.frameHeaderSize)
        // The body as encoded, for the check below (debug builds only: the frame moves into the writer).
        var encodedBody: [UInt8] = []
        assert({ encodedBody = Array(frame[LogFormat.frameHeaderSize...]); return true }())
        // The first operation meets the state as it is: judged by apply's own rules before anything is
        // written (a refused request leaves no record). Each later one was planned against what the
        // operations before it do (EnqueuePlan, the cancel and reclaim lists, the migration check).
        switch operations.first {
        case .other(let operation):
            if let refusal = state.refusal(of: operation) { throw refusal.error }
        case .enqueue(let new):
            do {
                _ = try state.checkEnqueue(id: new.id, idHash: JobTable.hash(of: new.id), dependencies: new.options.dependencies,
                                           isPeriodic: new.options.periodic != nil, uniqueKey: new.uniqueKey)
            } catch {
                throw error.error
            }
        case .migrateJob, nil:
            break
        }
        if activeWriter.appendedEnd >= configuration.segmentSize { try rollOver() }
        let writer = activeWriter
        let (lsn, bodyOffset) = try writer.append(frame: consume frame)
        if let first = operations.first, !first.enqueuesJob { recordsSinceSnapshot += 1 }
        // Each operation is applied as it is made from its planned form; the list is kept for the debug check only.
        var recorded: [Operation] = []
        var enqueues = 0
        // By index: a `for` over the array would copy each operation (and retain its strings) first.
        for index in operations.indices {
            let operation: Operation
            switch operations[index] {
            case .enqueue(let new):
                let range = payloadRanges[enqueues]
                enqueues += 1
                // What its restore operation takes in a snapshot: the strings, the payload, ~30 bytes of fields.
                let jobBytes = Double(range.count + new.id.utf8.count + new.kind.utf8.count
                                      + (new.uniqueKey?.utf8.count ?? 0) + 32)
                averageJobBytes += (jobBytes - averageJobBytes) / 64
                operation = .enqueue(.init(
                    id: new.id, kind: new.kind,
                    payload: PayloadLocation(fileSequence: writer.fileSequence, offset: bodyOffset + Int64(range.lowerBound),
                                             length: Int32(range.count),
                                             checksum: new.payload.withUnsafeBytes { CRC32C.checksum($0) }),
                    priority: new.priority, createdAt: new.createdAt, runAt: new.runAt, maxAttempts: new.maxAttempts,
                    uniqueKey: new.uniqueKey, options: new.options))
            case .migrateJob(var job, let payload):
                if let payload {
                    let range = payloadRanges[enqueues]
                    enqueues += 1
                    job.payload = PayloadLocation(fileSequence: writer.fileSequence,
                                                  offset: bodyOffset + Int64(range.lowerBound), length: Int32(range.count),
                                                  checksum: CRC32C.checksum(payload))
                }
                operation = .migrateJob(job)
            case .other(let other):
                operation = other
            }
            do {
                try state.apply(operation)
            } catch {
                // A planner and apply disagree: the record is appended and replay will refuse it. No trap:
                // the queue refuses every later write (the record must not become durable beside more),
                // and the caller gets the refusal.
                let failure = SpoolError(.needsReopen, "record \(lsn) was written but does not apply (\(error)): "
                                         + "the queue refuses writes until it is reopened", path: path, jobID: error.jobID.isEmpty ? nil : JobID(error.jobID))
                writeFailure = failure
                changes.publish(jobIDs: operations.map(\.jobID).filter { !$0.isEmpty } + state.takeCascadedIDs())
                throw failure
            }
            assert({ recorded.append(operation); return true }())
        }
        assert(Self.decodes(encodedBody, to: recorded, fileSequence: writer.fileSequence, bodyOffset: bodyOffset),
               "a record this build encoded does not decode to the operations it applies")
        // Jobs a cascade changed inside apply (dependents unblocked or cancelled) are published too.
        let cascaded = state.takeCascadedIDs()
        changes.publish(jobIDs: operations.map(\.jobID).filter { !$0.isEmpty } + cascaded)
        if !backgroundCompactionScheduled, writeFailure == nil, needsCompaction() {
            startBackgroundCompaction()
        }
        return lsn
    }

    /// The injected clock's wall time, in the records' milliseconds.
    var nowMillis: Int64 { Millis.from(clock.now()) }

    // MARK: Closing

    func close() throws {
        let alreadyClosed = lock.withLock { () -> Bool in
            defer { isClosed = true }
            return isClosed
        }
        guard !alreadyClosed else { return }
        changes.finish()
        // A compaction still writing its snapshot (a background one, or another caller's
        // compact()) stops at its next step; the directory lock is kept until it has, so that
        // nothing of this queue writes into the directory once another opener may own it.
        backgroundCompactions.wait()
        compactionLock.withLock {}
        // The older files' handles kept for payload reads go too (a read under way keeps its own).
        segmentReaders.forget(below: .max)
        defer { directoryLock.release() }
        try writer.close()
    }

    deinit {
        if !isClosed {
            try? writer.close()
            directoryLock.release()
        }
    }
}
