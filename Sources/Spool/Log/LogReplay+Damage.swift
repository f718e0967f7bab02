/// What replay does about damage once ``RecoveryPlan`` decided (FORMAT.md, *Reading a log*): refuse, or skip
/// and report; and the continuity check of a file's first LSN.
extension LogReplay {
    /// A version 2 file's header names the LSN of its first record, `firstLSN`, and the log before it
    /// ends at `expected - 1`. Strict replay refuses a difference as corruption; salvage reports it
    /// and goes on. Above: records are missing at the end of the file before (cut at a record
    /// boundary, say), named with its end; the log goes on at `firstLSN`. Below: the header
    /// disagrees with the records before it; the records up to `expected - 1` are passed over as stale.
    func checkContinuity(
        _ logFile: LogFile, firstLSN: UInt64, expected: UInt64,
        into result: inout Outcome
    ) throws {
        let skipped: RecoveryReport.Skipped
        if firstLSN > expected {
            let reason =
                "records \(expected) to \(firstLSN - 1) are missing: file \(logFile.sequence) starts at LSN \(firstLSN)"
                + (result.previousFile.map { ", file \($0.file.sequence) ends at LSN \(expected - 1)" } ?? "")
            // The records lie at the end of the file before (or before the log's first file).
            let place =
                result.previousFile.map { ($0.file.path, $0.validEnd) } ?? (
                    logFile.path, Int64(FileHeader.firstLSNOffset)
                )
            skipped = .init(path: place.0, offset: place.1, length: 0, reason: reason)
        } else {
            skipped = .init(
                path: logFile.path, offset: Int64(FileHeader.firstLSNOffset), length: 0,
                reason:
                    "the header says the file's first record is LSN \(firstLSN), but the log before it ends at LSN \(expected - 1)"
            )
        }
        let damage = LogDamage(offset: Int(skipped.offset), kind: .headerLSNMismatch(skipped))
        try carryOut(RecoveryPlan.decide(damage, mode: mode), file: logFile, into: &result)
        if firstLSN > expected { result.lastLSN = firstLSN - 1 }
    }

    /// Carries out what ``RecoveryPlan/decide(_:mode:)`` decided about damage in an intact record
    /// or a header: a refusal is thrown as corruption, a skip is reported.
    func carryOut(_ plan: RecoveryPlan, file: LogFile, into result: inout Outcome) throws(SpoolError) {
        switch plan {
        case .refuse(let offset, let reason):
            throw SpoolError(.corruption, reason, path: file.path, offset: Int64(offset))
        case .refuseAt(let skip):
            throw SpoolError(.corruption, skip.reason, path: skip.path, offset: skip.offset)
        case .skip(let offset, let length, let reason, _):
            Self.skip(
                .init(path: file.path, offset: Int64(offset), length: Int64(length), reason: reason), into: &result)
        case .skipAt(let skip):
            Self.skip(skip, into: &result)
        case .cutTornTail:
            // Only damage in a file's record stream may be a torn tail (``LogScanner``).
            break
        }
    }

    /// Salvage's one rule for anything it skips: the range goes into the report, and a migration
    /// begun before it is discarded (a migration missing a record or an operation cannot apply whole).
    static func skip(_ skipped: RecoveryReport.Skipped, into result: inout Outcome) {
        result.state.abandonPendingMigration()
        result.report.skipped.append(skipped)
    }
}
