/// Walks the records of one log file in memory and reports, when it meets
/// damage, what it found and where (a ``LogDamage``): whether more intact records
/// follow, whether it may be a torn tail. What to do about it (cut the tail, fail,
/// skip) is decided by ``RecoveryPlan/decide(_:mode:)``; the scanner carries it out.
///
/// The rule rests on how the writer writes: records go out in commit groups,
/// one write and one sync each, and a group's write starts only after the
/// previous group's sync returned. So only the last group in the last file can
/// be unsynced at a crash, and a crash can tear it anywhere: cut it short,
/// leave zeroes, or even keep later sectors while losing earlier ones. Damage
/// is a torn tail when every intact record after it (with a later LSN) belongs
/// to that same last group; an intact record of any later group proves the
/// damaged group had been synced, so the damage is corruption. And a torn tail
/// is at most that one group: damaged frames that still read as a chain of more
/// than one commit group are corruption too (see ``TornTailPolicy``).
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
    /// - Throws: ``Corruption`` where the plan refuses; whatever `visit` throws.
    func scan(
        from start: Int, expectedLSN: UInt64?,
        visit: (Event) throws -> Void
    ) throws -> Outcome {
        var offset = start
        var expected = expectedLSN
        var outcome = Outcome(validEnd: start)
        while offset < bytes.count {
            switch RecordFrame.parse(bytes, at: offset, seed: seed) {
            case .success(let found):
                let lsn = found.header.lsn
                if let wanted = expected, lsn != wanted {
                    let report = LogDamage(offset: offset, kind: .unexpectedLSN(found: lsn, expected: wanted))
                    switch try carryOut(RecoveryPlan.decide(report, mode: mode), record: found, visit: visit) {
                    case .passOverRecord:
                        offset = found.end
                        outcome.validEnd = offset
                        continue
                    case .applyRecord, .resume, .stop:
                        break
                    }
                }
                try visit(.record(found))
                expected = lsn + 1
                outcome.lastLSN = lsn
                outcome.lastGroupFirstLSN = found.header.groupFirstLSN
                offset = found.end
                outcome.validEnd = offset
            case .failure(let damage):
                if RecordFrame.isZero(bytes, from: offset) { return outcome }
                let following: LogDamage.Following
                switch firstRecordOfLaterGroup(
                    after: offset, expectedLSN: expected,
                    minimumLSN: expected ?? (outcome.lastLSN ?? 0) + 1,
                    previousGroupFirstLSN: outcome.lastGroupFirstLSN)
                {
                case .laterGroup(let found): following = .laterGroup(at: found)
                case .tooCostly: following = .uncheckable
                case .none:
                    if isLastFile {
                        let groups = TornTailPolicy.plausibleGroups(in: bytes, from: offset, firstLSN: expected)
                        following = .nothingInLastFile(groups: groups.count, lsns: groups.lsns)
                    } else {
                        following = .nothingInEarlierFile
                    }
                }
                let report = LogDamage(
                    offset: offset, kind: .damagedFrame(damage, following: following, fileEnd: bytes.count))
                let plan = RecoveryPlan.decide(report, mode: mode)
                if case .cutTornTail(let at) = plan {
                    outcome.tornTailOffset = at
                    return outcome
                }
                switch try carryOut(plan, record: nil, visit: visit) {
                case .resume(let resume):
                    offset = resume
                    expected = nil
                case .stop, .applyRecord, .passOverRecord:
                    return outcome
                }
            }
        }
        return outcome
    }

    /// Carries out a plan ``RecoveryPlan/decide(_:mode:)`` made: throws what it refuses, tells
    /// `visit` what it skips, and returns how the scan goes on.
    private func carryOut(
        _ plan: RecoveryPlan, record: RecordFrame.Found?,
        visit: (Event) throws -> Void
    ) throws -> RecoveryPlan.Continuation {
        switch plan {
        case .refuse(let offset, let reason):
            throw Corruption(offset: offset, reason: reason)
        case .refuseAt(let skip), .skipAt(let skip):
            // The scanner reports no damage placed elsewhere.
            throw Corruption(offset: Int(skip.offset), reason: skip.reason)
        case .cutTornTail:
            return .stop
        case .skip(let offset, let length, let reason, let then):
            if case .passOverRecord = then, let record {
                try visit(.stale(record, reason: reason))
            } else {
                try visit(.skipped(offset: offset, length: length, reason: reason))
            }
            return then
        }
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
    private func firstRecordOfLaterGroup(
        after damage: Int, expectedLSN: UInt64?, minimumLSN: UInt64,
        previousGroupFirstLSN: UInt64?
    ) -> Resync {
        var offset = damage + 1
        var tornGroup: Set<UInt64> = []
        if let expectedLSN { tornGroup.insert(expectedLSN) }
        if let previousGroupFirstLSN { tornGroup.insert(previousGroupFirstLSN) }
        let minimumLSN = max(minimumLSN, 1)
        // After a record of the highest LSN, no later record can exist.
        guard minimumLSN <= LogFormat.maximumLSN else { return .none }
        let furthest = minimumLSN.addingReportingOverflow(
            UInt64(bytes.count / LogFormat.frameHeaderSize + LogFormat.maximumGroupRecords))
        let acceptable =
            minimumLSN...(furthest.overflow ? LogFormat.maximumLSN : min(furthest.partialValue, LogFormat.maximumLSN))
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

/// How much a torn tail may hold. A crash tears only the commit group whose sync had not returned,
/// the last one written: so a torn tail is at most one commit group. Frames that fail their checksum
/// but whose headers still read as a chain of several groups (each LSN one above the one before,
/// the group index going up by one or starting again at 0) were written, and synced, as several
/// groups: a file whose every record fails (a header naming another queue's instance id, so another
/// seed) or two damaged groups at the end of a log are corruption, never a tail to cut.
enum TornTailPolicy {
    /// The most commit groups a torn tail may span.
    static let maximumGroups = 1

    /// The commit groups of the chain of plausible frames from `offset`.
    struct Groups {
        /// How many groups the chain spans (0 when no plausible frame starts at `offset`).
        var count = 0
        /// The LSNs of the chain's first and last frames, for messages.
        var lsns = ""
    }

    /// The chain of frames from `offset` whose headers are plausible (a known type, a zero reserved
    /// byte, a length within the maximum and the file, an LSN in range and above the group index)
    /// and continue one another (LSN + 1; group index + 1, or 0 for a new group), the first having
    /// `firstLSN` when it is known. Checksums are not looked at: these frames are damaged ones.
    /// It stops at the first frame that does not continue the chain, or once it spans more groups
    /// than a torn tail may.
    static func plausibleGroups(in bytes: UnsafeRawBufferPointer, from start: Int, firstLSN: UInt64?) -> Groups {
        var groups = Groups()
        var offset = start
        var previous: FrameHeader?
        var firstLSN = firstLSN
        while offset + LogFormat.frameHeaderSize <= bytes.count {
            let header = FrameHeader(bytes, at: offset)
            guard RecordType(rawValue: header.type) != nil, header.reserved == 0,
                header.bodyLength <= LogFormat.maximumBodySize,
                header.bodyLength <= bytes.count - offset - LogFormat.frameHeaderSize,
                RecordFrame.acceptableLSNs.contains(header.lsn), header.lsn > UInt64(header.groupIndex)
            else { break }
            if let previous {
                guard header.lsn == previous.lsn + 1,
                    header.groupIndex == 0 || header.groupIndex == previous.groupIndex &+ 1
                else { break }
                if header.groupIndex == 0 { groups.count += 1 }
            } else {
                if let wanted = firstLSN, header.lsn != wanted { break }
                firstLSN = header.lsn
                groups.count = 1
            }
            groups.lsns = "\(firstLSN ?? header.lsn) to \(header.lsn)"
            if groups.count > maximumGroups { break }
            previous = header
            offset += LogFormat.frameHeaderSize + header.bodyLength
        }
        return groups
    }
}
