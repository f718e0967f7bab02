extension JobQueue {
    // MARK: Tags

    /// The jobs carrying `tag` (``NewJob/tags``), in enqueue order, optionally only those in `state`.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long tag.
    public func jobs(tagged tag: String, state: JobState? = nil) throws -> [Job] {
        try JobLimits.checkTag(tag)
        return try engine.jobs { (state == nil || $0.state == state) && $0.tags.contains(tag) }.map(Job.init)
    }

    /// Cancels every enqueued or running job carrying `tag`, and by the chain rule the jobs that
    /// depend on them, in one record, as ``cancel(kind:)-8a730`` does for a kind. Running jobs' late
    /// results are discarded (their ``complete(_:)-rpzo`` throws ``SpoolError/Code/leaseLost``).
    ///
    /// ```swift
    /// try queue.cancel(tagged: "album:\(photoID)")   // the user deleted the album
    /// ```
    ///
    /// - Returns: The jobs this cancelled (including dependents), in enqueue order; empty when none was unfinished.
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long tag.
    @discardableResult
    public func cancel(tagged tag: String) throws -> [Job] {
        try JobLimits.checkTag(tag)
        return try engine.durably { try $0.cancel { $0.tags.contains(tag) } }.map(Job.init)
    }

    /// Cancels every unfinished job carrying `tag`. See the blocking `cancel(tagged:)`.
    @discardableResult
    public func cancel(tagged tag: String) async throws -> [Job] {
        try JobLimits.checkTag(tag)
        return try await engine.durably { try $0.cancel { $0.tags.contains(tag) } }.map(Job.init)
    }
}
