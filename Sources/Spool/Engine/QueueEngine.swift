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
    // The engine's paths live in QueueEngine+*.swift (commits, transitions, leases, compaction,
    // migrations, queries); what has state of its own is a collaborator with private state:
    // ``ActiveWriter``, ``QueueHold``, ``CompactionTrigger``, ``Compactions``, ``InboxIngestor``,
    // ``ChangeFeed``, ``ProgressBoard``. See docs/ARCHITECTURE.md.
    // @unchecked: `state`, `status` and `compactionTrigger` are guarded by `lock`; the other stored
    // properties are immutable or thread-safe themselves.

    let configuration: Configuration
    let directory: QueueDirectory
    /// The identity of the queue's log, in every file's header.
    let instanceID: [UInt8]
    /// The writer of the active log file (a roll-over replaces it).
    let writers: ActiveWriter
    /// Handles of the files before the active one, for payload reads.
    let logFileReaders: LogFileReaders
    /// The directory's lock and a ``ProcessSharing/shared`` owner's fence.
    let hold: QueueHold
    /// What open found and repaired. Set during init only; immutable afterwards.
    private(set) var recoveryReport: RecoveryReport
    /// Publishes the ids of the jobs each committed transaction changed.
    let changes = ChangeFeed()
    /// The running jobs' progress, in memory (never recorded).
    let progress = ProgressBoard()
    /// Ingests the producers' inbox files, one ingestion at a time.
    let inbox: InboxIngestor
    /// One compaction at a time, and those in the background.
    let compactions: Compactions

    /// Guards `state`, `status` and `compactionTrigger`; every change commits with it held, so records
    /// are appended in the order they apply.
    let lock = Lock()
    var state: QueueState
    /// Opening, open, refusing every call after a failed write, or closed.
    var status = EngineStatus.opening
    /// When the log is due for an automatic compaction.
    var compactionTrigger: CompactionTrigger

    /// The queue's directory.
    var path: String { directory.path }
    /// The writer of the active log file. A roll-over replaces it; callers waiting for an LSN of the
    /// previous file may use either, since the previous file's records are all durable before the new
    /// writer exists.
    var writer: LogWriter { writers.current }
    /// What the log's writers have done since the queue was opened (``ActiveWriter/statistics``).
    var writerStatistics: WriterStatistics { writers.statistics }
    /// A ``ProcessSharing/shared`` owner's fence; `nil` when exclusive.
    var fence: OwnershipFence? { hold.fence }
    var clock: any SpoolClock { configuration.clock }

    /// Opens the queue at `path`: the steps QueueDirectory+Open.swift lists, in its order.
    init(path: String, configuration: Configuration) throws {
        try configuration.validate()
        self.configuration = configuration
        inbox = InboxIngestor(order: configuration.inboxOrder)
        compactions = Compactions(path: path)
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
                durability: configuration.durability, rollOverSize: configuration.logFileSize,
                ownership: .init(
                    sharing: configuration.sharing, clock: configuration.clock, lease: configuration.ownershipLease)
            ) { replayed in
                try Self.refuseNewerMigrations(
                    applied: replayed.appliedMigration, highest: highestMigration, path: path)
            }
        writers = ActiveWriter(opened.writer)
        instanceID = opened.replay.instanceID ?? []
        hold = opened.hold
        state = opened.replay.state
        recoveryReport = opened.replay.report
        // The files before the active one, as replay read them (open removed those a snapshot replaced).
        let activeSequence = opened.writer.fileSequence
        compactionTrigger = CompactionTrigger(
            settings: configuration.autoCompaction,
            recordsSinceSnapshot: opened.replay.transitionRecordsAfterSnapshot,
            retiredFiles: opened.replay.fileSizes.filter { $0.key < activeSequence }.map { ($0.key, $0.value) })
        do {
            recoveryReport = try finishOpening(opened.replay)
        } catch {
            status = .closed
            try? writer.close()
            hold.release()
            throw error
        }
    }

    /// The injected clock's wall time, in the records' milliseconds.
    var nowMillis: Int64 { Millis.from(clock.now()) }

    // MARK: Closing

    func close() throws {
        let alreadyClosed = lock.withLock { () -> Bool in
            defer { status = .closed }
            return status.isClosed
        }
        guard !alreadyClosed else { return }
        changes.finish()
        progress.finish()
        // A compaction still writing its snapshot (a background one, or another caller's
        // compact()) stops at its next step; the directory lock is kept until it has, so that
        // nothing of this queue writes into the directory once another opener may own it.
        compactions.waitForAll()
        // The older files' handles kept for payload reads go too (a read under way keeps its own).
        logFileReaders.forget(below: .max)
        defer { hold.release() }
        try writer.close()
        // A clean close hands the role on at once (best effort: otherwise the lease expires).
        hold.resign()
    }

    deinit {
        if !status.isClosed {
            try? writer.close()
            hold.release()
        }
    }
}
