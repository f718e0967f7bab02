extension JobContext {
    /// The results this job's prerequisites recorded when they succeeded, by prerequisite (see
    /// ``setResult(_:)``): a prerequisite that succeeded without one is not here. Empty for a job
    /// with no prerequisites.
    public var prerequisiteResults: [JobID: Data] { job.prerequisiteResults }

    /// Sets the result the runner records with this attempt's success, in the same record
    /// (``Job/result``; handed to the jobs that wait for this one, as their
    /// ``prerequisiteResults``). A later call replaces it; nothing is recorded unless the handler
    /// returns normally. Memory only until then: a context built with
    /// ``init(job:cancellationReason:renewLease:park:checkpoint:clock:)`` keeps nothing.
    ///
    /// ```swift
    /// try runner.register(UploadPhoto.self) { photo, context in
    ///     try await upload(photo.path, idempotencyKey: context.id.rawValue)
    ///     try context.setResult(Data("uploaded \(photo.path)".utf8))
    /// }
    /// ```
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` over ``JobLimits/maxResultBytes``; the result
    ///   set before is kept.
    public func setResult(_ data: Data) throws {
        let bytes = [UInt8](data)
        try JobLimits.checkResult(bytes)
        if case .runner(let runner, let token) = source { runner.setResult(token, bytes) }
    }
}

extension JobRunner {
    /// Keeps `result` for the success of the attempt under `token`, while that attempt is not settled.
    func setResult(_ token: LeaseToken, _ result: [UInt8]) {
        state.withLock { state in
            guard state.executions[token]?.isSettled == false else { return }
            state.executions[token]?.result = result
        }
    }
}
