/// Who owns a queue, as its `OWNER` file records it (FORMAT.md, *Ownership*): what a tool reads to
/// tell a person which process has the queue, and whether opening it would take a `.shared` owner's
/// role over.
///
/// Read without a lock: `OWNER` is rewritten one checksummed slot at a time, so a read during a write
/// finds the previous record.
///
/// ```swift
/// if let owner = try QueueOwner.read(directory: path), owner.leaseUntil != nil {
///     print("owned by process \(owner.processID)")
/// }
/// ```
public struct QueueOwner: Sendable, Equatable {
    /// The owner's process id (as it recorded it; the process may have ended since).
    public var processID: Int32
    /// Counts takeovers: each new owner records the epoch after the one it found.
    public var epoch: UInt64
    /// Until when the owner's lease holds; `nil` when there is no lease: an
    /// ``ProcessSharing/exclusive`` owner recorded itself (it holds `LOCK` while the queue is open), or
    /// a ``ProcessSharing/shared`` owner closed the queue cleanly. A date in the past is a lease that
    /// expired: its owner was suspended or ended without closing, and the next opener takes the role.
    public var leaseUntil: Date?

    /// The current record of `directory`'s `OWNER` file; `nil` when it has none (a queue no
    /// ``ProcessSharing/shared`` owner ever opened) or no valid slot.
    ///
    /// - Throws: ``SpoolError/Code/newerFormat`` for a record of a newer version, or an I/O error.
    public static func read(directory: String) throws -> QueueOwner? {
        try read(directory: directory, fileSystem: POSIXFileSystem())
    }

    static func read(directory: String, fileSystem: any FileSystem) throws -> QueueOwner? {
        guard let record = try OwnershipFence.read(directory + "/" + OwnerRecord.fileName, fileSystem: fileSystem)
        else { return nil }
        return QueueOwner(
            processID: record.processID, epoch: record.epoch,
            leaseUntil: record.leaseUntil == 0 ? nil : Millis.date(record.leaseUntil))
    }
}
