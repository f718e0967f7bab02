/// How a ``JobQueue`` behaves.
public struct Configuration: Sendable {
    /// Delays between attempts and the default number of attempts. A policy that breaks its
    /// factory's rules fails the open with ``SpoolError/Code/invalidArgument`` (see ``RetryPolicy/validate()``).
    public var retryPolicy: RetryPolicy = .default
    /// How long a claim's lease lasts unless the claim says otherwise, in seconds: positive and
    /// below 10⁹, or the open fails with ``SpoolError/Code/invalidArgument``.
    public var leaseDuration: TimeInterval = 300
    /// The largest payload accepted, in bytes (at most ``JobLimits/maxPayloadBytes``).
    public var maximumPayloadSize: Int = 1 << 20
    /// What open does about damage that is not a torn tail.
    public var recoveryMode: RecoveryMode = .strict
    /// Whether open creates the directory and the queue when they do not exist.
    public var createIfMissing = true
    /// What open does with jobs that were running when the queue was last closed or the process died.
    public var runningJobsAtOpen: RunningJobsAtOpen = .reclaim
    /// How long succeeded and cancelled jobs are kept after they finished, in
    /// seconds: ``JobQueue/compact()-9yby2`` drops older ones. Failed jobs are kept until deleted.
    /// Not negative (infinity keeps them forever); a negative or NaN retention fails the open
    /// with ``SpoolError/Code/invalidArgument``.
    public var retention: TimeInterval = 24 * 3600
    /// The source of time. Inject a ``ManualClock`` in tests.
    public var clock: any SpoolClock = SystemClock()
    /// When the queue compacts itself in the background; `nil` turns automatic compaction off
    /// (``JobQueue/compact()-9yby2`` still works).
    public var autoCompaction: AutoCompaction? = AutoCompaction()

    /// The app's job migrations, applied at open in number order (see ``JobMigration``).
    public var migrations: [JobMigration] = []
    /// What an acknowledged change survives: power loss (``Durability/full``, the default) or a
    /// crash of the app or the kernel, with power loss dropping at most the last changes, in order
    /// (``Durability/ordered``, cheaper on Apple platforms; the same as `.full` on Linux).
    public var durability: Durability = .full
    /// The kinds this build of the app can run, or `nil` (the default) for any kind. When set, open
    /// ends every enqueued or running job of another kind failed for good, the reason recorded as its
    /// last error (visible, never retried, never deleted; the unfinished jobs waiting for one end
    /// cancelled by the chain rule); enqueueing or retrying a job of another kind is refused.
    public var knownKinds: Set<String>?
    /// How often a running ``JobRunner`` looks into the queue's inbox for the jobs of producers in
    /// other processes (``QueueProducer``) without being told to, in seconds. A runner watches the
    /// inbox and looks as soon as a producer writes; it also looks at a wake it makes for other work
    /// once this long has passed since it last looked (should the watcher miss a write: with a watcher
    /// it sets no timer of its own, so that an idle app is not woken), and, when the system gives it no
    /// watcher, wakes at least this often to look. Open looks once.
    public var inboxCheckInterval: TimeInterval = 1

    /// Whether other processes may take the queue over: ``ProcessSharing/exclusive`` (the default,
    /// a lock on `LOCK` held while the queue is open) or ``ProcessSharing/shared`` (no lock held
    /// between calls; ownership is a lease in the `OWNER` file and every write is fenced by it; for
    /// a queue in an App Group container).
    public var sharing: ProcessSharing = .exclusive
    /// How long a ``ProcessSharing/shared`` owner's lease lasts, in seconds: another process may take
    /// the queue over once it has expired (at once when the owner's process no longer exists). The
    /// owner renews it in its writes, and its runner at each wake, once half of it has gone; a queue
    /// left idle longer than this, with no runner, may be taken over, and its next call then fails
    /// with ``SpoolError/Code/ownershipLost``. Positive and below 10⁹.
    public var ownershipLease: TimeInterval = 30

    /// The file system; tests substitute a simulated one.
    var fileSystem: any FileSystem = POSIXFileSystem()
    /// Bytes the log file grows by at a time; 0 turns preallocation off (every
    /// write then extends the file, and every sync flushes its new size too).
    package var preallocationChunk: Int64 = LogWriter.defaultPreallocationChunk

    /// The size past which the log rolls over to a new file (`wal-<n+1>.log`),
    /// between two records; a record is never split. Tests and benchmarks use a small one.
    package var logFileSize: Int64 = 64 << 20

    /// A migration's operations are cut into records of about this many bytes (tests use a small one).
    var migrationRecordBytes = 4 << 20

    /// How the owner orders the producers' pending records: merged by their stamps, but in the process
    /// test that shows what the merge prevents (the harness's `own --file-by-file`).
    package var inboxOrder: InboxOrder = .merged

    /// The default configuration.
    public init() {}

    /// Refuses a setting out of its range, before anything is opened or written: the one check of a
    /// configuration, for a queue's open and a producer's.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` naming the setting.
    /// Refuses a kind that ``knownKinds`` leaves out (when it is set).
    func checkKnown(kind: String, jobID: JobID? = nil) throws {
        guard let knownKinds, !knownKinds.contains(kind) else { return }
        throw SpoolError(
            .invalidArgument, "this build cannot run jobs of kind \(kind) (not in knownKinds)", jobID: jobID)
    }

    func validate() throws {
        guard (1...JobLimits.maxPayloadBytes).contains(maximumPayloadSize) else {
            throw SpoolError.invalidArgument("maximumPayloadSize must be from 1 to \(JobLimits.maxPayloadBytes)")
        }
        try JobLimits.checkLeaseDuration(leaseDuration)
        guard ownershipLease > 0, ownershipLease < JobLimits.maxLeaseDuration else {
            throw SpoolError.invalidArgument(
                "ownershipLease must be positive and under \(Int64(JobLimits.maxLeaseDuration)) s, not \(ownershipLease)"
            )
        }
        guard logFileSize > Int64(LogFormat.fileHeaderSize) else {
            throw SpoolError.invalidArgument("logFileSize must be larger than a file header")
        }
        try retryPolicy.validate()
        guard retention >= 0 else {
            throw SpoolError.invalidArgument("retention must be a number of seconds, not negative")
        }
    }

    /// What to do at open with jobs whose state is `running`.
    public enum RunningJobsAtOpen: Sendable {
        /// The queue belongs to one process, so nothing can still be running them:
        /// each goes back to enqueued, after the retry policy's delay, or to failed
        /// if its attempts are spent. The default.
        case reclaim
        /// Leave jobs whose lease has not expired running, so that another process
        /// may complete them with its token (the `spool` command line works this way:
        /// `claim` and `complete` are separate processes). Expired leases are reclaimed.
        case keepUnexpiredLeases
    }
}

/// When a queue starts a compaction by itself.
///
/// After each record the queue compares the bytes of its log files with an estimate of
/// the bytes its live jobs would take in a snapshot. When the log holds at least
/// ``minimumLogBytes`` and more than `(1 + obsoleteRatio)` times the live estimate (and
/// more than `(1 + obsoleteRatio)` times what it held just after the previous compaction,
/// so that finished jobs kept by ``Configuration/retention`` cannot make it compact over
/// and over), one compaction starts on a background thread; writes go on meanwhile.
/// A background compaction that fails leaves the queue refusing writes with
/// ``SpoolError/Code/needsReopen``, as a failed ``JobQueue/compact()-9yby2`` does.
///
/// The ratio also bounds open: replay reads the last snapshot plus the records
/// after it, and the trigger counts those records by what they cost to replay,
/// not by their bytes alone: each record of a transition (a claim, a completion,
/// a cancel…) counts its bytes plus ``bytesPerRecord`` (decoding, checksum and
/// apply set-up that a small record pays as much as a large one); a record that
/// enqueues jobs counts its bytes, so live jobs alone never trigger a compaction. With the default ratio of 0.5 a queue whose
/// later records are all small single-job transitions (the worst case) opens
/// within about 1.7 times the open of a queue holding only the live jobs; the
/// price is rewriting the live jobs once per half their size of new records.
public struct AutoCompaction: Sendable, Equatable {
    /// The log never compacts by itself below this many bytes.
    public var minimumLogBytes: Int64
    /// What each transition record after the snapshot adds to its bytes in the trigger's count.
    /// One-job enqueue, claim and complete records are ~68 bytes, but each costs replay a
    /// decode, a checksum and an apply of its own; and a snapshot's jobs restore more slowly
    /// than the same jobs' enqueue records replay (their lookups are not read ahead). 160 keeps
    /// the worst case, a snapshot plus small transitions up to the trigger, within about 1.7
    /// times the open of the live jobs' enqueue records alone (measured with the benchmark's
    /// `compaction` workload; 64 gave 2.0–2.1× once enqueue replay read its lookups ahead).
    public static let bytesPerRecord: Int64 = 160
    /// How much obsolete data the log may hold, as a multiple of the live data.
    public var obsoleteRatio: Double

    /// Sets when the log compacts by itself.
    ///
    /// - Parameters:
    ///   - minimumLogBytes: The log never compacts by itself below this many bytes.
    ///   - obsoleteRatio: How much obsolete data the log may hold, as a multiple of the live data.
    public init(minimumLogBytes: Int64 = 16 << 20, obsoleteRatio: Double = 0.5) {
        self.minimumLogBytes = minimumLogBytes
        self.obsoleteRatio = obsoleteRatio
    }
}

/// How an owner orders the producers' pending records when it ingests them.
package enum InboxOrder: Sendable {
    /// By the records' stamps across files (``InboxMerge``): what every queue does.
    case merged
    /// File by file in name order, as builds before the stamp did: calls of different producers may be
    /// applied out of the order they returned in. Only to measure what the merge prevents.
    case fileByFile
}
