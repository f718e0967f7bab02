/// What open does when it finds a damaged record that is not a torn tail.
///
/// A torn tail, the unfinished last write of a process that died, is always
/// cut off silently: it was never acknowledged. Damage followed by intact
/// records is different: something acknowledged was lost or altered.
/// (RocksDB calls the two choices `kAbsoluteConsistency` / `kTolerateCorruptedTailRecords`
/// and `kSkipAnyCorruptedRecords`.)
public enum RecoveryMode: String, Sendable, CaseIterable {
    /// Refuse to open with ``SpoolError/Code/corruption``, naming the file and
    /// offset, and change nothing on disk. The default.
    case strict
    /// Skip damaged records and records that no longer apply, open with what
    /// remains, and list what was skipped in ``RecoveryReport/skipped``.
    case salvage
}

/// What open found and repaired.
public struct RecoveryReport: Sendable, Equatable {
    /// A range of the log that was not applied.
    public struct Skipped: Sendable, Equatable, CustomStringConvertible {
        /// The file the range is in.
        public var path: String
        /// The offset of the range in the file.
        public var offset: Int64
        /// The range's length in bytes (0 for an operation that was skipped within an intact record).
        public var length: Int64
        /// Why the range was skipped.
        public var reason: String
        /// A one-line summary.
        public var description: String { "\(path) @\(offset) (\(length) bytes): \(reason)" }
    }

    /// Records replayed.
    public var recordsReplayed = 0
    /// Log files read.
    public var filesRead = 0
    /// Bytes of an unfinished last write that were cut off (0 when the log ended cleanly).
    public var tornTailBytes: Int64 = 0
    /// Where the torn tail began, if there was one.
    public var tornTailOffset: Int64?
    /// The file whose torn tail was cut.
    public var tornTailPath: String?
    /// Damaged records and operations skipped in ``RecoveryMode/salvage`` mode.
    public var skipped: [Skipped] = []
    /// Running jobs found at open and returned to enqueued or failed.
    public var reclaimedJobs: [JobID] = []
    /// The job migrations this open applied, in order.
    public var appliedMigrations: [Int] = []
    /// Migrations a crash cut short before this open: they never happened, and ran again.
    public var abandonedMigrations = 0
    /// Jobs of a kind the build cannot run (``Configuration/knownKinds``) that this open ended failed
    /// (jobs waiting for one of them end cancelled by the chain rule and are not listed).
    public var unrunnableJobs: [JobID] = []
    /// Producer inbox files the open's ingestion could not read — damage or a newer format — each with
    /// the file, the offset and why (the ``SpoolError`` ``JobQueue/ingestInbox()-2diog`` throws for it). Such a
    /// file is left as it is: its records from the offset on are not ingested (the other files' are), and
    /// every later ingestion reports it again. Empty when every inbox file was read.
    public var inboxFilesNotIngested: [Skipped] = []

    /// Creates an empty report.
    public init() {}
}
