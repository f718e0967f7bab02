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
    /// Replays the whole log in strict mode and summarises it.
    ///
    /// - Throws: ``SpoolError`` with ``SpoolError/Code/corruption`` naming the file
    ///   and offset of the first damaged record that is not a torn tail;
    ///   ``SpoolError/Code/queueNotFound``, ``SpoolError/Code/notAQueue``,
    ///   ``SpoolError/Code/newerFormat``, ``SpoolError/Code/locked``, or an I/O error.
    public static func verify(directory: String) throws -> VerificationSummary {
        try inspect(directory: directory, visit: nil)
    }

    /// Every intact record of the log, in log order.
    ///
    /// - Throws: The errors of ``verify(directory:)``; no records are returned when the log is damaged.
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
    /// - Throws: The errors of ``verify(directory:)``.
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
        let queueDirectory = QueueDirectory(path: directory, fileSystem: POSIXFileSystem())
        guard let visit else { return try queueDirectory.inspectWithoutLock { VerificationSummary($0) } }
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
    /// Replays the log read-only, as ``verify(directory:)`` does (without a lock), and runs
    /// `body` with the jobs it found: nothing is written, no torn tail is cut and no expired
    /// lease is reclaimed (a running job whose lease has expired is shown running).
    ///
    /// `body` may run more than once: when a file it reads a payload from vanished meanwhile
    /// (a compaction removed it), the whole read starts again. Let it compute a value and
    /// return it, and act on the value afterwards.
    ///
    /// - Throws: The errors of ``verify(directory:)``, and what `body` throws.
    public static func withJobs<T>(directory: String, _ body: (InspectedQueue) throws -> T) throws -> T {
        let fileSystem = POSIXFileSystem()
        let queueDirectory = QueueDirectory(path: directory, fileSystem: fileSystem)
        return try queueDirectory.inspectWithoutLock { result in
            try body(InspectedQueue(directory: directory, fileSystem: fileSystem, result: result))
        }
    }
}

/// A queue's jobs as a read-only replay found them; see ``LogInspector/withJobs(directory:_:)``.
///
/// Valid only inside the `body` it is passed to. No lock is held: a payload whose file a
/// compaction removed meanwhile fails with `ENOENT`, which makes the read start again, and
/// every payload's bytes are checked against the checksum the replay verified.
public struct InspectedQueue {
    private let state: QueueState
    /// Reads payloads from the queue's log files (opened once each, read-only).
    private let files: LogFileReaders
    private let directory: String
    /// What the replay found: files, records, versions, a torn tail.
    public let summary: VerificationSummary

    init(directory: String, fileSystem: any FileSystem, result: LogReplay.Outcome) {
        self.directory = directory
        self.files = LogFileReaders(directory: directory, fileSystem: fileSystem)
        self.state = result.state
        self.summary = VerificationSummary(result)
    }

    /// Jobs in enqueue order, optionally only those in `state`.
    public func jobs(state wanted: JobState? = nil) -> [Job] {
        state.jobs.values.filter { wanted == nil || $0.state == wanted }.sorted { $0.sequence < $1.sequence }.map(
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

/// One intact record of the log: a transaction whose operations were applied together.
public struct LogRecordSummary: Sendable, Equatable {
    /// The log file holding the record.
    public var path: String
    /// The record's offset in the file.
    public var offset: Int64
    /// The record's log sequence number.
    public var lsn: UInt64
    /// The record's operations, in the order they apply.
    public var operations: [LogOperationSummary]
}

/// One state change recorded in the log, in a neutral form for display.
public struct LogOperationSummary: Sendable, Equatable {
    /// The operation's name: `enqueue`, `claim`, `renewLease`, `complete`, `fail`,
    /// `cancel`, `retry`, `reschedule`, `delete`, `reclaim`, `nextOccurrence` (a periodic
    /// job's next run), or in a snapshot `snapshot` and `restore`; `expire` drops a job past
    /// its retention. An enqueue with options adds `constraints`, `dependencies`, `intervalMs`, `flexMs`.
    /// An attempt given back is `release`, one snoozed `snooze`; `stopReason` records why an attempt ended.
    public var name: String
    /// The job the operation changes.
    public var jobID: JobID
    /// The operation's values, in their recorded order. Times are integer
    /// milliseconds since 1970 in fields ending in `Ms`; monotonic readings are
    /// nanoseconds in fields ending in `Ns`; lease tokens are 16 hex digits; an
    /// enqueue's payload is given by where it lies, `payloadOffset` and `payloadLength`.
    public var fields: [LogField]

    init(_ operation: LogOperation) {
        jobID = JobID(operation.jobID)
        switch operation {
        case .enqueue(let op):
            name = "enqueue"
            fields = [
                .init("kind", .string(op.kind)), .init("priority", .integer(op.priority)),
                .init("createdAtMs", .integer(op.createdAt)), .init("runAtMs", .integer(op.runAt)),
                .init("maxAttempts", .integer(op.maxAttempts)), .init("uniqueKey", .optional(op.uniqueKey)),
                .init("payloadOffset", .integer(op.payload.offset)),
                .init("payloadLength", .integer(Int64(op.payload.length))),
            ]
            if let constraints = op.options.constraints {
                fields.append(.init("constraints", .string(Self.describe(constraints))))
            }
            if !op.options.dependencies.isEmpty {
                fields.append(.init("dependencies", .string(op.options.dependencies.joined(separator: ","))))
            }
            if let periodic = op.options.periodic {
                fields.append(.init("intervalMs", .integer(periodic.interval)))
                fields.append(.init("flexMs", .integer(periodic.flex)))
            }
        case .claim(let op):
            name = "claim"
            fields = [
                .token(op.token), .init("claimedAtMs", .integer(op.claimedAt)),
                .init("expiresAtMs", .integer(op.expiresAt)),
                .init("monotonicExpiryNs", .integer(Int64(clamping: op.monotonicExpiry))),
                .init("bootID", .string(op.bootID)),
            ]
        case .renewLease(_, let token, let expiresAt, let monotonicExpiry):
            name = "renewLease"
            fields = [
                .token(token), .init("expiresAtMs", .integer(expiresAt)),
                .init("monotonicExpiryNs", .integer(Int64(clamping: monotonicExpiry))),
            ]
        case .complete(_, let token, let at):
            name = "complete"
            fields = [.token(token), .init("atMs", .integer(at))]
        case .fail(_, let token, let at, let error, let nextRetryAt):
            name = "fail"
            fields = [
                .token(token), .init("atMs", .integer(at)), .init("error", .string(error)),
                .init("nextRetryAtMs", .optional(nextRetryAt)),
            ]
        case .cancel(_, let at):
            name = "cancel"
            fields = [.init("atMs", .integer(at))]
        case .retry(_, let at):
            name = "retry"
            fields = [.init("atMs", .integer(at))]
        case .reschedule(_, let runAt, let at):
            name = "reschedule"
            fields = [.init("runAtMs", .integer(runAt)), .init("atMs", .integer(at))]
        case .delete:
            name = "delete"
            fields = []
        case .reclaim(_, let at, let reason, let nextRetryAt):
            name = "reclaim"
            fields = [
                .init("atMs", .integer(at)), .init("reason", .string(reason)),
                .init("nextRetryAtMs", .optional(nextRetryAt)),
            ]
        case .restore(let job):
            name = "restore"
            fields = [
                .init("kind", .string(job.kind)), .init("state", .string(job.state.rawValue)),
                .init("attempts", .integer(Int64(job.attempts))),
                .init("sequence", .integer(Int64(clamping: job.sequence))),
                .init("payloadOffset", .integer(job.payload.offset)),
                .init("payloadLength", .integer(Int64(job.payload.length))),
            ]
        case .snapshot(let summary):
            name = "snapshot"
            fields = [
                .init("lastLSN", .integer(Int64(clamping: summary.lastLSN))),
                .init("nextSequence", .integer(Int64(clamping: summary.nextSequence))),
                .init("createdAtMs", .integer(summary.createdAt)),
                .init("expiredJobs", .integer(Int64(clamping: summary.expiredJobs))),
            ]
        case .expire:
            name = "expire"
            fields = []
        case .migrationBegin(let number, let at):
            name = "migrationBegin"
            fields = [.init("number", .integer(Int64(clamping: number))), .init("atMs", .integer(at))]
        case .migrateJob(let job):
            name = "migrateJob"
            fields = [
                .init("kind", .string(job.kind)), .init("state", .string(job.state.rawValue)),
                .init("attempts", .integer(Int64(job.attempts))), .init("lastError", .optional(job.lastError)),
                .init("payloadOffset", .optional(job.payload?.offset)),
                .init("payloadLength", .optional(job.payload.map { Int64($0.length) })),
            ]
        case .migrationRemove:
            name = "migrationRemove"
            fields = []
        case .migrationCommit(let number):
            name = "migrationCommit"
            fields = [.init("number", .integer(Int64(clamping: number)))]
        case .migrationsApplied(let number):
            name = "migrationsApplied"
            fields = [.init("number", .integer(Int64(clamping: number)))]
        case .abandon(_, let at, let reason):
            name = "abandon"
            fields = [.init("atMs", .integer(at)), .init("reason", .string(reason))]
        case .nextOccurrence(_, let at, let runAt):
            name = "nextOccurrence"
            fields = [.init("atMs", .integer(at)), .init("runAtMs", .integer(runAt))]
        case .park(_, _, let key, let deadline):
            name = "park"
            fields = [.init("key", .string(key)), .init("deadlineMs", .integer(deadline))]
        case .checkpoint(_, _, let data, let expiresAt, _):
            name = "checkpoint"
            fields = [.init("bytes", .integer(Int64(data.count))), .init("expiresAtMs", .integer(expiresAt))]
        case .restoreCheckpoint(_, let data):
            name = "restoreCheckpoint"
            fields = [.init("bytes", .integer(Int64(data.count)))]
        case .release(_, let token, let at, let reason):
            name = "release"
            fields = [.token(token), .init("atMs", .integer(at)), .init("reason", .string(reason.description))]
        case .snooze(_, let token, let at, let runAt, let givesBack):
            name = "snooze"
            fields = [
                .token(token), .init("atMs", .integer(at)), .init("runAtMs", .integer(runAt)),
                .init("givesBack", .string(givesBack ? "yes" : "no")),
            ]
        case .stopReason(_, let reason):
            name = "stopReason"
            fields = [.init("reason", .string(reason.description))]
        case .pauseKind(let kind, let at):
            name = "pauseKind"
            fields = [.init("kind", .string(kind)), .init("atMs", .integer(at))]
        case .resumeKind(let kind, let at):
            name = "resumeKind"
            fields = [.init("kind", .string(kind)), .init("atMs", .integer(at))]
        case .setRateLimit(let kind, let limit, let at):
            name = "setRateLimit"
            fields = [
                .init("kind", .string(kind)), .init("atMs", .integer(at)),
                .init("starts", .optional(limit?.starts)), .init("intervalMs", .optional(limit?.intervalMillis)),
            ]
        case .rateWindow(let kind, let window):
            name = "rateWindow"
            fields = [
                .init("kind", .string(kind)), .init("startMs", .integer(window.start)),
                .init("count", .integer(window.count)),
            ]
        case .inboxIngested(let file, let offset):
            name = "inboxIngested"
            fields = [.init("file", .string(file)), .init("offset", .integer(offset))]
        case .result(_, let data):
            name = "result"
            fields = [.init("bytes", .integer(Int64(data.count)))]
        case .prerequisiteResult(_, let prerequisite, let data):
            name = "prerequisiteResult"
            fields = [.init("prerequisite", .string(prerequisite)), .init("bytes", .integer(Int64(data.count)))]
        case .tags(_, let tags):
            name = "tags"
            fields = [.init("tags", .string(tags.joined(separator: ",")))]
        }
    }

    /// Constraints as text: the flags set, then the app-named conditions, comma-separated.
    static func describe(_ constraints: JobConstraints) -> String {
        var parts: [String] = []
        if constraints.requiresNetwork { parts.append("network") }
        if constraints.requiresUnmeteredNetwork { parts.append("unmeteredNetwork") }
        if constraints.requiresCharging { parts.append("charging") }
        if constraints.requiresDeviceIdle { parts.append("deviceIdle") }
        if constraints.requiresBatteryNotLow { parts.append("batteryNotLow") }
        parts += constraints.requiredConditions.sorted().map { "condition:" + $0 }
        return parts.joined(separator: ",")
    }
}

/// A named value of a ``LogOperationSummary``.
public struct LogField: Sendable, Equatable {
    /// The field's name, such as `kind` or `runAtMs`.
    public var name: String
    /// The field's value.
    public var value: LogFieldValue

    init(_ name: String, _ value: LogFieldValue) {
        self.name = name
        self.value = value
    }

    static func token(_ token: UInt64) -> LogField {
        LogField("token", .string(LeaseToken(rawValue: token).description))
    }
}

/// The value of a ``LogField``.
public enum LogFieldValue: Sendable, Equatable {
    /// Text.
    case string(String)
    /// A whole number.
    case integer(Int64)
    /// No value, such as a job without a unique key.
    case null

    static func optional(_ text: String?) -> LogFieldValue { text.map(LogFieldValue.string) ?? .null }
    static func optional(_ number: Int64?) -> LogFieldValue { number.map(LogFieldValue.integer) ?? .null }
}

extension LogInspector {
    /// Replays the whole log as ``verify(directory:)`` does and also checks the replayed state's
    /// invariants (``BrokenInvariant/Rule``): a log whose every record is sound and applies may
    /// still give a state no writer makes, which this reports.
    ///
    /// - Returns: The summary, and the invariants broken (empty for a sound queue).
    /// - Throws: The errors of ``verify(directory:)``.
    public static func verifyInvariants(directory: String) throws -> (
        summary: VerificationSummary, broken: [BrokenInvariant]
    ) {
        let queueDirectory = QueueDirectory(path: directory, fileSystem: POSIXFileSystem())
        return try queueDirectory.inspectWithoutLock { result in
            (VerificationSummary(result), result.state.brokenInvariants())
        }
    }
}
