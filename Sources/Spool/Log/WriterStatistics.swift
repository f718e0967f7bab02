/// What a ``LogWriter`` has done since it was opened.
struct WriterStatistics: Sendable, Equatable {
    /// Syncs of commit groups, one per group: a data sync (fdatasync / F_FULLFSYNC), or a
    /// full sync for a group written past the reserved space (counted in `extendingWrites` too).
    var dataSyncs = 0
    /// Time spent in the syncs counted by `dataSyncs`: with the count, what one sync
    /// takes, and (against the time the syncs were made in) what the leader does between them.
    var dataSyncNanoseconds: UInt64 = 0
    /// Full syncs (fsync) of reservations, one per preallocated chunk.
    var fullSyncs = 0
    /// Bytes reserved (written as zeroes on Linux).
    var reservedBytes: Int64 = 0
    /// Large commit groups written past the reserved space, extending the file, each made
    /// durable by a full sync of its own instead of a data sync.
    var extendingWrites = 0
    /// Records made durable.
    var records = 0

    /// These counts and `other`'s together (a retired file's writer and the next one's).
    func adding(_ other: WriterStatistics) -> WriterStatistics {
        WriterStatistics(
            dataSyncs: dataSyncs + other.dataSyncs,
            dataSyncNanoseconds: dataSyncNanoseconds + other.dataSyncNanoseconds,
            fullSyncs: fullSyncs + other.fullSyncs, reservedBytes: reservedBytes + other.reservedBytes,
            extendingWrites: extendingWrites + other.extendingWrites, records: records + other.records)
    }
}
