/// Every call that takes a queue directory as a path also takes it as a file `URL`, the form Apple's APIs
/// hand an app (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, `URL.applicationSupportDirectory`).
extension URL {
    /// The file-system path of a file URL, for the calls that take a directory; a URL of another scheme is
    /// ``SpoolError/Code/invalidArgument``.
    func queueDirectoryPath() throws -> String {
        guard isFileURL else {
            throw SpoolError.invalidArgument("a queue directory must be a file URL, not \(absoluteString)")
        }
        return withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? ""
    }
}

extension JobQueue {
    /// Opens the queue in the directory at `url`, a file URL. See ``init(directory:configuration:)-(String,_)``.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// let queue = try JobQueue(directory: URL.applicationSupportDirectory.appending(path: "jobs"))
    /// ```
    public convenience init(directory url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(directory: try url.queueDirectoryPath(), configuration: configuration)
    }

    /// Opens the queue in the directory at `url`, a file URL, off the caller's thread. See
    /// ``open(directory:configuration:)-(String,_)``.
    public static func open(directory url: URL, configuration: Configuration = Configuration()) async throws
        -> JobQueue
    {
        try await open(directory: try url.queueDirectoryPath(), configuration: configuration)
    }
}

extension QueueProducer {
    /// A producer for the queue in the directory at `url`, a file URL. See ``init(directory:configuration:)-(String,_)``.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// let group = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example")!
    /// let producer = try QueueProducer(directory: group.appending(path: "jobs"))
    /// ```
    public convenience init(directory url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(directory: try url.queueDirectoryPath(), configuration: configuration)
    }
}

extension LogInspector {
    /// Verifies the queue in the directory at `url`, a file URL. See ``verify(directory:)-(String)``.
    public static func verify(directory url: URL) throws -> VerificationSummary {
        try verify(directory: try url.queueDirectoryPath())
    }

    /// The records of the queue in the directory at `url`, a file URL. See ``records(directory:)-(String)``.
    public static func records(directory url: URL) throws -> [LogRecordSummary] {
        try records(directory: try url.queueDirectoryPath())
    }

    /// Replays the queue in the directory at `url`, a file URL, and runs `body` with its jobs. See
    /// ``withJobs(directory:_:)-(String,_)``.
    public static func withJobs<T>(directory url: URL, _ body: (InspectedQueue) throws -> T) throws -> T {
        try withJobs(directory: try url.queueDirectoryPath(), body)
    }
}

extension QueueOwner {
    /// The current record of the `OWNER` file of the queue in the directory at `url`, a file URL. See
    /// ``read(directory:)-(String)``.
    public static func read(directory url: URL) throws -> QueueOwner? {
        try read(directory: try url.queueDirectoryPath())
    }
}
