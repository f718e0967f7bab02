extension JobQueue {
    // MARK: Constraints

    /// Changes an unfinished job's constraints: the job's constraints become `constraints`, durable
    /// before it returns (a restart and a compaction keep them). For an enqueued job they decide its next
    /// claim; for a running one its next attempt (the attempt under way keeps the constraints it was
    /// claimed with, so it is not stopped by them). ``JobConstraints/none`` removes them.
    ///
    /// ```swift
    /// // The user turned "pause uploads on cellular" off: the waiting uploads may go now.
    /// for upload in try queue.jobs(tagged: "upload", state: .enqueued) {
    ///     try queue.update(upload.id, constraints: JobConstraints(requiresNetwork: true))
    /// }
    /// ```
    ///
    /// Constraints equal to the job's change nothing and write nothing. This is the owner's call: a
    /// ``QueueProducer`` has no counterpart (its requests would need a new operation in the inbox's grammar).
    ///
    /// - Returns: The job with its new constraints.
    /// - Throws: ``SpoolError/Code/jobNotFound``; ``SpoolError/Code/invalidState`` for a finished job
    ///   (succeeded, failed or cancelled), whose constraints decide nothing any more: nothing is written;
    ///   ``SpoolError/Code/invalidArgument`` for an empty or over-long condition name.
    @discardableResult
    public func update(_ id: JobID, constraints: JobConstraints) throws -> Job {
        Job(try engine.durably { try $0.update(id, constraints: constraints) })
    }

    /// Changes an unfinished job's constraints: the job's constraints become `constraints`, durable
    /// before it returns; for an enqueued job they decide its next claim, for a running one its next
    /// attempt. The owner's call (a producer has none). See the blocking `update(_:constraints:)`.
    ///
    /// - Throws: ``SpoolError/Code/jobNotFound``; ``SpoolError/Code/invalidState`` for a finished job.
    @discardableResult
    public func update(_ id: JobID, constraints: JobConstraints) async throws -> Job {
        Job(try await engine.durably { try $0.update(id, constraints: constraints) })
    }
}
