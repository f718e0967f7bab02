extension JobQueue {
    // MARK: Results

    /// Records that the leased job succeeded, with `result` (``Job/result``) in the same record: durable
    /// with the success, handed to the jobs that wait for this one (their ``Job/prerequisiteResults``,
    /// a handler's `JobContext.prerequisiteResults`), and kept with the job until retention removes it.
    ///
    /// ```swift
    /// try queue.complete(lease, result: Data("https://photos.example.com/\(photoID)".utf8))
    /// ```
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for a result over ``JobLimits/maxResultBytes``
    ///   (nothing is written, the job stays running); otherwise as ``complete(_:)-rpzo``.
    @discardableResult
    public func complete(_ lease: Lease, result: Data) throws -> Job {
        try endAttempt(lease.job.id, token: lease.token, issued: true, .succeeded(result: [UInt8](result)))
    }

    /// Records that the leased job succeeded, with `result`. See the blocking `complete(_:result:)`.
    @discardableResult
    public func complete(_ lease: Lease, result: Data) async throws -> Job {
        try await endAttempt(lease.job.id, token: lease.token, issued: true, .succeeded(result: [UInt8](result)))
    }

    /// Records that job `id`, leased under `token`, succeeded, with `result` in the same record: for a
    /// worker that kept only the id and token of its claim (another process, the `spool` tool). As
    /// `complete(_:result:)` otherwise.
    @discardableResult
    public func complete(_ id: JobID, token: LeaseToken, result: Data) throws -> Job {
        try endAttempt(id, token: token, issued: false, .succeeded(result: [UInt8](result)))
    }

    /// Records that job `id`, leased under `token`, succeeded, with `result`. See the blocking
    /// `complete(_:token:result:)`.
    @discardableResult
    public func complete(_ id: JobID, token: LeaseToken, result: Data) async throws -> Job {
        try await endAttempt(id, token: token, issued: false, .succeeded(result: [UInt8](result)))
    }
}
