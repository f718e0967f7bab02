/// A numbered change to the jobs an app has stored, for when a new version of the app
/// renames a kind, changes the shape of a kind's parameters, splits one job into several or
/// stops supporting a kind.
///
/// Register migrations in ``Configuration/migrations``. When a queue opens, every registered
/// migration whose number is above the queue's applied migration number
/// (``JobQueue/appliedMigration``) runs, in number order, before anything else: it visits every
/// job that may still run — enqueued, running, failed or cancelled (a manual retry brings the last
/// two back); succeeded jobs are history and are not visited — and the action it returns for each
/// is recorded. A migration applies atomically: after a crash at any moment the queue holds every
/// job as before it, or every job as after it, never a mix; one that did not finish runs again at
/// the next open. The applied number is recorded with the jobs and never goes down, so a migration
/// never runs twice.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.migrations = [
///     .renameKind("mail", to: "email", number: 1),
///     JobMigration(number: 2, name: "upload takes a list of paths") { job, payload in
///         guard job.kind == "upload" else { return .keep }
///         guard let path = String(data: payload, encoding: .utf8) else { return .invalid(reason: "not UTF-8") }
///         return .rewrite(payload: Data(#"{"paths":["\#(path)"]}"#.utf8))
///     },
/// ]
/// ```
///
/// A queue whose applied number is above the highest registered migration was migrated by a newer
/// build of the app: open refuses it with ``SpoolError/Code/newerMigrations`` (the jobs may be in
/// shapes this build does not know), unless ``Configuration/migrations`` is empty, as in tools
/// such as the `spool` command line, which do not interpret jobs.
public struct JobMigration: Sendable {
    /// The migration's place in the order, from 1. Numbers are unique among the registered migrations.
    public var number: Int
    /// What the migration does, for messages.
    public var name: String
    /// Decides what becomes of one job, given the job and its payload. It must be deterministic
    /// and quick; it runs at open, under the queue's lock.
    public var transform: @Sendable (_ job: Job, _ payload: Data) -> Action

    /// Describes a migration.
    public init(
        number: Int, name: String = "",
        transform: @escaping @Sendable (_ job: Job, _ payload: Data) -> Action
    ) {
        self.number = number
        self.name = name
        self.transform = transform
    }

    /// What a migration does to one job.
    public enum Action: Sendable {
        /// The job stays as it is.
        case keep
        /// The job takes a new kind, a new payload or both (`nil` keeps the current one); its state,
        /// attempts, schedule, unique key and lease are kept.
        case rewrite(kind: String? = nil, payload: Data? = nil)
        /// The job is replaced by these jobs, in order: each takes the job's state, attempts, schedule
        /// and times, except that replacements of a running job are enqueued (its lease ends: its worker's
        /// result is refused with ``SpoolError/Code/leaseLost``, whether the original is gone or a
        /// replacement took its id). An empty list acts as ``drop``.
        ///
        /// A job with constraints, prerequisites (``Job/blockingPrerequisites``), a periodic schedule or
        /// unfinished jobs waiting for it cannot be split (its replacements would lose them): such an
        /// answer fails the open with ``SpoolError/Code/invalidArgument``, nothing written.
        case split([Replacement])
        /// The job ends cancelled, its last error saying which migration dropped it; it is kept
        /// (visible, until retention drops it), never deleted.
        case drop
        /// The job's parameters cannot be used any more: it ends failed for good, never retried
        /// by the queue, with the reason as its last error.
        case invalid(reason: String)
    }

    /// One job replacing the original in a ``Action/split(_:)``.
    public struct Replacement: Sendable {
        /// The new job's kind.
        public var kind: String
        /// The new job's parameters.
        public var payload: Data
        /// The new job's id; `nil` gives `<original id>/<position from 1>` (when that would be over the id
        /// limit, the original id is cut short and followed by `~` and 16 hex digits of its hash before
        /// `/<position>`, the same on every run). It must not be taken.
        public var id: JobID?
        /// The new job's priority; `nil` takes the original's.
        public var priority: Int?
        /// The new job's unique key; replacements do not inherit the original's.
        public var uniqueKey: String?

        /// Describes a replacement job.
        public init(kind: String, payload: Data, id: JobID? = nil, priority: Int? = nil, uniqueKey: String? = nil) {
            self.kind = kind
            self.payload = payload
            self.id = id
            self.priority = priority
            self.uniqueKey = uniqueKey
        }
    }

    /// A migration that renames kind `old` to `new`.
    public static func renameKind(_ old: String, to new: String, number: Int) -> JobMigration {
        JobMigration(number: number, name: "rename kind \(old) to \(new)") { job, _ in
            job.kind == old ? .rewrite(kind: new) : .keep
        }
    }

    /// A migration that drops every job of `kind` (see ``Action/drop``).
    public static func dropKind(_ kind: String, number: Int) -> JobMigration {
        JobMigration(number: number, name: "drop kind \(kind)") { job, _ in
            job.kind == kind ? .drop : .keep
        }
    }
}
