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
    /// Guards `activeWriter` and `retiredWriterStatistics` (a roll-over changes them with `lock` held too).
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
    let logFileReaders: LogFileReaders
    /// Set during init only; immutable afterwards.
    private(set) var recoveryReport: RecoveryReport
    private let directoryLock: any DirectoryLock
    /// A ``ProcessSharing/shared`` owner's fence, shared by every writer of the log; `nil` when exclusive.
    let fence: OwnershipFence?
    /// Publishes the ids of the jobs each committed transaction changed.
    let changes = ChangeFeed()
    /// The running jobs' progress, in memory (never recorded).
    let progress = ProgressBoard()
    /// Guards `state`, `isClosed`, `isOpening`, `writeFailure` and the compaction bookkeeping below;
    /// every change commits with it held, so records are appended in the order they apply.
    let lock = Lock()
    var state: QueueState
    var isClosed = false
    /// Guards nothing but its own turn: one compaction at a time (taken before `lock`, never inside it).
    let compactionLock = Lock()
    /// Ingests the producers' inbox files, one ingestion at a time.
    let inbox: InboxIngestor
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
        try configuration.validate()
        self.path = path
        self.configuration = configuration
        inbox = InboxIngestor(order: configuration.inboxOrder)
        directory = QueueDirectory(path: path, fileSystem: configuration.fileSystem)
        logFileReaders = LogFileReaders(directory: path, fileSystem: configuration.fileSystem)
        // Migration settings need no state: invalid ones are refused before the directory is touched,
        // and a queue migrated further than this build knows before anything in it is repaired.
        let highestMigration = try Self.checkMigrationNumbers(configuration.migrations)
        let opened =
            try directory
            .openForWriting(
                mode: configuration.recoveryMode, createIfMissing: configuration.createIfMissing,
                preallocationChunk: configuration.preallocationChunk,
                durability: configuration.durability,
                ownership: .init(
                    sharing: configuration.sharing, clock: configuration.clock, lease: configuration.ownershipLease)
            ) { replayed in
                try Self.refuseNewerMigrations(
                    applied: replayed.appliedMigration, highest: highestMigration, path: path)
            }
        activeWriter = opened.writer
        instanceID = opened.replay.instanceID ?? []
        directoryLock = opened.lock
        fence = opened.fence
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
            if let failure = lock.withLock({ writeFailure }) { throw failure }
            lock.withLock { isOpening = false }
        } catch {
            isClosed = true
            try? writer.close()
            directoryLock.release()
            throw error
        }
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
        progress.finish()
        // A compaction still writing its snapshot (a background one, or another caller's
        // compact()) stops at its next step; the directory lock is kept until it has, so that
        // nothing of this queue writes into the directory once another opener may own it.
        backgroundCompactions.wait()
        compactionLock.withLock {}
        // The older files' handles kept for payload reads go too (a read under way keeps its own).
        logFileReaders.forget(below: .max)
        defer { directoryLock.release() }
        try writer.close()
        // A clean close hands the role on at once (best effort: otherwise the lease expires).
        try? fence?.resign()
    }

    deinit {
        if !isClosed {
            try? writer.close()
            directoryLock.release()
        }
    }
}
