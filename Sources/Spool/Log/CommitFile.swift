/// The active log file as the group-commit leader writes it: each commit group
/// with one write and one sync, inside preallocated space
/// (``FileReservation``), and inside the ownership fence of a
/// ``ProcessSharing/shared`` owner; after a failed write or sync, a cut back to
/// what was written. Only the current leader uses it (the role passes under
/// the writer's lock), so it needs no lock of its own.
struct CommitFile {
    let file: any StorageFile
    /// The sync each commit group gets (``Durability``): a data sync, or an ordered one.
    let durability: Durability
    /// A ``ProcessSharing/shared`` owner's fence: every write and sync of a commit group, and every
    /// cut of the file, runs inside it; `nil` for an ``ProcessSharing/exclusive`` owner.
    let fence: OwnershipFence?
    /// The file's preallocated space.
    private var reservation: FileReservation

    /// How a log's files are written, the same for each file of the log.
    struct Settings {
        /// Bytes to reserve ahead of the write position at a time; 0 for none.
        var preallocationChunk: Int64
        /// The sync of each commit group that fits the reserved space.
        var durability: Durability
        /// A ``ProcessSharing/shared`` owner's fence; `nil` for an ``ProcessSharing/exclusive`` owner.
        var fence: OwnershipFence?
        /// The size at which the engine rolls the log over to a new file: no reservation goes past it.
        var rollOverSize: Int64
    }

    init(file: any StorageFile, end: Int64, settings: Settings) {
        self.file = file
        self.durability = settings.durability
        self.fence = settings.fence
        reservation = FileReservation(end: end, chunk: settings.preallocationChunk, limit: settings.rollOverSize)
    }

    /// What writing some commit groups did.
    struct Outcome {
        /// Bytes written and synced, from the first group's offset.
        var written: Int64 = 0
        /// The work done, to add to the writer's ``WriterStatistics`` (`records` left 0).
        var statistics = WriterStatistics()
        /// The first failure: nothing after `written` is known to be on the disk.
        var failure: SpoolError?
    }

    /// Writes `groups`, one after another from `offset`, each with one write and one sync (the
    /// scanner's torn-tail rule depends on it), inside the fence. Stops at the first failure and
    /// cuts the file back to what was written before it.
    mutating func write(_ groups: [[UInt8]], at offset: Int64) -> Outcome {
        var outcome = Outcome()
        do {
            // Inside the fence (a `.shared` owner): the check that this process still owns the
            // queue, the writes and syncs, and the cut after a failed one, under one hold of `LOCK`.
            try fence.fenced {
                for group in groups where outcome.failure == nil {
                    do {
                        try writeAndSync(group, at: offset + outcome.written, counting: &outcome.statistics)
                        outcome.written += Int64(group.count)
                    } catch let error as SpoolError {
                        outcome.failure = error
                    } catch {
                        outcome.failure = SpoolError(
                            .ioFailure, "\(error)", path: file.path, offset: offset + outcome.written)
                    }
                }
                if outcome.failure != nil { cutBack(to: offset + outcome.written) }
            }
        } catch {
            // The fence refused (ownership lost, `LOCK` busy): nothing was written, and nothing of
            // the file may be touched (another owner may be writing it).
            outcome.failure = error as? SpoolError ?? SpoolError(.ioFailure, "\(error)", path: file.path)
        }
        return outcome
    }

    /// Writes one commit group at `offset` and makes it durable.
    ///
    /// A group that fits the reserved space, or is small, is written inside a
    /// durable reservation (reserving first if needed) and needs only a data
    /// sync. A large group that would end past the reserved space is written
    /// there as it is, extending the file, and made durable with one full sync
    /// (``FileReservation/extends(groupOf:endingAt:)``).
    private mutating func writeAndSync(
        _ group: [UInt8], at offset: Int64, counting statistics: inout WriterStatistics
    ) throws {
        let end = offset + Int64(group.count)
        let extending = reservation.extends(groupOf: group.count, endingAt: end)
        if !extending {
            let reserved = try reservation.reserve(through: end, in: file)
            if reserved > 0 {
                statistics.fullSyncs += 1
                statistics.reservedBytes += reserved
            }
        }
        try file.write(group, at: offset)
        let syncStart = Platform.monotonicNanoseconds()
        if extending {
            try file.fullSync()
            reservation.extended(to: end)
            statistics.extendingWrites += 1
        } else {
            try file.sync(durability)
        }
        statistics.dataSyncs += 1
        statistics.dataSyncNanoseconds += Platform.monotonicNanoseconds() &- syncStart
    }

    /// What a failed write or sync left in the file is unknown, so it is cut back, best effort, to
    /// what was synced; replay treats whatever remains after a crash as a torn tail. Inside the fence.
    private func cutBack(to end: Int64) {
        try? file.truncate(to: end)
        // Orders the cut before anything a reopen writes; nothing is acknowledged on the strength of it.
        try? file.syncData()
    }

    /// Cuts the reserved space after `end`, the last record, off the file: best effort and not
    /// synced, since zeroes after the last record are a clean end, so a cut that fails or is lost
    /// in a crash loses nothing and fails no call. With no leader left.
    func cutReservedSpace(after end: Int64) {
        try? fence.fenced { if let size = try? file.size(), size > end { try? file.truncate(to: end) } }
    }
}
