extension JobQueue {
    /// Cancels every enqueued or running job of `kind`, and by the chain rule the jobs that
    /// depend on them, in one record. Running jobs' late results are discarded (their
    /// ``complete(_:)-rpzo`` throws ``SpoolError/Code/leaseLost``).
    ///
    /// - Returns: The jobs this cancelled (including dependents), in enqueue order; empty when none was unfinished.
    @discardableResult
    public func cancel(kind: String) throws -> [Job] {
        try engine.durably { try $0.cancel { $0.kind == kind } }.map(Job.init)
    }

    /// Cancels every unfinished job of `kind`. See ``cancel(kind:)-8a730``.
    @discardableResult
    public func cancel(kind: String) async throws -> [Job] {
        try await engine.durably { try $0.cancel { $0.kind == kind } }.map(Job.init)
    }

    /// Cancels the unfinished job holding unique key `key` — with a chain built by
    /// ``UniquePolicy/append``, every unfinished job carrying the key — and by the chain rule
    /// the jobs that depend on them, in one record.
    ///
    /// - Returns: The jobs this cancelled, in enqueue order; empty when no unfinished job carries the key.
    @discardableResult
    public func cancel(uniqueKey key: String) throws -> [Job] {
        try engine.durably { try $0.cancel(uniqueKey: key) }.map(Job.init)
    }

    /// Cancels the unfinished jobs carrying unique key `key`. See ``cancel(uniqueKey:)-66598``.
    @discardableResult
    public func cancel(uniqueKey key: String) async throws -> [Job] {
        try await engine.durably { try $0.cancel(uniqueKey: key) }.map(Job.init)
    }
}
