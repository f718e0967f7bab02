/// A kind of job whose parameters are a `Codable` value.
///
/// The value is the job's parameters; ``kind`` names the kind in the log. Enqueue
/// a value and register a handler for its type: the handler receives the value
/// decoded again, in whatever process runs the job.
///
/// ```swift
/// struct UploadPhoto: JobKind {
///     static let kind = "upload-photo"
///     var path: String
/// }
///
/// try await queue.enqueue(UploadPhoto(path: path), uniqueKey: "photo:\(photoID)")
///
/// try runner.register(UploadPhoto.self) { photo, context in
///     try await upload(photo.path, idempotencyKey: context.id.rawValue)
/// }
/// ```
///
/// The log stores the encoded bytes (JSON with sorted keys by default; override
/// ``encode(_:)`` and ``decode(_:)`` together to choose another encoding). Keep
/// ``kind`` stable: it is what jobs already in the log are matched by, not the
/// type's name. A payload that no longer decodes — the type changed
/// incompatibly — ends its job failed for good, with the reason, instead of
/// retrying a job that cannot run.
public protocol JobKind: Codable, Sendable {
    /// The kind stored with each job of this type; 1 to 200 UTF-8 bytes.
    static var kind: String { get }
    /// The payload stored for `parameters`.
    static func encode(_ parameters: Self) throws -> Data
    /// The parameters stored in `payload`.
    static func decode(_ payload: Data) throws -> Self
    /// The retry policy of this kind's jobs, stored with each job a typed enqueue makes (unless the
    /// enqueue gives its own); `nil` (the default) takes the queue's ``Configuration/retryPolicy``.
    ///
    /// ```swift
    /// struct SyncNotes: JobKind {
    ///     static let kind = "sync-notes"
    ///     static var retryPolicy: RetryPolicy? { .exponential(base: 2, maximum: 600, jitter: 0.2) }
    /// }
    /// ```
    static var retryPolicy: RetryPolicy? { get }
}

extension JobKind {
    /// No policy of the kind's own: the queue's.
    public static var retryPolicy: RetryPolicy? { nil }

    /// Encodes the parameters as JSON with sorted keys (the same value always gives the same bytes).
    public static func encode(_ parameters: Self) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(parameters)
    }

    /// Decodes parameters written by ``encode(_:)``.
    public static func decode(_ payload: Data) throws -> Self {
        try JSONDecoder().decode(Self.self, from: payload)
    }
}

extension NewJob {
    /// Describes a job of a ``JobKind``: its kind, and its parameters encoded as the payload.
    ///
    /// Use it to enqueue typed jobs in a batch with ``JobQueue/enqueue(contentsOf:)-84e97``;
    /// the other arguments are those of
    /// ``init(kind:payload:id:priority:runAt:delay:maxAttempts:uniqueKey:uniquePolicy:dependencies:constraints:periodic:tags:retryPolicy:)``,
    /// every one of them.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` when the parameters cannot be encoded.
    public init<Parameters: JobKind>(
        _ parameters: Parameters, id: JobID? = nil, priority: Int = 0,
        runAt: Date? = nil, delay: TimeInterval = 0, maxAttempts: Int? = nil,
        uniqueKey: String? = nil, uniquePolicy: UniquePolicy = .keep,
        dependencies: [JobID] = [], constraints: JobConstraints = .none,
        periodic: PeriodicSchedule? = nil, tags: Set<String> = [], retryPolicy: RetryPolicy? = nil
    ) throws {
        let payload: Data
        do {
            payload = try Parameters.encode(parameters)
        } catch {
            throw SpoolError.invalidArgument(
                "the parameters of a \(Parameters.kind) job could not be encoded: \(error)")
        }
        self.init(
            kind: Parameters.kind, payload: payload, id: id, priority: priority, runAt: runAt, delay: delay,
            maxAttempts: maxAttempts, uniqueKey: uniqueKey, uniquePolicy: uniquePolicy,
            dependencies: dependencies, constraints: constraints, periodic: periodic, tags: tags,
            retryPolicy: retryPolicy ?? Parameters.retryPolicy)
    }
}

extension JobQueue {
    /// Adds a job of a ``JobKind`` and returns its id once the job is durable.
    ///
    /// ```swift
    /// let id = try queue.enqueue(UploadPhoto(path: path))
    /// ```
    ///
    /// Every option of ``NewJob`` is an argument here, with the same default and meaning
    /// (see ``NewJob/init(_:id:priority:runAt:delay:maxAttempts:uniqueKey:uniquePolicy:dependencies:constraints:periodic:tags:retryPolicy:)``).
    /// The errors are those of ``JobQueue/enqueue(_:)-6of7x``, plus ``SpoolError/Code/invalidArgument``
    /// when the parameters cannot be encoded.
    @discardableResult
    public func enqueue<Parameters: JobKind>(
        _ parameters: Parameters, id: JobID? = nil, priority: Int = 0,
        runAt: Date? = nil, delay: TimeInterval = 0, maxAttempts: Int? = nil,
        uniqueKey: String? = nil, uniquePolicy: UniquePolicy = .keep,
        dependencies: [JobID] = [], constraints: JobConstraints = .none,
        periodic: PeriodicSchedule? = nil, tags: Set<String> = [], retryPolicy: RetryPolicy? = nil
    ) throws -> JobID {
        try enqueue(
            NewJob(
                parameters, id: id, priority: priority, runAt: runAt, delay: delay, maxAttempts: maxAttempts,
                uniqueKey: uniqueKey, uniquePolicy: uniquePolicy, dependencies: dependencies,
                constraints: constraints, periodic: periodic, tags: tags, retryPolicy: retryPolicy))
    }

    /// Adds a job of a ``JobKind`` and returns its id once the job is durable. The arguments are
    /// those of the blocking form, every option of ``NewJob``.
    ///
    /// ```swift
    /// let id = try await queue.enqueue(UploadPhoto(path: path), uniqueKey: "photo:\(photoID)",
    ///                                  constraints: JobConstraints(requiresNetwork: true))
    /// ```
    @discardableResult
    public func enqueue<Parameters: JobKind>(
        _ parameters: Parameters, id: JobID? = nil, priority: Int = 0,
        runAt: Date? = nil, delay: TimeInterval = 0, maxAttempts: Int? = nil,
        uniqueKey: String? = nil, uniquePolicy: UniquePolicy = .keep,
        dependencies: [JobID] = [], constraints: JobConstraints = .none,
        periodic: PeriodicSchedule? = nil, tags: Set<String> = [], retryPolicy: RetryPolicy? = nil
    ) async throws -> JobID {
        try await enqueue(
            NewJob(
                parameters, id: id, priority: priority, runAt: runAt, delay: delay,
                maxAttempts: maxAttempts, uniqueKey: uniqueKey, uniquePolicy: uniquePolicy,
                dependencies: dependencies, constraints: constraints, periodic: periodic, tags: tags,
                retryPolicy: retryPolicy))
    }
}
