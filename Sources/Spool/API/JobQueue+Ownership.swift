extension JobQueue {
    /// Renews this process's lease on the queue (``Configuration/sharing`` `.shared`) when half of it
    /// has gone, so that no other process takes the queue over while this one is idle; nothing for an
    /// exclusive queue. Writes renew the lease, and so does a running ``JobRunner`` at every wake:
    /// call this only for a queue kept open, idle, without a runner.
    ///
    /// - Throws: ``SpoolError/Code/ownershipLost`` when another process took the queue over (its
    ///   lease had expired); the queue then refuses every call, and must be reopened.
    public func renewOwnership() throws { try engine.renewOwnership() }
}
