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
        /// Salvage mode passes over an intact record whose LSN is not above the last one (a stale or
        /// duplicated record). The visitor sees it whole: it may refuse what it must not pass over unread.
        case stale(RecordFrame.Found, reason: String)
    }

    /// Damage that is not a torn tail.
    struct Corruption: Error {
        var offset: Int
        var reason: String
    }

    let bytes: UnsafeRawBufferPointer
    /// The file's checksum seed (see ``RecordFrame/checksumSeed(instanceID:)``).
    let seed: UInt32
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
            switch RecordFrame.parse(bytes, at: offset, seed: seed) {
            case .success(let found):
                let lsn = found.header.lsn
                if let wanted = expected, lsn != wanted {
                    let reason = "record has LSN \(lsn), expected \(wanted)"
                    guard mode == .salvage else { throw Corruption(offset: offset, reason: reason) }
                    if lsn < wanted {
                        // A stale or duplicated record: pass over it.
                        try visit(.stale(found, reason: reason))
                        offset = found.end
                        outcome.validEnd = offset
                        continue
                    }
                    try visit(.skipped(offset: offset, length: 0, reason: "records \(wanted) to \(lsn - 1) are missing"))
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
                case .checksumMismatch: reason = "checksum mismatch"
                }
                let resume: Int
                switch firstRecordOfLaterGroup(after: offset, expectedLSN: expected,
                                               minimumLSN: expected ?? (outcome.lastLSN ?? 0) + 1,
                                               previousGroupFirstLSN: outcome.lastGroupFirstLSN) {
                case .laterGroup(let found):
                    resume = found
                case .tooCostly:
                    guard mode == .salvage else {
                        throw Corruption(offset: offset, reason: "\(reason); the bytes after it cannot be checked cheaply")
                    }
                    try visit(.skipped(offset: offset, length: bytes.count - offset, reason: reason))
                    return outcome
                case .none:
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

    enum Resync {
        /// No intact record of a later group follows.
        case none
        /// One does, at this offset.
        case laterGroup(Int)
        /// Checking the candidates would cost far more than reading the file.
        case tooCostly
    }

    /// The offset of the first intact record after `damage` that proves the
    /// damage is not a torn tail: a record with a later LSN that is not part of
    /// the commit group the damaged record could belong to.
    ///
    /// Candidates are tried at every byte, cheap fields first (type, reserved
    /// byte, an LSN no further ahead than the bytes left could hold), and the
    /// checksummed bytes are capped at a few times the file's size, so hostile
    /// bytes cannot make open slow.
    private func firstRecordOfLaterGroup(after damage: Int, expectedLSN: UInt64?, minimumLSN: UInt64,
                                         previousGroupFirstLSN: UInt64?) -> Resync {
        var offset = damage + 1
        var tornGroup: Set<UInt64> = []
        if let expectedLSN { tornGroup.insert(expectedLSN) }
        if let previousGroupFirstLSN { tornGroup.insert(previousGroupFirstLSN) }
        let minimumLSN = max(minimumLSN, 1)
        let furthest = minimumLSN.addingReportingOverflow(UInt64(bytes.count / LogFormat.frameHeaderSize + LogFormat.maximumGroupRecords))
        let acceptable = minimumLSN...(furthest.overflow ? UInt64.max - 1 : min(furthest.partialValue, UInt64.max - 1))
        var budget = 8 * bytes.count + (1 << 20)
        while offset + LogFormat.frameHeaderSize <= bytes.count {
            // A frame's LSN is never zero: skip zeroed stretches (preallocated space) in one step.
            if bytes[(offset + 8)..<(offset + 16)].allSatisfy({ $0 == 0 }) {
                var nonZero = offset + 16
                while nonZero < bytes.count && bytes[nonZero] == 0 { nonZero += 1 }
                if nonZero >= bytes.count { return .none }
                offset = max(offset + 1, nonZero - 15)
                continue
            }
            let found: RecordFrame.Found
            switch RecordFrame.parse(bytes, at: offset, seed: seed, acceptableLSNs: acceptable) {
            case .success(let intact):
                found = intact
                budget -= found.end - offset
            case .failure(.checksumMismatch(let checked)):
                budget -= checked
                if budget < 0 { return .tooCostly }
                offset += 1
                continue
            case .failure:
                offset += 1
                continue
            }
            if budget < 0 { return .tooCostly }
            if expectedLSN == nil && tornGroup.isEmpty {
                // Nothing is known about the damaged group (salvage resync): any record will do.
                return .laterGroup(offset)
            }
            if !tornGroup.contains(found.header.groupFirstLSN) { return .laterGroup(offset) }
            offset = found.end
        }
        return .none
    }
}
