/// Walks the records of one log file in memory and decides, when it meets
/// damage, whether the damage is a torn tail or corruption. It reports what it
/// finds; what to do about it (cut the tail, fail, skip) is the caller's policy.
///
/// The rule rests on how the writer writes: records go out in commit groups,
/// one write and one sync each, and a group's write starts only after the
/// previous group's sync returned. So only the last group in the last file can
/// be unsynced at a crash, and a crash can tear it anywhere: cut it short,
/// leave zeroes, or even keep later sectors while losing earlier ones. Damage
/// is a torn tail when every intact record after it (with a later LSN) belongs
/// to that same last group; an intact record of any later group proves the
/// damaged group had been synced, so the damage is corruption.
struct LogScanner {
    /// Intact records from `start` on, and how the file ends.
    struct Outcome {
        /// Where the last intact record (applied or not) ends.
        var validEnd: Int
        /// The damage that ended the file, if it ended in a torn tail.
        var tornTailOffset: Int?
        /// The LSN of the last record visited.
        var lastLSN: UInt64?
        /// The group-first LSN of the last record visited.
        var lastGroupFirstLSN: UInt64?
    }

    /// What the visitor is told about each intact record.
    enum Event {
        case record(RecordFrame.Found)
        /// Salvage mode passed over damaged bytes.
        case skipped(offset: Int, length: Int, reason: String)
    }

    /// Damage that is not a torn tail.
    struct Corruption: Error {
        var offset: Int
        var reason: String
    }

    let bytes: UnsafeRawBufferPointer
    /// Whether this is the last file of the log (only it may have a torn tail).
    let isLastFile: Bool
    let mode: RecoveryMode

    /// Visits every intact record from `start`, in order.
    ///
    /// - Parameter expectedLSN: The LSN the first record must have, or `nil` to accept any.
    /// - Throws: ``Corruption`` in strict mode; whatever `visit` throws.
    func scan(from start: Int, expectedLSN: UInt64?,
              visit: (Event) throws -> Void) throws -> Outcome {
        var offset = start
        var expected = expectedLSN
        var outcome = Outcome(validEnd: start)
        while offset < bytes.count {
            switch RecordFrame.parse(bytes, at: offset) {
            case .success(let found):
                let lsn = found.header.lsn
                if let wanted = expected, lsn != wanted {
                    let reason = "record has LSN \(lsn), expected \(wanted)"
                    guard mode == .salvage else { throw Corruption(offset: offset, reason: reason) }
                    try visit(.skipped(offset: offset, length: found.end - offset, reason: reason))
                    offset = found.end
                    outcome.validEnd = offset
                    if lsn < wanted { continue }
                }
                try visit(.record(found))
                expected = lsn + 1
                outcome.lastLSN = lsn
                outcome.lastGroupFirstLSN = found.header.groupFirstLSN
                offset = found.end
                outcome.validEnd = offset
            case .failure(let damage):
                if RecordFrame.isZero(bytes, from: offset) { return outcome }
                let reason: String
                switch damage {
                case .truncated: reason = "record runs past the end of the file"
                case .invalid(let why): reason = why
                }
                let laterGroup = firstRecordOfLaterGroup(after: offset, expectedLSN: expected,
                                                         previousGroupFirstLSN: outcome.lastGroupFirstLSN)
                guard let resume = laterGroup else {
                    if isLastFile {
                        outcome.tornTailOffset = offset
                        return outcome
                    }
                    guard mode == .salvage else {
                        throw Corruption(offset: offset, reason: "\(reason), in a file that is not the last")
                    }
                    try visit(.skipped(offset: offset, length: bytes.count - offset, reason: reason))
                    return outcome
                }
                guard mode == .salvage else {
                    throw Corruption(offset: offset, reason: "\(reason); intact records follow at offset \(resume)")
                }
                try visit(.skipped(offset: offset, length: resume - offset, reason: reason))
                offset = resume
                expected = nil
            }
        }
        return outcome
    }

    /// The offset of the first intact record after `damage` that proves the
    /// damage is not a torn tail: a record with a later LSN that is not part of
    /// the commit group the damaged record could belong to.
    private func firstRecordOfLaterGroup(after damage: Int, expectedLSN: UInt64?,
                                         previousGroupFirstLSN: UInt64?) -> Int? {
        var offset = damage + 1
        var tornGroup: Set<UInt64> = []
        if let expectedLSN { tornGroup.insert(expectedLSN) }
        if let previousGroupFirstLSN { tornGroup.insert(previousGroupFirstLSN) }
        let minimumLSN = expectedLSN ?? 0
        while offset + LogFormat.frameHeaderSize <= bytes.count {
            guard case .success(let found) = RecordFrame.parse(bytes, at: offset),
                  found.header.lsn >= minimumLSN else {
                offset += 1
                continue
            }
            if expectedLSN == nil && tornGroup.isEmpty {
                // Nothing is known about the damaged group (salvage resync): any record will do.
                return offset
            }
            if !tornGroup.contains(found.header.groupFirstLSN) { return offset }
            offset = found.end
        }
        return nil
    }
}
