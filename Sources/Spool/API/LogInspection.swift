/// Read-only inspection of a queue's log, for tools such as `spool verify` and `spool dump`.
///
/// Inspection replays the log exactly as open does, verifying every checksum
/// and applying every operation to a scratch state, but writes nothing: it does
/// not cut a torn tail and does not reclaim running jobs. It creates nothing either,
/// so it can read a copy on a read-only volume. It takes **no lock**, not even a shared
/// one on `LOCK`: it reads while a ``JobQueue`` in this process or another has the queue
/// open and writes (an ``ProcessSharing/exclusive`` or a ``ProcessSharing/shared`` owner),
/// and never keeps one from opening it. What it reports is the queue as of the last intact
/// record it read: a group the owner is writing at the active file's end is a torn tail
/// to it, left as it is. A file that vanished under the read (a compaction removed it) or
/// a view that the owner's concurrent writes made inconsistent is read again from the start,
/// at most 8 times, then ``SpoolError/Code/locked`` names the file; a corruption is reported
/// only when two reads in a row find the same one.
///
/// ```swift
/// let summary = try LogInspector.verify(directory: path)
/// print("\(summary.records) records, last LSN \(summary.lastLSN)")
/// ```
public enum LogInspector {
    /// Replays the whole log in strict mode, checks the producers' inbox files from where the log
    /// says their ingestion stopped, and summarises both.
    ///
    /// - Throws: ``SpoolError`` with ``SpoolError/Code/corruption`` naming the file
    ///   and offset of the first damaged record that is not a torn tail, in the log or in an inbox file;
    ///   ``SpoolError/Code/queueNotFound``, ``SpoolError/Code/notAQueue``,
    ///   ``SpoolError/Code/newerFormat``, ``SpoolError/Code/locked``, or an I/O error.
    public static func verify(directory: String) throws -> VerificationSummary {
        try inspect(directory: directory, visit: nil)
    }

    /// Every intact record of the log, in log order.
    ///
    /// - Throws: The errors of ``verify(directory:)-(String)``; no records are returned when the log is damaged.
    public static func records(directory: String) throws -> [LogRecordSummary] {
        var collected: [LogRecordSummary] = []
        _ = try forEachRecord(directory: directory) { collected.append($0) }
        return collected
    }

    /// Calls `visit` with each intact record, in log order, then returns the summary.
    ///
    /// A record is visited before its operations are applied, so when the log is
    /// damaged every record before the damage has been visited when the error is thrown
    /// (a record whose operations do not apply is visited, then the error names it).
    /// Since a read that met the owner's concurrent writes starts again, the records are
    /// collected first and visited once the read is complete (or has failed for good).
    ///
    /// - Throws: The errors of ``verify(directory:)-(String)``.
    @discardableResult
    public static func forEachRecord(
        directory: String,
        _ visit: (LogRecordSummary) -> Void
    ) throws -> VerificationSummary {
        try withoutActuallyEscaping(visit) { visit in
            try inspect(directory: directory, visit: visit)
        }
    }

    private static func inspect(
        directory: String,
        visit: ((LogRecordSummary) -> Void)?
    ) throws -> VerificationSummary {
        let fileSystem = POSIXFileSystem()
        let queueDirectory = QueueDirectory(path: directory, fileSystem: fileSystem)
        guard let visit else {
            return try queueDirectory.inspectWithoutLock { try summary(of: $0, directory: directory) }
        }
        // The records of the current attempt only: a read that starts again starts them again.
        var records: [LogRecordSummary] = []
        do {
            let summary = try queueDirectory.readWithoutLock { replay in
                records = []
                return VerificationSummary(
                    try replay.run { path, offset, lsn, operations in
                        records.append(
                            LogRecordSummary(
                                path: path, offset: Int64(offset), lsn: lsn,
                                operations: operations.map(LogOperationSummary.init)))
                    })
            }
            records.forEach(visit)
            return summary
        } catch {
            records.forEach(visit)
            throw error
        }
    }
}

extension LogInspector {
    /// Replays the log read-only, as ``verify(directory:)-(String)`` does (without a lock), and runs
    /// `body` with the jobs it found: nothing is written, no torn tail is cut and no expired
    /// lease is reclaimed (a running job whose lease has expired is shown running).
    ///
    /// `body` may run more than once: when a file it reads a payload from vanished meanwhile
    /// (a compaction removed it), the whole read starts again. Let it compute a value and
    /// return it, and act on the value afterwards.
    ///
    /// - Throws: The errors of ``verify(directory:)-(String)``, and what `body` throws.
    public static func withJobs<T>(directory: String, _ body: (InspectedQueue) throws -> T) throws -> T {
        let fileSystem = POSIXFileSystem()
        let queueDirectory = QueueDirectory(path: directory, fileSystem: fileSystem)
        return try queueDirectory.inspectWithoutLock { result in
            try body(InspectedQueue(directory: directory, fileSystem: fileSystem, result: result))
        }
    }
}

/// A queue's jobs as a read-only replay found them; see ``LogInspector/withJobs(directory:_:)-(String,_)``.
///
/// Valid only inside the `body` it is passed to. No lock is held: a payload whose file a
/// compaction removed meanwhile fails with `ENOENT`, which makes the read start again, and
/// every payload's bytes are checked against the checksum the replay verified.
public struct InspectedQueue {
    private let state: QueueState
    /// Reads payloads from the queue's log files (opened once each, read-only).
    private let files: LogFileReaders
    private let fileSystem: any FileSystem
    private let directory: String
    /// What the replay found: files, records, versions, a torn tail.
    public let summary: VerificationSummary

    init(directory: String, fileSystem: any FileSystem, result: LogReplay.Outcome) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.files = LogFileReaders(directory: directory, fileSystem: fileSystem)
        self.state = result.state
        self.summary = VerificationSummary(result)
    }

    /// Jobs in enqueue order, optionally only those in `state`.
    public func jobs(state wanted: JobState? = nil) -> [Job] {
        state.jobs.values.filter { wanted == nil || $0.state == wanted }.inEnqueueOrder().map(
            Job.init)
    }

    /// The job with `id`, or `nil`.
    public func job(_ id: JobID) -> Job? { state.jobs[id.rawValue].map(Job.init) }

    /// Jobs per state.
    public var counts: QueueCounts { QueueCounts(byState: state.countsByState) }

    /// What the snapshots remember of the queue's past.
    public var history: QueueHistory {
        QueueHistory(
            createdAt: state.summary.map { Millis.date($0.createdAt) },
            expiredJobs: Int(clamping: state.expiredJobs))
    }

    /// The jobs producers enqueued whose records are acknowledged but not ingested yet, in the order
    /// the owner will apply them: read from the queue's inbox files, from where the log says their
    /// ingestion stopped, without a lock (a producer's record being written is not one of them yet).
    ///
    /// - Throws: The first damaged inbox file (``SpoolError/Code/corruption`` naming it and the offset), one
    ///   of a newer format, or an I/O error. ``readableAwaitingIngestion()`` shows the other files' jobs then.
    public func awaitingIngestion() throws -> [AwaitingJob] {
        let inbox = try readableAwaitingIngestion()
        if let first = inbox.damagedFiles.first { throw first }
        return inbox.jobs
    }

    /// The jobs awaiting ingestion (as ``awaitingIngestion()``) in the inbox files that can be read, and the
    /// error of every file that cannot (damaged, of a newer format, unreadable): what the owner's ingestion
    /// would take, since it too leaves such a file aside and ingests the others.
    ///
    /// - Throws: An I/O error listing the inbox folder.
    public func readableAwaitingIngestion() throws -> AwaitingIngestion {
        let pending = try InboxInspection.pending(
            queue: directory, fileSystem: fileSystem, offsets: state.inboxOffsets)
        return AwaitingIngestion(
            jobs: AwaitingJob.list(in: pending.files, boot: Self.boot), damagedFiles: pending.damaged)
    }

    /// This machine's boot, whose producers' records are ordered by their monotonic readings.
    private static let boot = SystemClock().bootIdentifier()

    /// A job's payload, read from the log.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound``, or an I/O error.
    public func payload(of id: JobID) throws -> Data {
        guard let stored = state.jobs[id.rawValue] else { throw SpoolError(.jobNotFound, "no such job", jobID: id) }
        let location = stored.payload
        let bytes = try files.read(sequence: location.fileSequence, at: location.offset, count: Int(location.length))
        try location.checkRead(bytes, inQueue: directory)
        return Data(bytes)
    }
}

/// What a read-only replay of a log found.
public struct VerificationSummary: Sendable, Equatable {
    /// An unfinished last write: bytes after the last intact record of the last
    /// file. It was never acknowledged; the next open cuts it off.
    public struct TornTail: Sendable, Equatable {
        /// The log file that ends in the torn tail.
        public var path: String
        /// Where the torn tail begins in the file.
        public var offset: Int64
        /// The torn tail's length in bytes.
        public var bytes: Int64
    }

    /// Log files read.
    public var filesRead: Int
    /// Intact records replayed.
    public var records: Int
    /// The torn tail the log ends in, if any.
    public var tornTail: TornTail?
    /// The log sequence number of the last intact record (0 for an empty log).
    public var lastLSN: UInt64
    /// Jobs in each state after the replay; states with no jobs are absent.
    public var jobsByState: [JobState: Int]
    /// Log files read, by the format version in their header.
    public var fileVersions: [Int: Int]
    /// Records replayed, by the version of their body.
    public var bodyVersions: [Int: Int]
    /// The number of the last job migration the queue applied; 0 before the first.
    public var appliedMigration: Int
    /// Migrations begun in the log that a crash cut short (never applied; the app's next open runs them again).
    public var abandonedMigrations: Int
    /// Records producers acknowledged in the queue's inbox files that the owner has not ingested yet
    /// (each a producer call: an enqueue of one job or a batch, or a cancel); counted by
    /// ``LogInspector/verify(directory:)-(String)``, which also checks those files, 0 elsewhere.
    public var recordsAwaitingIngestion = 0

    /// The file format versions this build reads.
    public static let readableFileVersions = Int(LogFormat.oldestReadableVersion)...Int(LogFormat.currentVersion)
    /// The record body versions this build reads.
    public static let readableBodyVersions = Array(
        Int(TransactionCodec.baseBodyVersion)...Int(TransactionCodec.bodyVersion))

    init(_ result: LogReplay.Outcome) {
        fileVersions = Dictionary(uniqueKeysWithValues: result.fileVersions.map { (Int($0.key), $0.value) })
        bodyVersions = Dictionary(uniqueKeysWithValues: result.bodyVersions.map { (Int($0.key), $0.value) })
        appliedMigration = Int(clamping: result.state.appliedMigration)
        abandonedMigrations = result.abandonedMigrations
        filesRead = result.report.filesRead
        records = result.report.recordsReplayed
        lastLSN = result.lastLSN
        var counts: [JobState: Int] = [:]
        for job in result.state.jobs.values { counts[job.state, default: 0] += 1 }
        jobsByState = counts
        if let torn = result.tornCreation {
            // The file's header was never synced: the whole file is an unfinished write.
            tornTail = TornTail(path: torn.file.path, offset: 0, bytes: torn.size)
        } else if let last = result.lastFile, let offset = result.tornTailOffset {
            tornTail = TornTail(path: last.path, offset: offset, bytes: result.lastFileSize - offset)
        }
    }
}

extension LogInspector {
    /// Replays the whole log as ``verify(directory:)-(String)`` does and also checks the replayed state's
    /// invariants (``BrokenInvariant/Rule``): a log whose every record is sound and applies may
    /// still give a state no writer makes, which this reports.
    ///
    /// - Returns: The summary, and the invariants broken (empty for a sound queue).
    /// - Throws: The errors of ``verify(directory:)-(String)``.
    public static func verifyInvariants(directory: String) throws -> (
        summary: VerificationSummary, broken: [BrokenInvariant]
    ) {
        let queueDirectory = QueueDirectory(path: directory, fileSystem: POSIXFileSystem())
        return try queueDirectory.inspectWithoutLock { result in
            (try summary(of: result, directory: directory), result.state.brokenInvariants())
        }
    }

    /// The summary of a replay, with the producers' inbox files checked from where the log says their
    /// ingestion stopped (their damage thrown as the owner's ingestion throws it) and their pending records counted.
    static func summary(of result: LogReplay.Outcome, directory: String) throws -> VerificationSummary {
        var summary = VerificationSummary(result)
        let pending = try InboxInspection.pending(
            queue: directory, fileSystem: POSIXFileSystem(), offsets: result.state.inboxOffsets
        ).checked()
        summary.recordsAwaitingIngestion = pending.reduce(0) { $0 + $1.records.count }
        return summary
    }
}
