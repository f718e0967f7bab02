extension TransactionCodec {
    /// The opcodes of a transaction body, and the table of what is known about each (``facts``):
    /// its name in `FORMAT.md`, the lowest body version that holds it, and whether its fields
    /// start with the id of the job it changes.
    ///
    /// The rules that depend on an opcode read this table rather than list opcodes again: the
    /// body version a record is written in (``TransactionCodec/version(for:)``), the newest
    /// version this build reads (``TransactionCodec/bodyVersion``), the decoder's refusal of an
    /// opcode newer than its body, replay's read-ahead (``JobIndexWarmer``), and the test that
    /// `FORMAT.md`'s tables say the same (`OpcodeTableTests`). Which opcode an operation is
    /// written as is ``TransactionCodec/opcode(of:)``; the encoder's dispatch is checked against it.
    enum Opcode: UInt8, CaseIterable, Sendable {
        case enqueue = 1
        case claim, renewLease, complete, fail, cancel, retry, reschedule, delete, reclaim
        case restore, snapshot, expire
        case enqueueWithOptions, nextOccurrence, restoreWithOptions
        case migrationBegin = 20
        case migrateJob, migrationRemove, migrationCommit, migrationsApplied, abandon
        case park = 26
        case checkpoint, restoreCheckpoint
        case release = 30
        case snooze, stopReason
        case prerequisiteResult = 33
        case pauseKind = 34
        case resumeKind, setRateLimit, rateWindow
        case tags = 38
        case result
        case inboxIngested = 40
        case uniquePolicy
        case acknowledged = 42
        case cancelTagged
        case snapshotExtent = 44
        case ownerAttempts = 45
        case parkOnIngest
        case retryTable = 47
        case retryExponential, starts
        case setConstraints = 50

        /// One row of the opcode table.
        struct Facts: Sendable {
            /// The operation's name in `FORMAT.md` (and `spool dump`'s wording of it).
            var name: StaticString
            /// The lowest body version a record holding the operation can be written in.
            var minimumBodyVersion: UInt8
            /// Whether the operation's first field is the id of the job it looks up (a string).
            var startsWithJobID: Bool
        }

        /// The table: one row per opcode.
        var facts: Facts {
            let base = baseBodyVersion
            let compaction = compactionBodyVersion
            let options = optionsBodyVersion
            let migration = migrationBodyVersion
            let parking = parkingBodyVersion
            let stops = stopsBodyVersion
            let tags = tagsBodyVersion
            let inbox = inboxBodyVersion
            let results = resultsBodyVersion
            let order = producerOrderBodyVersion
            let extent = snapshotExtentBodyVersion
            let terms = producerTermsBodyVersion
            let retries = retriesBodyVersion
            let constraints = constraintsBodyVersion
            switch self {
            case .enqueue: return Facts(name: "enqueue", minimumBodyVersion: base, startsWithJobID: true)
            case .claim: return Facts(name: "claim", minimumBodyVersion: base, startsWithJobID: true)
            case .renewLease: return Facts(name: "renew_lease", minimumBodyVersion: base, startsWithJobID: true)
            case .complete: return Facts(name: "complete", minimumBodyVersion: base, startsWithJobID: true)
            case .fail: return Facts(name: "fail", minimumBodyVersion: base, startsWithJobID: true)
            case .cancel: return Facts(name: "cancel", minimumBodyVersion: base, startsWithJobID: true)
            case .retry: return Facts(name: "retry", minimumBodyVersion: base, startsWithJobID: true)
            case .reschedule: return Facts(name: "reschedule", minimumBodyVersion: base, startsWithJobID: true)
            case .delete: return Facts(name: "delete", minimumBodyVersion: base, startsWithJobID: true)
            case .reclaim: return Facts(name: "reclaim", minimumBodyVersion: base, startsWithJobID: true)
            case .restore: return Facts(name: "restore", minimumBodyVersion: compaction, startsWithJobID: true)
            case .snapshot: return Facts(name: "snapshot", minimumBodyVersion: compaction, startsWithJobID: false)
            case .expire: return Facts(name: "expire", minimumBodyVersion: compaction, startsWithJobID: true)
            case .enqueueWithOptions:
                return Facts(name: "enqueue_with_options", minimumBodyVersion: options, startsWithJobID: true)
            case .nextOccurrence:
                return Facts(name: "next_occurrence", minimumBodyVersion: options, startsWithJobID: true)
            case .restoreWithOptions:
                return Facts(name: "restore_with_options", minimumBodyVersion: options, startsWithJobID: true)
            case .migrationBegin:
                return Facts(name: "migration_begin", minimumBodyVersion: migration, startsWithJobID: false)
            // The steps of a migration name a job, but are applied at its commit, not where replay
            // reads them: their ids are not read ahead.
            case .migrateJob: return Facts(name: "migrate_job", minimumBodyVersion: migration, startsWithJobID: false)
            case .migrationRemove:
                return Facts(name: "migration_remove", minimumBodyVersion: migration, startsWithJobID: false)
            case .migrationCommit:
                return Facts(name: "migration_commit", minimumBodyVersion: migration, startsWithJobID: false)
            case .migrationsApplied:
                return Facts(name: "migrations_applied", minimumBodyVersion: migration, startsWithJobID: false)
            case .abandon: return Facts(name: "abandon", minimumBodyVersion: migration, startsWithJobID: true)
            case .park: return Facts(name: "park", minimumBodyVersion: parking, startsWithJobID: true)
            case .checkpoint: return Facts(name: "checkpoint", minimumBodyVersion: parking, startsWithJobID: true)
            case .restoreCheckpoint:
                return Facts(name: "restore_checkpoint", minimumBodyVersion: parking, startsWithJobID: true)
            case .release: return Facts(name: "release", minimumBodyVersion: stops, startsWithJobID: true)
            case .snooze: return Facts(name: "snooze", minimumBodyVersion: stops, startsWithJobID: true)
            case .stopReason: return Facts(name: "stop_reason", minimumBodyVersion: stops, startsWithJobID: true)
            case .pauseKind: return Facts(name: "pause_kind", minimumBodyVersion: tags, startsWithJobID: false)
            case .resumeKind: return Facts(name: "resume_kind", minimumBodyVersion: tags, startsWithJobID: false)
            case .setRateLimit:
                return Facts(name: "set_rate_limit", minimumBodyVersion: tags, startsWithJobID: false)
            case .rateWindow: return Facts(name: "rate_window", minimumBodyVersion: tags, startsWithJobID: false)
            case .prerequisiteResult:
                return Facts(name: "prerequisite_result", minimumBodyVersion: results, startsWithJobID: true)
            case .tags: return Facts(name: "tags", minimumBodyVersion: results, startsWithJobID: true)
            case .result: return Facts(name: "result", minimumBodyVersion: results, startsWithJobID: true)
            case .inboxIngested:
                return Facts(name: "inbox_ingested", minimumBodyVersion: inbox, startsWithJobID: false)
            // In inbox files only, after the enqueue it qualifies (InboxCodec).
            case .uniquePolicy: return Facts(name: "unique_policy", minimumBodyVersion: inbox, startsWithJobID: false)
            // In inbox files only: first in every record of version 10 (InboxCodec).
            case .acknowledged: return Facts(name: "acknowledged", minimumBodyVersion: order, startsWithJobID: false)
            // In inbox files only: a producer's cancel by tag, resolved by the owner when it ingests it.
            case .cancelTagged: return Facts(name: "cancel_tagged", minimumBodyVersion: order, startsWithJobID: false)
            // Only in a snapshot's first record, after `snapshot`: how many records the snapshot holds.
            case .snapshotExtent:
                return Facts(name: "snapshot_extent", minimumBodyVersion: extent, startsWithJobID: false)
            // In inbox files only, after the enqueue they qualify (InboxCodec): the producer's terms.
            case .ownerAttempts:
                return Facts(name: "owner_attempts", minimumBodyVersion: terms, startsWithJobID: false)
            case .parkOnIngest:
                return Facts(name: "park_on_ingest", minimumBodyVersion: terms, startsWithJobID: false)
            case .retryTable:
                return Facts(name: "retry_table", minimumBodyVersion: retries, startsWithJobID: true)
            case .retryExponential:
                return Facts(name: "retry_exponential", minimumBodyVersion: retries, startsWithJobID: true)
            case .starts: return Facts(name: "starts", minimumBodyVersion: retries, startsWithJobID: true)
            case .setConstraints:
                return Facts(name: "set_constraints", minimumBodyVersion: constraints, startsWithJobID: true)
            }
        }

        /// The lowest body version that holds this opcode (``facts``).
        var minimumBodyVersion: UInt8 { facts.minimumBodyVersion }
    }

    /// The newest body version this build reads: the highest any opcode needs.
    static let bodyVersion: UInt8 = Opcode.allCases.reduce(baseBodyVersion) { max($0, $1.minimumBodyVersion) }

    /// Whether an operation with this opcode starts with the id of a job it looks up (a string),
    /// as the operations on one job do: replay reads that id ahead (see ``JobIndexWarmer``).
    static func startsWithJobID(_ rawOpcode: UInt8) -> Bool {
        Opcode(rawValue: rawOpcode)?.facts.startsWithJobID ?? false
    }

    /// The opcode `operation` is written as: an enqueue or a restore of a job with options
    /// has an opcode of its own.
    static func opcode(of operation: LogOperation) -> Opcode {
        switch operation {
        case .enqueue(let op): return op.options.isEmpty ? .enqueue : .enqueueWithOptions
        case .claim: return .claim
        case .renewLease: return .renewLease
        case .complete: return .complete
        case .fail: return .fail
        case .cancel: return .cancel
        case .retry: return .retry
        case .reschedule: return .reschedule
        case .delete: return .delete
        case .reclaim: return .reclaim
        case .restore(let job): return job.hasOptions ? .restoreWithOptions : .restore
        case .snapshot: return .snapshot
        case .snapshotExtent: return .snapshotExtent
        case .expire: return .expire
        case .migrationBegin: return .migrationBegin
        case .migrateJob: return .migrateJob
        case .migrationRemove: return .migrationRemove
        case .migrationCommit: return .migrationCommit
        case .migrationsApplied: return .migrationsApplied
        case .abandon: return .abandon
        case .nextOccurrence: return .nextOccurrence
        case .park: return .park
        case .checkpoint: return .checkpoint
        case .restoreCheckpoint: return .restoreCheckpoint
        case .release: return .release
        case .snooze: return .snooze
        case .stopReason: return .stopReason
        case .pauseKind: return .pauseKind
        case .resumeKind: return .resumeKind
        case .setRateLimit: return .setRateLimit
        case .rateWindow: return .rateWindow
        case .inboxIngested: return .inboxIngested
        case .result: return .result
        case .prerequisiteResult: return .prerequisiteResult
        case .tags: return .tags
        case .retrySchedule(_, .table): return .retryTable
        case .retrySchedule(_, .exponential): return .retryExponential
        case .starts: return .starts
        case .setConstraints: return .setConstraints
        }
    }

    /// The lowest body version that can hold `operation`.
    static func minimumBodyVersion(of operation: LogOperation) -> UInt8 {
        opcode(of: operation).minimumBodyVersion
    }
}
