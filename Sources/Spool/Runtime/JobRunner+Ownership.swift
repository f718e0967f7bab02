/// The runner's part in a ``ProcessSharing/shared`` owner's role: it renews the lease at every wake
/// (and wakes for it), so that an owner that runs jobs keeps the queue, and stops when it lost it.
extension JobRunner {
    /// Renews the queue's ownership lease when it is due; after ``SpoolError/Code/ownershipLost``
    /// the runner stops by itself, cancelling its attempts (their results could not be recorded).
    /// Other failures are left to the calls that meet them.
    func renewOwnership() {
        do {
            try queue.engine.renewOwnership()
        } catch let error as SpoolError where error.code == .ownershipLost {
            stopByItself(error, cancelRunning: true)
        } catch {
            // A busy `LOCK` or an I/O failure: the next write (or wake) tries again or reports it.
        }
    }

    /// When the lease is next due for renewal; `nil` for an exclusive queue.
    var ownershipRenewalDue: Date? {
        queue.engine.fence.map { Millis.date($0.renewalDue) }
    }
}
