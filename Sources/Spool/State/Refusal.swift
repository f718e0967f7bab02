/// Why an operation does not fit the state: one case per rule of the job state machine.
///
/// The rule functions of ``QueueState`` (QueueState+Rules.swift) return these; ``QueueState/apply(_:)``
/// throws them at replay and the engine throws their ``error`` before it writes anything, so a request
/// the engine refuses and a record replay refuses are refused for the same reason, in the same words.
/// ``error`` is the one table from a reason to a ``SpoolError/Code`` and a message.
enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transition an operation makes, for the messages.
    enum Action: String, Sendable {
        case enqueue, claim, renew, complete, fail, reclaim, cancel, retry, reschedule, restore, expire, delete, abandon
        case nextOccurrence = "next occurrence"
        case migrateJob = "migrated job"
        case migrationRemove = "migration remove"
        case park, checkpoint
        case restoreCheckpoint = "restore checkpoint"
        case release, snooze
        case stopReason = "stop reason"
        case result
        case prerequisiteResult = "prerequisite result"
        case tags
        case retrySchedule = "retry schedule"
        case starts
        case setConstraints = "set constraints"
    }

    /// No job has the id.
    case noSuchJob(id: String, action: Action)
    /// The job exists but its state does not allow the action.
    case wrongState(id: String, action: Action, state: JobState)
    /// A lease action on a job that no longer runs.
    case notRunning(id: String, action: Action, state: JobState)
    /// A lease action under a token that is not the job's lease (it was claimed again).
    case staleLease(id: String, action: Action)
    /// A lease action, from a holder of a ``Lease`` this queue issued, on a job that no longer exists.
    case leaseOfRemovedJob(id: String)
    /// The id is taken.
    case idExists(id: String, action: Action)
    /// Another unfinished job holds the unique key.
    case uniqueKeyHeld(id: String, action: Action, key: String, holder: String)
    /// A prerequisite that does not exist.
    case prerequisiteMissing(id: String, prerequisite: String)
    /// A prerequisite named twice in one enqueue.
    case prerequisiteNamedTwice(id: String, prerequisite: String)
    /// A periodic job as a prerequisite, or a periodic job with prerequisites.
    case periodicInChain(id: String, other: String)
    /// A retry of a job one of whose prerequisites is finished without success or gone.
    case prerequisiteNotPending(id: String, prerequisite: String)
    /// An unfinished job waits for the job (delete, expire, migration remove).
    case awaitedByUnfinished(id: String, action: Action, dependent: String)
    /// A next occurrence of a job that is not periodic.
    case notPeriodic(id: String)
    /// A restored job whose lease does not match its state.
    case restoredLeaseMismatch(id: String)
    /// A restore of an unfinished job waiting for a job that is not an unfinished job restored before it.
    case restoredWaitingForFinished(id: String, prerequisite: String)
    /// A job that would run while it still waits for a prerequisite: a claim of a blocked job, a restore
    /// or a migrated image of a running job that waits.
    case runsBeforePrerequisite(id: String, action: Action, prerequisite: String)
    /// A restore naming a prerequisite twice.
    case restoredPrerequisiteTwice(id: String, prerequisite: String)
    /// A restore whose sequence is not above that of every job before it.
    case restoredOutOfOrder(id: String, sequence: UInt64, previous: UInt64)
    /// A migration whose images leave an unfinished job waiting for a job that is gone or finished.
    case migratedWaitingForFinished(id: String, prerequisite: String)
    /// A snapshot record after other records.
    case snapshotNotFirst
    /// A migration begun with a number not above the last one applied.
    case migrationNotNewer(number: UInt64, applied: UInt64)
    /// A migration step outside a begun migration.
    case stepOutsideMigration(id: String)
    /// A commit of a migration that is not the one begun.
    case commitNotBegun(number: UInt64)
    /// `migrations_applied` anywhere but at the start of a snapshot.
    case migrationsAppliedMisplaced
    /// A snapshot extent outside a snapshot's first record (or of no record).
    case snapshotExtentMisplaced
    /// A migrated image that makes a new job without a payload.
    case migratedWithoutPayload(id: String)
    /// A migrated image whose state, lease and deadline do not agree.
    case migratedInconsistent(id: String)
    /// A migrated image that changes an existing job's unique key or creation time.
    case migratedKeyChanged(id: String)
    /// An operation that is not a migration step, inside a migration's steps.
    case notAMigrationStep(id: String)
    /// A park of a job that is parked already.
    case alreadyParked(id: String)
    /// A park under a key another parked job holds.
    case parkKeyHeld(id: String, key: String, holder: String)
    /// A reclaim of a parked job before its park's deadline.
    case parkDeadlineHolds(id: String)
    /// A claim of a job whose kind is paused.
    case kindPaused(id: String, kind: String)
    /// A claim of a job whose kind's rate limit window is full until `until` (ms).
    case rateLimited(id: String, kind: String, until: Int64)
    /// A pause of a paused kind.
    case kindAlreadyPaused(kind: String)
    /// A resume of a kind that is not paused.
    case kindNotPaused(kind: String)
    /// The removal of a rate limit the kind does not have.
    case noRateLimit(kind: String)
    /// A snapshot's rate window of a kind without a limit.
    case rateWindowWithoutLimit(kind: String)
    /// A job's starts set below its attempts.
    case startsBelowAttempts(id: String, starts: Int32, attempts: Int32)

    /// The job the refusal is about ("" for none).
    var jobID: String {
        switch self {
        case .noSuchJob(let id, _), .wrongState(let id, _, _), .notRunning(let id, _, _), .staleLease(let id, _),
            .leaseOfRemovedJob(let id), .idExists(let id, _), .uniqueKeyHeld(let id, _, _, _),
            .prerequisiteMissing(let id, _), .prerequisiteNamedTwice(let id, _),
            .periodicInChain(let id, _), .prerequisiteNotPending(let id, _), .awaitedByUnfinished(let id, _, _),
            .notPeriodic(let id), .restoredLeaseMismatch(let id), .restoredWaitingForFinished(let id, _),
            .runsBeforePrerequisite(let id, _, _), .restoredPrerequisiteTwice(let id, _),
            .restoredOutOfOrder(let id, _, _), .migratedWaitingForFinished(let id, _),
            .stepOutsideMigration(let id),
            .migratedWithoutPayload(let id), .migratedInconsistent(let id), .migratedKeyChanged(let id),
            .notAMigrationStep(let id), .alreadyParked(let id), .parkKeyHeld(let id, _, _),
            .parkDeadlineHolds(let id), .kindPaused(let id, _), .rateLimited(let id, _, _),
            .startsBelowAttempts(let id, _, _):
            return id
        case .snapshotNotFirst, .migrationNotNewer, .commitNotBegun, .migrationsAppliedMisplaced,
            .snapshotExtentMisplaced,
            .kindAlreadyPaused, .kindNotPaused, .noRateLimit, .rateWindowWithoutLimit:
            return ""
        }
    }

    /// The one table: the code and message each reason gives the app (and replay's corruption reports).
    var codeAndMessage: (SpoolError.Code, String) {
        switch self {
        case .noSuchJob(_, let action):
            return (.jobNotFound, "\(action.rawValue): no such job")
        case .wrongState(_, let action, let state):
            return (.invalidState, "\(action.rawValue): a \(state.rawValue) job cannot be given this transition")
        case .notRunning(_, let action, let state):
            return (.leaseLost, "\(action.rawValue): the lease is no longer valid: the job is \(state.rawValue) now")
        case .staleLease(_, let action):
            return (
                .leaseLost,
                "\(action.rawValue): the lease is no longer valid: the job was claimed again under another lease"
            )
        case .leaseOfRemovedJob:
            return (
                .leaseLost,
                "the lease is no longer valid: the job no longer exists (deleted, expired by retention, or removed by a migration)"
            )
        case .idExists(_, let action):
            return (.invalidArgument, "\(action.rawValue): a job with this id exists")
        case .uniqueKeyHeld(_, let action, let key, let holder):
            return (.uniqueKeyConflict, "\(action.rawValue): unique key \(key) is held by job \(holder)")
        case .prerequisiteMissing(_, let prerequisite):
            return (.invalidArgument, "enqueue: prerequisite \(prerequisite) does not exist")
        case .prerequisiteNamedTwice(_, let prerequisite):
            return (.invalidArgument, "enqueue: prerequisite \(prerequisite) named twice")
        case .periodicInChain(_, let other):
            return (.invalidArgument, "enqueue: a periodic job in a chain (\(other))")
        case .prerequisiteNotPending(_, let prerequisite):
            return (
                .invalidState,
                "retry: prerequisite \(prerequisite) did not succeed and is finished or gone: retry it first"
            )
        case .awaitedByUnfinished(_, let action, let dependent):
            return (.invalidState, "\(action.rawValue): unfinished job \(dependent) waits for it (cancel it first)")
        case .notPeriodic:
            return (.invalidState, "next occurrence: the job is not periodic")
        case .restoredLeaseMismatch:
            return (.corruption, "restore: a lease without running, or running without a lease")
        case .restoredWaitingForFinished(_, let prerequisite):
            return (
                .corruption,
                "restore: an unfinished job waits for \(prerequisite), which is not an unfinished job restored before it"
            )
        case .runsBeforePrerequisite(_, let action, let prerequisite):
            return (.invalidState, "\(action.rawValue): the job waits for prerequisite \(prerequisite) and cannot run")
        case .restoredPrerequisiteTwice(_, let prerequisite):
            return (.corruption, "restore: prerequisite \(prerequisite) named twice")
        case .restoredOutOfOrder(_, let sequence, let previous):
            return (
                .corruption,
                "restore: sequence \(sequence) is not above \(previous), that of a job before it (a snapshot restores in enqueue order)"
            )
        case .migratedWaitingForFinished(_, let prerequisite):
            return (
                .corruption,
                "migration commit: an unfinished job waits for \(prerequisite), which is gone or finished without success"
            )
        case .snapshotNotFirst:
            return (.corruption, "snapshot: the state is not empty (a snapshot starts a replay)")
        case .migrationNotNewer(let number, let applied):
            return (.corruption, "migration \(number) begins after migration \(applied) was applied")
        case .stepOutsideMigration:
            return (.corruption, "a migration step outside a migration")
        case .commitNotBegun(let number):
            return (.corruption, "commit of migration \(number), which is not the one begun")
        case .migrationsAppliedMisplaced:
            return (.corruption, "migrations applied: only at the start of a snapshot")
        case .snapshotExtentMisplaced:
            return (.corruption, "snapshot extent: only right after the snapshot record, and at least 1")
        case .migratedWithoutPayload:
            return (.invalidArgument, "migrated job: a new job without a payload")
        case .migratedInconsistent:
            return (.invalidArgument, "migrated job: inconsistent state, lease or deadline")
        case .migratedKeyChanged:
            return (.invalidArgument, "migrated job: a migration keeps a job's unique key")
        case .notAMigrationStep:
            return (.corruption, "not a migration step")
        case .alreadyParked:
            return (.invalidState, "park: the job is parked already")
        case .parkKeyHeld(_, let key, let holder):
            return (.parkKeyConflict, "park: key \(key) is held by parked job \(holder)")
        case .parkDeadlineHolds:
            return (.invalidState, "reclaim: the job is parked and its deadline has not passed")
        case .kindPaused(_, let kind):
            return (.invalidState, "claim: kind \(kind) is paused (resume it first)")
        case .rateLimited(_, let kind, let until):
            return (.invalidState, "claim: kind \(kind) reached its rate limit until \(until) ms")
        case .kindAlreadyPaused(let kind):
            return (.invalidState, "pause: kind \(kind) is paused already")
        case .kindNotPaused(let kind):
            return (.invalidState, "resume: kind \(kind) is not paused")
        case .noRateLimit(let kind):
            return (.invalidState, "rate limit: kind \(kind) has none to remove")
        case .rateWindowWithoutLimit(let kind):
            return (.corruption, "rate window: kind \(kind) has no rate limit")
        case .startsBelowAttempts(_, let starts, let attempts):
            return (.corruption, "starts: \(starts) is below the job's \(attempts) attempts (each attempt was started)")
        }
    }

    /// The error the engine throws for this refusal, naming the job.
    var error: SpoolError {
        let (code, message) = codeAndMessage
        return SpoolError(code, message, jobID: jobID.isEmpty ? nil : JobID(jobID))
    }

    /// The refusal as the holder of a ``Lease`` this queue issued sees it: a job that no longer
    /// exists is a lost lease (the lease proves it existed), not an unknown id.
    var forIssuedLease: Refusal {
        if case .noSuchJob(let id, _) = self { return .leaseOfRemovedJob(id: id) }
        return self
    }

    var description: String { "job \(jobID): \(codeAndMessage.1)" }
}
