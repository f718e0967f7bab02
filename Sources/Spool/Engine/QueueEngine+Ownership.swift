/// The owner's role under ``ProcessSharing/shared`` (``OwnershipFence``), as the engine and its
/// callers see it.
extension QueueEngine {
    /// Renews a `.shared` owner's lease when half of it has gone (the runner calls this at every wake,
    /// so an idle owner keeps its role); nothing for an exclusive one. Once another process took over,
    /// throws ``SpoolError/Code/ownershipLost``, and every later call does too.
    func renewOwnership() throws {
        try withOpenState {}
        guard let fence else { return }
        do {
            try fence.renew()
        } catch let error as SpoolError where error.code == .ownershipLost {
            lock.withLock { status.poison(with: error) }
            throw error
        }
    }
}
