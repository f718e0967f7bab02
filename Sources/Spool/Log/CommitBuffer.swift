/// The records a ``LogWriter`` was given and has not written yet, and where
/// each one goes: the commit group being filled, the full groups behind it,
/// and the bytes a leader is writing now. Guarded by the writer's lock.
///
/// Offsets and LSNs are counted here: a record's LSN is the next one, and its
/// frame starts where everything written and buffered before it ends.
struct CommitBuffer {
    /// Full commit groups waiting for a leader (a group holds at most
    /// ``LogFormat/maximumGroupRecords`` records), oldest first.
    private var sealedGroups: [[UInt8]] = []
    /// Framed records of the group being filled.
    private var pending: [UInt8] = []
    private var pendingRecords = 0
    /// Bytes a leader is writing now, starting at ``writtenEnd``.
    private var inFlight: [UInt8] = []
    /// Everything before this offset has been written (and, unless a leader is
    /// between its write and its sync, synced).
    private(set) var writtenEnd: Int64
    private var nextLSN: UInt64

    /// - Parameters:
    ///   - end: The offset after the last intact record: where the next record goes.
    ///   - lastLSN: The LSN of the last record in the log, 0 for an empty log.
    init(end: Int64, lastLSN: UInt64) {
        writtenEnd = end
        nextLSN = lastLSN + 1
    }

    /// Records taken for writing: one or more commit groups.
    struct Groups {
        var groups: [[UInt8]]
        /// Where the first group goes.
        var offset: Int64
        var lastLSN: UInt64
    }

    /// The LSN of the most recently appended record.
    var lastAppendedLSN: UInt64 { nextLSN - 1 }

    /// Where the next appended record would start: the written bytes plus everything buffered.
    var end: Int64 {
        writtenEnd + Int64(inFlight.count) + Int64(sealedGroups.reduce(0) { $0 + $1.count }) + Int64(pending.count)
    }

    /// Whether `lsn` was appended here (a wait for a later one would never end).
    func holds(_ lsn: UInt64) -> Bool { lsn < nextLSN }

    /// Seals `frame` as the next record (its header filled in with `type`, its LSN, its index in
    /// the group and `seed`) and buffers it. The first record of a commit group becomes the
    /// group's buffer as it is, so that a large body (a batch) is not copied again.
    ///
    /// - Returns: Its LSN and the offset of its frame.
    mutating func append(
        _ frame: inout [UInt8], type: RecordType, seed: UInt32
    ) throws(SpoolError) -> (lsn: UInt64, frameOffset: Int64) {
        guard nextLSN <= LogFormat.maximumLSN else {
            throw SpoolError(.invalidArgument, "the log sequence number space is exhausted")
        }
        if pendingRecords == LogFormat.maximumGroupRecords {
            sealedGroups.append(pending)
            pending = []
            pendingRecords = 0
        }
        let lsn = nextLSN
        let frameOffset = end
        RecordFrame.seal(&frame, type: type, lsn: lsn, groupIndex: UInt16(pendingRecords), seed: seed)
        if pending.isEmpty { pending = frame } else { pending.append(contentsOf: frame) }
        nextLSN += 1
        pendingRecords += 1
        return (lsn, frameOffset)
    }

    /// Takes every buffered group for writing and marks it in flight.
    mutating func takeForWriting() -> Groups {
        var groups = sealedGroups
        if !pending.isEmpty { groups.append(pending) }
        sealedGroups = []
        pending = []
        pendingRecords = 0
        inFlight = groups.count == 1 ? groups[0] : groups.flatMap { $0 }
        return Groups(groups: groups, offset: writtenEnd, lastLSN: nextLSN - 1)
    }

    /// The bytes in flight are written and synced.
    mutating func markWritten() {
        writtenEnd += Int64(inFlight.count)
        inFlight = []
    }

    /// The bytes in flight are lost (their write or sync failed).
    mutating func dropInFlight() {
        inFlight = []
    }

    /// The `count` bytes at `offset`, a range that ends past ``writtenEnd``; empty when it reaches
    /// past what is buffered or starts before ``writtenEnd``.
    func unwritten(at offset: Int64, count: Int) -> [UInt8] {
        let start = Int(offset - writtenEnd)
        let combined = inFlight + sealedGroups.flatMap { $0 } + pending
        guard start >= 0, start + count <= combined.count else { return [] }
        return Array(combined[start..<(start + count)])
    }
}
