/// The preallocation policy of a log file: how much space ahead of the writes
/// is reserved, when, and when a large group is written past it instead.
///
/// The file grows in preallocated chunks: before a group would be written past
/// the reserved space, the leader reserves the next chunk and makes the
/// reservation durable with one full sync; the writes inside it then change no
/// metadata, so each needs only a data sync. A large group (a batch) that does
/// not fit the reserved space is written past it instead, extending the file,
/// and made durable with a full sync, rather than zeroes being written ahead of
/// it. Zeroes after the last record are the clean end of the log for the reader.
///
/// Owned by the ``LogWriter``'s current leader: only it calls the mutating methods.
struct FileReservation {
    /// Bytes reserved ahead of the write position at a time; 0 turns preallocation off.
    private var chunk: Int64
    /// The file's space up to here is reserved and the reservation is durable.
    private var allocatedEnd: Int64
    /// The size at which the file rolls over: no reservation goes past it (zeroes past it would
    /// be written, synced and cut off again at the roll-over), and a group ending past it is written
    /// as a large one is, extending the file.
    private let limit: Int64
    /// Where reservations start to double from: 0 for a new file, the end of the records for
    /// a file opened again. On Linux a reservation writes zeroes, so the first one after an
    /// open must be small too, not as large as the file (up to a chunk).
    private let base: Int64

    /// - Parameters:
    ///   - end: The offset after the last intact record. Whatever lies after it (zeroes of an
    ///     earlier reservation, or nothing) is reserved again, with a full sync, before the first
    ///     write: its allocation is not known to be durable.
    ///   - chunk: Bytes to reserve ahead of the write position at a time; 0 for none.
    ///   - limit: The size at which the file rolls over (``Configuration/logFileSize``).
    init(end: Int64, chunk: Int64, limit: Int64 = .max) {
        self.chunk = max(0, chunk)
        self.limit = limit
        self.allocatedEnd = end
        self.base = end > Int64(LogFormat.fileHeaderSize) ? end : 0
    }

    /// Whether a group of `count` bytes ending at `end` is written past the reserved space,
    /// extending the file, rather than inside a reservation made first: a large group (at
    /// least ``LogWriter/directWriteMinimum`` bytes) that would end past it, for which zeroes
    /// written first would cost about as many bytes again plus a full sync of their own; or a
    /// group ending past the size at which the file rolls over, where no reservation goes.
    func extends(groupOf count: Int, endingAt end: Int64) -> Bool {
        chunk > 0 && end > allocatedEnd && (Int64(count) >= LogWriter.directWriteMinimum || end > limit)
    }

    /// Records that a group written past the reserved space was made durable by a full sync,
    /// which flushed the new size and allocation with it: the reservation ends where it ends.
    mutating func extended(to end: Int64) {
        allocatedEnd = end
    }

    /// Makes sure the space of `file` up to `end` is reserved and the reservation durable,
    /// so that a data sync of a write below `end` flushes no metadata.
    ///
    /// Reserving is best effort: when the file system refuses, preallocation is turned off
    /// and writes extend the file, each data sync then flushing the new size too. A failed
    /// full sync is a failed sync: it throws, and the caller poisons the writer.
    ///
    /// - Returns: The bytes newly reserved (and made durable with one full sync), 0 for none.
    mutating func reserve(through end: Int64, in file: any StorageFile) throws -> Int64 {
        guard chunk > 0, end > allocatedEnd else { return 0 }
        // The step doubles with what this writer reserved, from the first reservation up to the chunk.
        let reserved = allocatedEnd - base
        let step = min(chunk, max(min(LogWriter.firstReservation, chunk), reserved))
        // Round up to a whole step past `end`, so that the next step is reserved ahead of the writes,
        // but never past the size at which the file rolls over (`end` is within it: see `extends`).
        let target = min((end / step + 1) * step, max(limit, end))
        do {
            try file.preallocate(offset: allocatedEnd, length: target - allocatedEnd)
        } catch {
            chunk = 0
            return 0
        }
        try file.fullSync()
        let added = target - allocatedEnd
        allocatedEnd = target
        return added
    }
}

extension LogWriter {
    /// The size of the chunks the file grows by, when nothing else is said.
    static let defaultPreallocationChunk: Int64 = 4 << 20

    /// The first reservation of a file (at most the chunk). Reservations then
    /// double with the file up to the chunk, so that a new file, made while the
    /// files it follows still exist (a roll-over, a compaction), adds little to
    /// the peak disk use. The cost: four more full syncs in a file's first 4 MiB.
    static let firstReservation: Int64 = 256 << 10

    /// The size from which a commit group that does not fit the reserved space
    /// is written past it directly, with a full sync, instead of being preceded
    /// by a reservation (see ``FileReservation/extends(groupOf:endingAt:)``): a batch of thousands of jobs.
    static let directWriteMinimum: Int64 = 256 << 10
}
