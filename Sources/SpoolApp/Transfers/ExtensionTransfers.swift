import Spool

extension BackgroundTransfers {
    /// In a share extension (a producer of the app's queue): enqueues `job` parked under its transfer's
    /// key, durably, then starts `request` in the extension's own background session `session`
    /// (identified by ``extensionSessionIdentifier(_:)``, its delegate reporting to a
    /// ``TransferCompletions/init(recordingThrough:log:)`` receiver). The app records the transfer's outcome:
    /// from the receiver's outcome job when the transfer ends while the extension runs, or when the system
    /// hands it the session's events (``handleEvents(forSession:completionHandler:)``) after; should
    /// the extension end before the transfer starts, the park's deadline brings the job back to the app,
    /// whose handler for its kind runs it.
    ///
    /// The job may carry no unique key: the owner could drop the enqueue for a key another job holds
    /// (`UniquePolicy.keep`) while the transfer already runs, and its outcome would find no job. Give
    /// the job no id (one is drawn) or one no other job has had, and deduplicate in the app before calling.
    ///
    /// - Parameters:
    ///   - job: The job; given an id (a UUID) when it has none, since its key names it.
    ///   - request: The transfer the system carries out for the job.
    ///   - producer: The extension's producer of the app's queue.
    ///   - session: The extension's own background session.
    ///   - duration: The park's duration: how long the app waits for the transfer's outcome.
    /// - Returns: The job's id.
    /// - Throws: `SpoolError.Code.invalidArgument` for a job with a unique key, and the producer's
    ///   errors (nothing is started then); the session's refusal to start.
    public static func enqueue(
        _ job: NewJob, transferring request: TransferRequest, producer: QueueProducer,
        session: any TransferSession, for duration: TimeInterval
    ) async throws -> JobID {
        guard job.uniqueKey == nil else {
            throw SpoolError(
                .invalidArgument,
                "an extension's transfer cannot carry a unique key: the owner may drop the enqueue for a key "
                    + "another job holds, while the transfer already runs")
        }
        var job = job
        let id = job.id ?? JobID(UUID().uuidString.lowercased())
        job.id = id
        let key = TransferKey(session: session.identifier, job: id, startedAt: producer.configuration.clock.now())
            .description
        let enqueued = try await producer.enqueue(job, parkedUnder: key, for: duration)
        try session.start(request, key: key)
        return enqueued
    }
}

extension BackgroundTransfers {
    /// The kind of the jobs that carry a share extension's transfer outcomes to the app
    /// (``TransferCompletions/init(recordingThrough:log:)``); ``BackgroundWork`` registers their handler.
    public static let outcomeKind = "spool.transfer-outcome"

    /// A completion as an outcome job's payload.
    static func encode(_ completion: TransferCompletion) -> Data {
        (try? JSONEncoder().encode(completion)) ?? Data()
    }

    /// An outcome job's completion.
    static func decode(_ payload: Data) throws -> TransferCompletion {
        try JSONDecoder().decode(TransferCompletion.self, from: payload)
    }
}
