/// Damage a reader found in the log, reported without judging it: what it is and where.
///
/// ``LogScanner`` reports damage inside a file's record stream; ``LogReplay`` reports an intact
/// record that does not decode or apply and a header whose first LSN disagrees with the log. What
/// strict and salvage do about each is decided in one place, ``RecoveryPlan/decide(_:mode:)``.
struct LogDamage: Equatable {
    /// What follows a damaged frame, as the scanner's resync found it.
    enum Following: Equatable {
        /// An intact record of a later commit group, at this offset: the damage was synced.
        case laterGroup(at: Int)
        /// Checking the candidates after it would cost far more than reading the file.
        case uncheckable
        /// No intact record of a later group, in the log's last file; the damaged frames from the
        /// damage on read as a chain of this many commit groups (LSNs named for messages).
        case nothingInLastFile(groups: Int, lsns: String)
        /// No intact record of a later group, in a file that is not the last.
        case nothingInEarlierFile
    }

    /// The kinds of damage.
    enum Kind: Equatable {
        /// An intact record whose LSN is not the one expected.
        case unexpectedLSN(found: UInt64, expected: UInt64)
        /// A damaged frame (as ``RecordFrame`` found it), and what follows it up to `fileEnd`.
        case damagedFrame(RecordFrame.Damage, following: Following, fileEnd: Int)
        /// A file header names a first LSN that is not where the log before it ends: the skipped
        /// range is where the report puts it (the end of the file before, or the header's field).
        case headerLSNMismatch(RecoveryReport.Skipped)
        /// A snapshot holding fewer records than its first record announces (`snapshot_extent`): its end
        /// was cut off, outside the crash model (a snapshot is complete and synced before it has its name).
        case snapshotCut(RecoveryReport.Skipped)
        /// An intact record (checksum right) whose body does not decode.
        case undecodableRecord(lsn: UInt64, end: Int, reason: String)
        /// An operation of an intact, decoded record that the state refuses.
        case operationRefused(lsn: UInt64, reason: String)
    }

    /// Where the damage is: the offset in the file being read.
    var offset: Int
    var kind: Kind
}

/// What to do about one ``LogDamage``: the one place strict and salvage differ.
enum RecoveryPlan: Equatable {
    /// Refuse the open with ``SpoolError/Code/corruption`` at `offset` (or at the skip's own place).
    case refuse(offset: Int, reason: String)
    /// Refuse with corruption at a place other than the damage's (a range in another file).
    case refuseAt(RecoveryReport.Skipped)
    /// Cut the file at `offset`: the unfinished last write of a process that died.
    case cutTornTail(at: Int)
    /// Salvage: report the range skipped (which abandons a pending migration), then go on as `then` says.
    case skip(offset: Int, length: Int, reason: String, then: Continuation)
    /// Salvage: report a range skipped whose place is not the damage's.
    case skipAt(RecoveryReport.Skipped)

    /// How reading goes on after a skip.
    enum Continuation: Equatable {
        /// Apply the record at the damage (the range skipped is the records missing before it).
        case applyRecord
        /// Pass over the record at the damage, unread (a stale or duplicated record).
        case passOverRecord
        /// Resume at this offset, expecting any LSN.
        case resume(at: Int)
        /// Stop reading the file.
        case stop
    }

    /// Decides what `mode` does about `damage`. Pure: no disk, no clock.
    static func decide(_ damage: LogDamage, mode: RecoveryMode) -> RecoveryPlan {
        let offset = damage.offset
        switch damage.kind {
        case .unexpectedLSN(let found, let expected):
            let reason = "record has LSN \(found), expected \(expected)"
            guard mode == .salvage else { return .refuse(offset: offset, reason: reason) }
            if found < expected { return .skip(offset: offset, length: 0, reason: reason, then: .passOverRecord) }
            return .skip(
                offset: offset, length: 0, reason: "records \(expected) to \(found - 1) are missing",
                then: .applyRecord)
        case .damagedFrame(let frame, let following, let fileEnd):
            let reason = frame.reason
            switch following {
            case .laterGroup(let resume):
                guard mode == .salvage else {
                    return .refuse(offset: offset, reason: "\(reason); intact records follow at offset \(resume)")
                }
                return .skip(offset: offset, length: resume - offset, reason: reason, then: .resume(at: resume))
            case .uncheckable:
                guard mode == .salvage else {
                    return .refuse(offset: offset, reason: "\(reason); the bytes after it cannot be checked cheaply")
                }
                return .skip(offset: offset, length: fileEnd - offset, reason: reason, then: .stop)
            case .nothingInLastFile(let groups, let lsns):
                // A torn tail is cut in either mode: it was never acknowledged.
                if groups <= TornTailPolicy.maximumGroups { return .cutTornTail(at: offset) }
                let why =
                    "\(reason); the damaged frames from here on read as \(groups) or more commit groups "
                    + "(LSNs \(lsns)), and a torn tail is at most the last one"
                guard mode == .salvage else { return .refuse(offset: offset, reason: why) }
                return .skip(offset: offset, length: fileEnd - offset, reason: why, then: .stop)
            case .nothingInEarlierFile:
                let why = "\(reason), in a file that is not the last"
                guard mode == .salvage else { return .refuse(offset: offset, reason: why) }
                return .skip(offset: offset, length: fileEnd - offset, reason: why, then: .stop)
            }
        case .headerLSNMismatch(let skip), .snapshotCut(let skip):
            guard mode == .salvage else { return .refuseAt(skip) }
            return .skipAt(skip)
        case .undecodableRecord(let lsn, let end, let reason):
            guard mode == .salvage else {
                return .refuse(
                    offset: offset, reason: "record \(lsn) has an intact checksum but cannot be decoded: \(reason)")
            }
            return .skip(offset: offset, length: end - offset, reason: reason, then: .passOverRecord)
        case .operationRefused(let lsn, let reason):
            guard mode == .salvage else {
                return .refuse(offset: offset, reason: "record \(lsn) does not apply: \(reason)")
            }
            return .skip(offset: offset, length: 0, reason: "operation skipped: \(reason)", then: .applyRecord)
        }
    }
}

/// What open repairs in a directory after replay, decided from what replay found (pure: no disk);
/// ``QueueDirectory`` carries it out, in the order of the fields.
struct OpenRepairs: Equatable {
    /// Files an older snapshot replaced, left over from a compaction that ended before it removed
    /// them. Empty when salvage skipped part of the snapshot: they are then the only copy of what
    /// was skipped, and stay (replay ignores them; the next compaction removes them).
    var removeObsolete: [String] = []
    /// A last file a crash left without a complete header: nothing in it was acknowledged.
    var removeTornCreation: String?
    /// The torn creation was the only file: a new queue whose creation was torn gets its first file.
    var createFirstFile = false

    /// Decides the removals of open for `replay` of the queue at `directory`.
    static func removals(after replay: LogReplay.Outcome, directory: String) -> OpenRepairs {
        var repairs = OpenRepairs()
        let snapshotPath = replay.snapshotSequence.map {
            directory + "/" + QueueDirectoryLayout.logFileName(sequence: $0)
        }
        if !replay.report.skipped.contains(where: { $0.path == snapshotPath }) {
            repairs.removeObsolete = replay.obsoleteFiles.map(\.path)
        }
        if let torn = replay.tornCreation {
            repairs.removeTornCreation = torn.file.path
            repairs.createFirstFile = replay.lastFile == nil
        }
        return repairs
    }

    /// What open does to the last file before writing resumes in it.
    struct LastFile: Equatable {
        /// Cut the file here (the torn tail's offset); this also drops space reserved after it.
        var truncate: Int64?
        /// Write the header again, as it was read: the file holds no record, and a failed sync
        /// before a reopen may have dropped its dirty pages.
        var rewriteHeader: Bool
    }

    /// Decides what open does to the last file of `replay`, whose header is `header`.
    static func lastFile(after replay: LogReplay.Outcome, header: FileHeader) -> LastFile {
        LastFile(truncate: replay.tornTailOffset, rewriteHeader: replay.lastFileValidEnd == Int64(header.size))
    }
}

extension RecordFrame.Damage {
    /// The words recovery's messages use for it.
    var reason: String {
        switch self {
        case .truncated: "record runs past the end of the file"
        case .invalid(let why): why
        case .checksumMismatch: "checksum mismatch"
        }
    }
}
