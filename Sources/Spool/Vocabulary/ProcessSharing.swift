/// Whether other processes may take over a queue (``Configuration/sharing``).
///
/// | | `.exclusive` (the default) | `.shared` |
/// |---|---|---|
/// | between calls | the owner holds a record lock on `LOCK` while the queue is open | no lock is held: the owner locks `LOCK` (never waiting) only around each write and sync |
/// | another process opens the queue | refused with ``SpoolError/Code/locked`` | refused with ``SpoolError/Code/ownedElsewhere`` while the owner's lease holds; after it, it takes over |
/// | an owner that was taken over | cannot be: the lock keeps others out | its next write is refused with ``SpoolError/Code/ownershipLost``, never interleaved |
///
/// Use `.shared` for a queue in an App Group container: on iOS a process suspended while it holds a
/// file lock in a shared container is terminated (`0xdead10cc`). Ownership is recorded in the
/// `OWNER` file (an epoch, the owner's token and its lease; FORMAT.md, "Ownership"): every write
/// of a `.shared` owner first checks that the file still names it.
public enum ProcessSharing: Sendable, Equatable {
    /// One process has the queue for as long as it is open, holding a lock on `LOCK`: the behaviour
    /// of earlier releases.
    case exclusive
    /// No lock is held between calls: ownership is a lease in the `OWNER` file
    /// (``Configuration/ownershipLease``), renewed by the owner's writes and its runner, and every
    /// write is fenced by it.
    case shared
}
