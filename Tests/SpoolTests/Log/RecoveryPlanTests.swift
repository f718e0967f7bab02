import SpoolTestSupport
import Testing

@testable import Spool

/// The recovery plan without a disk: every kind of damage a reader reports, in both modes,
/// against the plan strict and salvage carry out.
@Suite(.blocking) struct RecoveryPlanTests {
    struct Row: Sendable, CustomStringConvertible {
        var damage: LogDamage
        var strict: RecoveryPlan
        var salvage: RecoveryPlan
        var description: String { "\(damage.kind) @\(damage.offset)" }
    }

    static let headerSkip = RecoveryReport.Skipped(
        path: "/q/wal-0000000000000001.log", offset: 4096, length: 0,
        reason: "records 5 to 6 are missing: file 2 starts at LSN 7")

    static let rows: [Row] = [
        // An intact record with a lower LSN: stale, passed over unread in salvage.
        Row(
            damage: .init(offset: 100, kind: .unexpectedLSN(found: 3, expected: 5)),
            strict: .refuse(offset: 100, reason: "record has LSN 3, expected 5"),
            salvage: .skip(offset: 100, length: 0, reason: "record has LSN 3, expected 5", then: .passOverRecord)),
        // A higher LSN: the records between are missing; salvage reports them and applies the record.
        Row(
            damage: .init(offset: 100, kind: .unexpectedLSN(found: 9, expected: 5)),
            strict: .refuse(offset: 100, reason: "record has LSN 9, expected 5"),
            salvage: .skip(offset: 100, length: 0, reason: "records 5 to 8 are missing", then: .applyRecord)),
        // Damage followed by a later group: synced damage.
        Row(
            damage: .init(
                offset: 200,
                kind: .damagedFrame(
                    .checksumMismatch(checkedBytes: 800), following: .laterGroup(at: 260), fileEnd: 1000)),
            strict: .refuse(offset: 200, reason: "checksum mismatch; intact records follow at offset 260"),
            salvage: .skip(offset: 200, length: 60, reason: "checksum mismatch", then: .resume(at: 260))),
        // The bytes after it cannot be checked cheaply.
        Row(
            damage: .init(offset: 200, kind: .damagedFrame(.truncated, following: .uncheckable, fileEnd: 1000)),
            strict: .refuse(
                offset: 200,
                reason: "record runs past the end of the file; the bytes after it cannot be checked cheaply"),
            salvage: .skip(offset: 200, length: 800, reason: "record runs past the end of the file", then: .stop)),
        // Nothing after it in the last file, one group at most: a torn tail, cut in both modes.
        Row(
            damage: .init(
                offset: 300,
                kind: .damagedFrame(
                    .checksumMismatch(checkedBytes: 800), following: .nothingInLastFile(groups: 1, lsns: "4 to 5"),
                    fileEnd: 1000)),
            strict: .cutTornTail(at: 300), salvage: .cutTornTail(at: 300)),
        Row(
            damage: .init(
                offset: 300,
                kind: .damagedFrame(
                    .invalid("bad type"), following: .nothingInLastFile(groups: 0, lsns: ""), fileEnd: 1000)),
            strict: .cutTornTail(at: 300), salvage: .cutTornTail(at: 300)),
        // Nothing after it, but the damaged frames span two groups: corruption.
        Row(
            damage: .init(
                offset: 300,
                kind: .damagedFrame(
                    .checksumMismatch(checkedBytes: 800), following: .nothingInLastFile(groups: 2, lsns: "4 to 7"),
                    fileEnd: 1000)),
            strict: .refuse(
                offset: 300,
                reason:
                    "checksum mismatch; the damaged frames from here on read as 2 or more commit groups (LSNs 4 to 7), and a torn tail is at most the last one"
            ),
            salvage: .skip(
                offset: 300, length: 700,
                reason:
                    "checksum mismatch; the damaged frames from here on read as 2 or more commit groups (LSNs 4 to 7), and a torn tail is at most the last one",
                then: .stop)),
        // Damage at the end of a file that is not the last: never a torn tail.
        Row(
            damage: .init(
                offset: 300,
                kind: .damagedFrame(
                    .invalid("reserved byte is not zero"), following: .nothingInEarlierFile, fileEnd: 1000)),
            strict: .refuse(offset: 300, reason: "reserved byte is not zero, in a file that is not the last"),
            salvage: .skip(
                offset: 300, length: 700, reason: "reserved byte is not zero, in a file that is not the last",
                then: .stop)),
        // A header whose first LSN disagrees with the log: reported where the skipped range lies.
        Row(
            damage: .init(offset: 4096, kind: .headerLSNMismatch(headerSkip)),
            strict: .refuseAt(headerSkip), salvage: .skipAt(headerSkip)),
        // An intact record that does not decode.
        Row(
            damage: .init(offset: 400, kind: .undecodableRecord(lsn: 12, end: 450, reason: "unknown opcode 99")),
            strict: .refuse(
                offset: 400, reason: "record 12 has an intact checksum but cannot be decoded: unknown opcode 99"),
            salvage: .skip(offset: 400, length: 50, reason: "unknown opcode 99", then: .passOverRecord)),
        // An operation the state refuses.
        Row(
            damage: .init(offset: 400, kind: .operationRefused(lsn: 12, reason: "no job j")),
            strict: .refuse(offset: 400, reason: "record 12 does not apply: no job j"),
            salvage: .skip(offset: 400, length: 0, reason: "operation skipped: no job j", then: .applyRecord)),
    ]

    @Test(arguments: rows)
    func strictAndSalvageDecideAsTheTableSays(_ row: Row) {
        #expect(RecoveryPlan.decide(row.damage, mode: .strict) == row.strict)
        #expect(RecoveryPlan.decide(row.damage, mode: .salvage) == row.salvage)
    }

    /// Strict never skips, salvage never refuses, and only a torn tail is cut, in either mode.
    @Test func strictNeverSkipsAndSalvageNeverRefuses() {
        for row in Self.rows {
            switch RecoveryPlan.decide(row.damage, mode: .strict) {
            case .skip, .skipAt: Issue.record("strict skipped \(row)")
            case .refuse, .refuseAt, .cutTornTail: break
            }
            switch RecoveryPlan.decide(row.damage, mode: .salvage) {
            case .refuse, .refuseAt: Issue.record("salvage refused \(row)")
            case .skip, .skipAt, .cutTornTail: break
            }
        }
    }

    /// Open's removals: obsolete files go unless salvage skipped part of their snapshot; a torn
    /// creation goes, and a first file is made when it was the only one.
    @Test func openRemovesWhatReplayLeftAndKeepsWhatASkippedSnapshotReplaces() {
        let directory = "/q"
        let file = { (sequence: UInt64) in
            LogReplay.LogFile(
                sequence: sequence, path: directory + "/" + QueueDirectoryLayout.logFileName(sequence: sequence))
        }
        var replay = LogReplay.Outcome()
        #expect(OpenRepairs.removals(after: replay, directory: directory) == OpenRepairs())

        replay.snapshotSequence = 3
        replay.obsoleteFiles = [file(1), file(2)]
        replay.lastFile = file(4)
        #expect(
            OpenRepairs.removals(after: replay, directory: directory).removeObsolete == [file(1).path, file(2).path])
        // A skip in another file keeps nothing.
        replay.report.skipped = [.init(path: file(4).path, offset: 40, length: 10, reason: "checksum mismatch")]
        #expect(
            OpenRepairs.removals(after: replay, directory: directory).removeObsolete == [file(1).path, file(2).path])
        // A skip in the snapshot keeps what it replaces.
        replay.report.skipped.append(.init(path: file(3).path, offset: 40, length: 0, reason: "operation skipped"))
        #expect(OpenRepairs.removals(after: replay, directory: directory).removeObsolete == [])

        replay.tornCreation = (file(5), 7)
        #expect(OpenRepairs.removals(after: replay, directory: directory).removeTornCreation == file(5).path)
        #expect(!OpenRepairs.removals(after: replay, directory: directory).createFirstFile)
        var fresh = LogReplay.Outcome()
        fresh.tornCreation = (file(1), 0)
        #expect(
            OpenRepairs.removals(after: fresh, directory: directory)
                == OpenRepairs(removeObsolete: [], removeTornCreation: file(1).path, createFirstFile: true))
    }

    /// The last file: cut at a torn tail, its header written again when it holds no record.
    @Test func theLastFileIsCutAtItsTornTailAndItsHeaderRewrittenWhenEmpty() {
        let header = FileHeader(instanceID: [UInt8](repeating: 7, count: 16), sequence: 1, firstLSN: 1)
        var replay = LogReplay.Outcome()
        replay.lastFileValidEnd = Int64(header.size)
        #expect(OpenRepairs.lastFile(after: replay, header: header) == .init(truncate: nil, rewriteHeader: true))
        replay.lastFileValidEnd = Int64(header.size) + 50
        replay.tornTailOffset = Int64(header.size) + 50
        #expect(
            OpenRepairs.lastFile(after: replay, header: header)
                == .init(truncate: Int64(header.size) + 50, rewriteHeader: false))
    }
}
