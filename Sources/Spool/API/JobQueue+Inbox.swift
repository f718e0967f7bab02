/// The owner's side of ``QueueProducer``: ingesting what producers in other processes recorded.
extension JobQueue {
    /// Moves the records of the producers' inbox files into the queue, durably, and returns how many
    /// jobs they added.
    ///
    /// Open does this once, and a running ``JobRunner`` whenever its watcher sees a producer write
    /// (see ``Configuration/inboxCheckInterval``); call it to see a producer's jobs sooner. An inbox file a
    /// producer is writing at that moment is left for the next call. Requests the queue's rules refuse
    /// are dropped (see ``QueueProducer``).
    ///
    /// - Throws: ``SpoolError/Code/corruption`` naming the inbox file and offset of damage before an
    ///   intact record (that file is left as it is; the others are ingested first),
    ///   ``SpoolError/Code/newerFormat``, ``SpoolError/Code/closed``, or an I/O error.
    @discardableResult
    public func ingestInbox() throws -> Int {
        try engine.ingestInbox()
    }

    /// Moves the producers' records into the queue without blocking the caller's thread. See the blocking variant.
    @discardableResult
    public func ingestInbox() async throws -> Int {
        try await Self.offload { try self.engine.ingestInbox() }
    }
}
