/// A producer's typed enqueue: a job of a ``JobKind``, as `JobQueue.enqueue(_:id:…)` takes one.
extension QueueProducer {
    /// Records a job of a ``JobKind`` for the owner to enqueue, and returns its id once the record is durable.
    ///
    /// <!-- sample: skip -->
    /// ```swift
    /// let producer = try QueueProducer(directory: groupContainer.appending(path: "jobs"))
    /// try producer.enqueue(UploadPhoto(path: path), uniqueKey: "photo:\(photoID)")
    /// ```
    ///
    /// Every option of ``NewJob`` is an argument here, with the same default and meaning (see
    /// ``NewJob/init(_:id:priority:runAt:delay:maxAttempts:uniqueKey:uniquePolicy:dependencies:constraints:periodic:tags:retryPolicy:)``);
    /// a job without `maxAttempts` gets the owner's budget when the owner ingests it. The errors are those of
    /// ``enqueue(_:)-9kno6``, plus ``SpoolError/Code/invalidArgument`` when the parameters cannot be encoded.
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

    /// Records a job of a ``JobKind`` for the owner to enqueue. The arguments are those of the blocking form.
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
                parameters, id: id, priority: priority, runAt: runAt, delay: delay, maxAttempts: maxAttempts,
                uniqueKey: uniqueKey, uniquePolicy: uniquePolicy, dependencies: dependencies,
                constraints: constraints, periodic: periodic, tags: tags, retryPolicy: retryPolicy))
    }
}
