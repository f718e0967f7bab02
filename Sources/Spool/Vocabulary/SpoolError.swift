/// An error thrown by Spool.
///
/// Every error carries a ``code`` to match on and a message a person can act
/// on; errors from the file system also name the ``path``, the ``offset`` and
/// the ``errno`` of the system call that failed.
///
/// ```swift
/// do {
///     try await queue.complete(lease)
/// } catch SpoolError.Code.leaseLost {
///     // the job was cancelled or reclaimed: discard the result
/// }
/// ```
public struct SpoolError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    ///
    /// A struct with one static value per code, not an enum, so that a later version can add a code
    /// without breaking the apps that match on codes: a `switch` over ``SpoolError/code`` cannot be
    /// exhaustive and ends with `default:` (match the codes the app handles; treat the rest as the
    /// failure ``SpoolError/description`` describes). `catch SpoolError.Code.leaseLost` matches one code.
    ///
    /// ```swift
    /// do {
    ///     try queue.complete(lease)
    /// } catch let error as SpoolError {
    ///     switch error.code {
    ///     case .leaseLost, .jobNotFound: break          // the job is gone: nothing to record
    ///     case .diskFull: showStorageWarning()
    ///     default: throw error
    ///     }
    /// }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// A stable name for the code, used in messages and by the CLI.
        public let name: String
        private init(_ name: String) { self.name = name }
        /// The code's ``name``.
        public var description: String { name }

        /// A system call failed; ``SpoolError/errno`` says why.
        public static let ioFailure = Code("ioFailure")
        /// The disk is full (`ENOSPC`), or a file-size limit was hit (`EFBIG`).
        public static let diskFull = Code("diskFull")
        /// A record in the middle of the log is damaged; nothing was changed on disk.
        public static let corruption = Code("corruption")
        /// A file was written by a newer version of Spool than this one.
        public static let newerFormat = Code("newerFormat")
        /// The queue's jobs were migrated by a newer build of the app: its applied job migration is
        /// above the highest one in ``Configuration/migrations``. Nothing was changed.
        public static let newerMigrations = Code("newerMigrations")
        /// The directory exists but does not hold a Spool queue.
        public static let notAQueue = Code("notAQueue")
        /// The queue does not exist and the open was not allowed to create it.
        public static let queueNotFound = Code("queueNotFound")
        /// Another open queue, in this process or another, holds the directory.
        public static let locked = Code("locked")
        /// An argument is out of range: an empty kind, a payload over the limit, a negative delay.
        public static let invalidArgument = Code("invalidArgument")
        /// No job has the given id.
        public static let jobNotFound = Code("jobNotFound")
        /// The job is in a state that does not allow the operation.
        public static let invalidState = Code("invalidState")
        /// The lease is no longer valid: the job was cancelled, reclaimed or claimed again.
        public static let leaseLost = Code("leaseLost")
        /// Another unfinished job holds the unique key.
        public static let uniqueKeyConflict = Code("uniqueKeyConflict")
        /// The queue was closed.
        public static let closed = Code("closed")
        /// An earlier write or sync failed, so what is on disk is unknown; close and reopen the queue.
        public static let needsReopen = Code("needsReopen")
        /// Another process owns the queue (``ProcessSharing/shared``) and its lease has not expired:
        /// the message says which process and until when; ``SpoolError/path`` is the `OWNER` file.
        public static let ownedElsewhere = Code("ownedElsewhere")
        /// Another process took the queue over (``ProcessSharing/shared``) after this one's lease expired:
        /// this queue refuses every later call, reads included; nothing it refused reached the log.
        public static let ownershipLost = Code("ownershipLost")
        /// Another parked job holds the park key (`JobQueue.park(_:key:deadline:)`).
        public static let parkKeyConflict = Code("parkKeyConflict")
        /// A checkpoint over ``JobLimits/maxCheckpointBytes`` (``JobContext/checkpoint(_:)``).
        public static let checkpointTooLarge = Code("checkpointTooLarge")

        /// Lets a `catch SpoolError.Code.corruption` clause match a thrown ``SpoolError``.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SpoolError)?.code == code
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence describing the failure.
    public var message: String
    /// The file or directory involved, if any.
    public var path: String?
    /// The byte offset in ``path`` involved, if any.
    public var offset: Int64?
    /// The system error number, if a system call failed.
    public var errno: Int32?
    /// The system call or engine step that failed, such as `fdatasync`.
    public var operation: String?
    /// The job involved, if any.
    public var jobID: JobID?

    /// Creates an error. Spool creates these; tests and adapters may too.
    public init(
        _ code: Code, _ message: String, path: String? = nil, offset: Int64? = nil,
        errno: Int32? = nil, operation: String? = nil, jobID: JobID? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
        self.errno = errno
        self.operation = operation
        self.jobID = jobID
    }

    /// The message with every known detail: code, path, offset, operation, errno.
    public var description: String {
        var text = "\(code): \(message)"
        if let jobID { text += " [job \(jobID)]" }
        if let path { text += " [path \(path)" + (offset.map { " at offset \($0)" } ?? "") + "]" }
        if let operation {
            text += " [\(operation)" + (errno.map { " errno \($0) \(Self.errnoName($0))" } ?? "") + "]"
        } else if let errno {
            text += " [errno \(errno) \(Self.errnoName(errno))]"
        }
        return text
    }

    private static func errnoName(_ value: Int32) -> String {
        let text = Platform.errnoDescription(value)
        return text.isEmpty ? "" : "(\(text))"
    }
}

extension SpoolError {
    /// An error for a failed system call, classified by its errno.
    static func system(_ operation: String, errno value: Int32, path: String, offset: Int64? = nil) -> SpoolError {
        let code: Code = Platform.isDiskFull(errno: value) ? .diskFull : .ioFailure
        return SpoolError(code, "\(operation) failed", path: path, offset: offset, errno: value, operation: operation)
    }

    static func invalidArgument(_ message: String) -> SpoolError {
        SpoolError(.invalidArgument, message)
    }
}
