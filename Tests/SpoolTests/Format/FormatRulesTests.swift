import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// FORMAT.md's rules that a reader would otherwise have to find by experiment, each checked
/// against the engine: number ranges, frame plausibility and the resync window, stale frames in
/// strict mode, body versions higher than needed, trailing bytes, options records with no option.
@Suite(.blocking) struct FormatRulesTests {
    static let t: Int64 = 1_800_000_000_000

    /// `body` with the field named `name` (its name as ``FieldGrammar/walk(_:)`` gives it, without the
    /// operation prefix) replaced by `bytes`.
    static func patched(_ body: [UInt8], _ name: String, _ bytes: [UInt8]) throws -> [UInt8] {
        let spot = try #require(
            try FieldGrammar.walk(body).first { $0.name.hasSuffix("]." + name) },
            "no field \(name)")
        var copy = body
        copy.replaceSubrange(spot.range, with: bytes)
        return copy
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeVarint(value)
        return writer.bytes
    }

    static func svarint(_ value: Int64) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeSignedVarint(value)
        return writer.bytes
    }

    /// The decoding of `body`: its operations, or why it is malformed.
    static func decode(_ body: [UInt8]) -> Result<[Spool.LogOperation], TransactionCodec.Failure> {
        body.withUnsafeBytes { raw in
            Result { () throws(TransactionCodec.Failure) in
                try TransactionCodec.decode(raw, fileSequence: 1, bodyOffset: 0)
            }
        }
    }

    static func expectMalformed(
        _ body: [UInt8], mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch decode(body) {
        case .success(let operations):
            Issue.record("decoded, expected malformed (\(text)): \(operations)", sourceLocation: sourceLocation)
        case .failure(.malformed(let reason)):
            #expect(reason.contains(text), "\(reason)", sourceLocation: sourceLocation)
        case .failure(let other):
            Issue.record("\(other), expected malformed (\(text))", sourceLocation: sourceLocation)
        }
    }

    static func expectDecodes(_ body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        if case .failure(let failure) = decode(body) {
            Issue.record("\(failure), expected the body to decode", sourceLocation: sourceLocation)
        }
    }

    static func restoreBody(_ job: StoredJob) -> [UInt8] {
        DiskFieldRangeTests.body(version: job.hasOptions ? 3 : 2, count: 1) {
            SnapshotCodec.encodeRestore(job, payload: [1, 2, 3], into: &$0)
        }
    }

    static let plainRestore = DiskFieldRangeTests.job("r", .enqueued, sequence: 4, attempts: 1)
    static let periodicRestore = DiskFieldRangeTests.job(
        "p", .enqueued, sequence: 4, periodic: StoredPeriodic(interval: 900_000, flex: 0, anchor: t, occurrence: 1))

    static func enqueueBody(periodic: (interval: Int64, flex: Int64)? = nil) -> [UInt8] {
        TransactionCodec.encode([
            .enqueue(
                NewEnqueue(
                    id: "j", kind: "k", payload: Data(), priority: 0, createdAt: t,
                    runAt: t, maxAttempts: 1, uniqueKey: nil,
                    options: EnqueueOptions(periodic: periodic)))
        ])
    }

    static func snapshotBody() -> [UInt8] {
        var summary = ByteWriter()
        SnapshotCodec.encode(SnapshotSummary(lastLSN: 5, nextSequence: 2, createdAt: t, expiredJobs: 0), into: &summary)
        return DiskFieldRangeTests.body(version: 2, count: 1) { $0.writeRaw(summary.bytes) }
    }

    @Test func eachRangedFieldIsCheckedAsItIsDecoded() throws {
        let restore = Self.restoreBody(Self.plainRestore)
        let periodic = Self.restoreBody(Self.periodicRestore)
        let enqueue = Self.enqueueBody()
        let periodicEnqueue = Self.enqueueBody(periodic: (900_000, 0))
        let snapshot = Self.snapshotBody()
        // (body, field, last value in range, first value past it)
        let signed: [([UInt8], String, Int64, Int64)] = [
            (restore, "priority", Int64(Int32.max), Int64(Int32.max) + 1),
            (restore, "priority", Int64(Int32.min), Int64(Int32.min) - 1),
            (enqueue, "priority", Int64(Int32.min), Int64(Int32.min) - 1),
            (restore, "attempts", Int64(Int32.max), Int64(Int32.max) + 1),
            (restore, "attempts", 0, -1),
            (restore, "max_attempts", Int64(Int32.max), Int64(Int32.max) + 1),
            (restore, "max_attempts", 1, 0),
            (enqueue, "max_attempts", 1, 0),
            (enqueue, "max_attempts", Int64(Int32.max), Int64(Int32.max) + 1),
        ]
        for (body, field, inRange, outOfRange) in signed {
            Self.expectDecodes(try Self.patched(body, field, Self.svarint(inRange)))
            Self.expectMalformed(
                try Self.patched(body, field, Self.svarint(outOfRange)),
                mentioning: "\(field) \(outOfRange) is out of range")
        }
        let unsigned: [([UInt8], String, UInt64, UInt64)] = [
            (restore, "sequence", 1 << 62, (1 << 62) + 1),
            (snapshot, "next_sequence", 1 << 62, (1 << 62) + 1),
            (snapshot, "expired_jobs", 1 << 62, (1 << 62) + 1),
            (snapshot, "last_lsn", UInt64.max - 1, UInt64.max),
            (periodic, "periodic.occurrence", 1 << 62, (1 << 62) + 1),
            (periodic, "periodic.interval_ms", UInt64(Int64.max), UInt64(Int64.max) + 1),
            (periodicEnqueue, "periodic.interval_ms", UInt64(Int64.max), UInt64(Int64.max) + 1),
        ]
        for (body, field, inRange, outOfRange) in unsigned {
            Self.expectDecodes(try Self.patched(body, field, Self.varint(inRange)))
            let name = field.split(separator: ".").last.map(String.init) ?? field
            Self.expectMalformed(
                try Self.patched(body, field, Self.varint(outOfRange)),
                mentioning: "\(name) \(outOfRange) is out of range")
        }
        // A schedule's interval is at least 1 and its flex at most the interval; an occurrence is at least 1.
        for body in [periodic, periodicEnqueue] {
            Self.expectMalformed(
                try Self.patched(body, "periodic.interval_ms", Self.varint(0)), mentioning: "interval 0 ms")
            Self.expectMalformed(
                try Self.patched(body, "periodic.flex_ms", Self.varint(900_001)), mentioning: "flex 900001 ms")
            Self.expectDecodes(try Self.patched(body, "periodic.flex_ms", Self.varint(900_000)))
        }
        Self.expectMalformed(
            try Self.patched(periodic, "periodic.occurrence", Self.varint(0)), mentioning: "occurrence 0")
    }

    @Test func aRestoreWithoutAttemptsIsRefusedForItsMaximumNotForALease() throws {
        let body = try Self.patched(Self.restoreBody(Self.plainRestore), "max_attempts", Self.svarint(0))
        Self.expectMalformed(body, mentioning: "max_attempts 0 is out of range (1 to 2^31-1)")
    }

    @Test func otherFieldsTakeAnyValueOfTheirEncoding() throws {
        let claim = TransactionCodec.encode([
            PlannedOperation(
                .claim(
                    .init(
                        id: "j", token: .max, claimedAt: .min, expiresAt: .max,
                        monotonicExpiry: .max, bootID: "b")))
        ])
        guard case .success(let operations) = Self.decode(claim), case .claim(let decoded) = operations.first else {
            Issue.record("a claim of extreme values does not decode")
            return
        }
        #expect(decoded.monotonicExpiry == .max && decoded.token == .max && decoded.claimedAt == .min)
    }

    @Test func aClaimRaisesAttemptsUpToTheirMaximumAndNoFurther() throws {
        var state = QueueState()
        var job = Self.plainRestore
        job.attempts = .max
        job.nextRetryAt = nil
        try state.apply(.restore(job))
        try state.apply(
            .claim(.init(id: "r", token: 1, claimedAt: Self.t, expiresAt: Self.t + 1, monotonicExpiry: 1, bootID: "b")))
        #expect(state.jobs["r"]?.attempts == .max && state.jobs["r"]?.state == .running)
    }

    @Test func aScheduleWhoseNextWindowLiesPastTheRangeGivesTheFarSentinel() {
        let far = Int64.max / 2
        #expect(StoredPeriodic(interval: 10, flex: 0, anchor: .min, occurrence: 1).nextRunAt(after: 0) == far)
        #expect(StoredPeriodic(interval: .max, flex: .max, anchor: 0, occurrence: 1).nextRunAt(after: 1) == far)
        #expect(StoredPeriodic(interval: 1, flex: 0, anchor: .min + 1, occurrence: 1).nextRunAt(after: .max - 1) == far)
        // In range, the rule is unchanged: the first window start after now.
        #expect(StoredPeriodic(interval: 100, flex: 10, anchor: 1_000, occurrence: 1).nextRunAt(after: 1_095) == 1_190)
    }

    @Test func aLengthIsJudgedByTheBytesLeftAfterIt() {
        // A delete whose id length (1) is the bytes left before the length, not after it.
        Self.expectMalformed([1, 1, 9, 1], mentioning: "length 1 exceeds the 0 bytes left")
        // A ten-byte length: the bytes before it would have allowed nine more.
        Self.expectMalformed(
            [1, 1, 9, 0x89, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
            mentioning: "length 9 exceeds the 0 bytes left")
    }

    @Test func aBodyVersionHigherThanNeededIsRead() throws {
        var body = Self.enqueueBody()
        #expect(body[0] == 1)
        body[0] = TransactionCodec.bodyVersion
        guard case .success(let operations) = Self.decode(body), case .enqueue(let op) = operations.first else {
            Issue.record("a version 1 operation in a body of the highest version does not decode")
            return
        }
        #expect(op.id == "j" && operations.count == 1)
    }

    @Test func bytesAfterTheLastOperationMakeTheBodyMalformed() {
        Self.expectMalformed(Self.enqueueBody() + [0], mentioning: "1 bytes after the last operation")
        // A count above half the bytes left cannot be: every operation takes two bytes at least.
        var body = Self.enqueueBody()
        body[1] = UInt8(body.count)
        Self.expectMalformed(body, mentioning: "count")
    }

    @Test func anOptionsRecordWithNoOptionIsMalformed() throws {
        // Opcode 14 with constraints absent, no prerequisite, no schedule, an empty payload.
        Self.expectMalformed(
            [3, 1, 14, 1, 0x6a, 1, 0x6b, 0, 0, 0, 2, 0, 0, 0, 0, 0], mentioning: "an enqueue with options has none")
        // Opcode 16: a plain restore made an options restore with none present.
        var body = Self.restoreBody(Self.plainRestore)
        let payload = try #require(try FieldGrammar.walk(body).first { $0.name.hasSuffix(".payload.length") })
        body.insert(contentsOf: [0, 0, 0], at: payload.range.lowerBound)
        body[0] = 3
        body[2] = 16
        Self.expectMalformed(body, mentioning: "a restore with options has none")
        // Present but empty constraints.
        Self.expectMalformed(
            [3, 1, 14, 1, 0x6a, 1, 0x6b, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0], mentioning: "present but empty constraints")
    }

    // MARK: Frames

    static let instanceID = Array(UInt8(0x30)..<0x40)
    static let seed = RecordFrame.checksumSeed(instanceID: instanceID)

    static func frame(lsn: UInt64, groupIndex: UInt16, body: [UInt8] = enqueueBody()) -> [UInt8] {
        var bytes: [UInt8] = []
        body.withUnsafeBytes {
            _ = RecordFrame.append(
                body: $0, type: .transaction, lsn: lsn, groupIndex: groupIndex, seed: seed, to: &bytes)
        }
        return bytes
    }

    static func parse(_ frame: [UInt8]) -> Result<RecordFrame.Found, RecordFrame.Damage> {
        frame.withUnsafeBytes { RecordFrame.parse($0, at: 0, seed: seed) }
    }

    @Test func aFrameIsDamagedByAnLSNOutOfRangeOrAGroupIndexNotBelowIt() {
        #expect(throws: Never.self) { try Self.parse(Self.frame(lsn: 3, groupIndex: 2)).get() }
        #expect(throws: Never.self) { try Self.parse(Self.frame(lsn: UInt64.max - 1, groupIndex: 0)).get() }
        for (lsn, groupIndex) in [(3, 3), (3, 4), (UInt64.max, 0), (0, 0)] as [(UInt64, UInt16)] {
            guard case .failure(.invalid) = Self.parse(Self.frame(lsn: lsn, groupIndex: groupIndex)) else {
                Issue.record("LSN \(lsn), group index \(groupIndex): not damaged")
                continue
            }
        }
    }

    /// A one-file queue of `frames` after the header.
    static func disk(_ frames: [[UInt8]]) throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try disk.createDirectory(at: "/rules")
        disk.setContents(
            of: "/rules/" + QueueDirectoryLayout.logFileName(sequence: 1),
            FileHeader(instanceID: instanceID, sequence: 1, firstLSN: 1).encoded() + frames.joined())
        return disk
    }

    static func open(_ disk: SimulatedDisk, mode: RecoveryMode = .strict) throws -> JobQueue {
        var configuration = Configuration()
        configuration.fileSystem = disk
        configuration.clock = ManualClock()
        configuration.recoveryMode = mode
        return try JobQueue(directory: "/rules", configuration: configuration)
    }

    static func enqueue(_ id: String) -> [UInt8] {
        TransactionCodec.encode([
            .enqueue(
                NewEnqueue(
                    id: id, kind: "k", payload: Data(), priority: 0, createdAt: t,
                    runAt: t, maxAttempts: 1, uniqueKey: nil))
        ])
    }

    @Test func intactFramesAboveTheResyncWindowAreIgnored() throws {
        let first = Self.frame(lsn: 1, groupIndex: 0, body: Self.enqueue("a"))
        var damaged = Self.frame(lsn: 2, groupIndex: 0, body: Self.enqueue("b"))
        damaged[damaged.count - 2] ^= 1
        let fileSize = LogFormat.fileHeaderSize + 3 * first.count
        let window = UInt64(fileSize / LogFormat.frameHeaderSize + LogFormat.maximumGroupRecords)
        // Just inside the window, an intact frame of a later group proves the damage synced: corruption.
        let inside = Self.frame(lsn: 2 + window, groupIndex: 0, body: Self.enqueue("c"))
        let refused = try Self.disk([first, damaged, inside])
        expectError(.corruption) { try Self.open(refused) }
        // Just above it, the frame is ignored: the damaged last group is a torn tail, cut with what follows.
        let above = Self.frame(lsn: 3 + window, groupIndex: 0, body: Self.enqueue("c"))
        let queue = try Self.open(try Self.disk([first, damaged, above]))
        #expect(queue.recoveryReport.tornTailOffset == Int64(LogFormat.fileHeaderSize + first.count))
        #expect(try queue.jobs().map(\.id.rawValue) == ["a"])
        try closeChecked(queue)
    }

    @Test func aStaleOrDuplicatedFrameIsCorruptionInStrictModeWhateverItsBodyVersion() throws {
        let first = Self.frame(lsn: 1, groupIndex: 0, body: Self.enqueue("a"))
        let second = Self.frame(lsn: 2, groupIndex: 0, body: Self.enqueue("b"))
        var newer = Self.enqueue("c")
        newer[0] = TransactionCodec.bodyVersion + 1
        let staleNewer = Self.frame(lsn: 1, groupIndex: 0, body: newer)
        let third = Self.frame(lsn: 3, groupIndex: 0, body: Self.enqueue("d"))
        for stale in [second, staleNewer] {
            let disk = try Self.disk([first, second, stale, third])
            do {
                try Self.open(disk).close()
                Issue.record("a stale frame was accepted in strict mode")
            } catch let error as SpoolError {
                #expect(
                    error.code == .corruption && error.offset == Int64(LogFormat.fileHeaderSize + 2 * first.count),
                    "\(error)")
            }
        }
        // Salvage passes over a stale frame it could read, and refuses one of a newer body version.
        let salvaged = try Self.open(try Self.disk([first, second, second, third]), mode: .salvage)
        #expect(try salvaged.jobs().map(\.id.rawValue) == ["a", "b", "d"])
        try closeChecked(salvaged)
        let disk = try Self.disk([first, second, staleNewer, third])
        expectError(.newerFormat) { try Self.open(disk, mode: .salvage) }
    }
}
