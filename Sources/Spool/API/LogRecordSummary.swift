// What `spool dump` shows of each record: the records, operations and fields of a log in a neutral form.

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
    /// `setConstraints` changes an unfinished job's constraints (`constraints`: the new ones, or `none`).
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
        case .snapshotExtent(let records):
            name = "snapshotExtent"
            fields = [.init("records", .integer(Int64(clamping: records)))]
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
        case .retrySchedule(_, .table(let delays)):
            name = "retryTable"
            fields = [
                .init("delaysMs", .string(delays.map { String(Millis.from(seconds: $0)) }.joined(separator: ",")))
            ]
        case .retrySchedule(_, .exponential(let base, let factor, let maximum, let jitter)):
            name = "retryExponential"
            fields = [
                .init("baseMs", .integer(Millis.from(seconds: base))), .init("factor", .string("\(factor)")),
                .init("maximumMs", .integer(Millis.from(seconds: maximum))), .init("jitter", .string("\(jitter)")),
            ]
        case .starts(_, let count):
            name = "starts"
            fields = [.init("count", .integer(Int64(count)))]
        case .setConstraints(_, let constraints):
            name = "setConstraints"
            fields = [.init("constraints", .string(constraints.map(Self.describe) ?? "none"))]
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
