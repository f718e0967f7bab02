import Foundation
import SpoolTestSupport
import Testing

@testable import Spool
@testable import SpoolCommands

/// No byte of a file may trap the process. A queue holding every opcode is built with the codec;
/// then every numeric field of every record (found by FORMAT.md's grammar, ``FieldGrammar``), the
/// body's version and count, and every field of every frame header is set in turn to the extremes of
/// its encoding, the frame's checksum made right again (as a buggy writer or a hostile process would
/// leave it). Each case is opened and inspected the way every `spool` command does: read-only
/// replay with each record's operations described (`verify`, `dump`), the jobs, counts, history
/// and payloads (`list`, `show`, `stats`), each printed as the command prints it, then an open in
/// each recovery mode that enqueues, claims, queries, compacts and closes (`enqueue`, `claim`,
/// `compact`). Every case must end in
/// success or a typed `SpoolError`; a trap kills the test process, failing the run.
@Suite(.blocking) struct DiskFieldRangeTests {
    static let directory = "/fields"
    static let t: Int64 = 1_800_000_000_000

    /// One record of the base queue: its body and commit-group position.
    struct Record {
        var body: [UInt8]
        var groupIndex: UInt16 = 0
    }

    /// A body of `version` holding operations encoded by `encode`.
    static func body(version: UInt8, count: Int, _ encode: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeUInt8(version)
        writer.writeVarint(UInt64(count))
        encode(&writer)
        return writer.bytes
    }

    static func planned(_ operations: [PlannedOperation]) -> Record {
        Record(body: TransactionCodec.encode(operations))
    }

    static func job(
        _ id: String, _ state: JobState, sequence: UInt64, attempts: Int32 = 0, lease: StoredLease? = nil,
        finishedAt: Int64? = nil, uniqueKey: String? = nil, lastError: String? = nil,
        constraints: JobConstraints? = nil, waitingFor: [String] = [],
        periodic: StoredPeriodic? = nil
    ) -> StoredJob {
        StoredJob(
            id: id, kind: "k", state: state, attempts: attempts, maxAttempts: 5, priority: 3, sequence: sequence,
            createdAt: t - 10_000, runAt: t - 5_000, nextRetryAt: state == .enqueued ? t - 1_000 : nil,
            finishedAt: finishedAt, uniqueKey: uniqueKey, lastError: lastError,
            payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0), lease: lease,
            constraints: constraints, waitingFor: waitingFor, periodic: periodic)
    }

    /// The snapshot file's records: every snapshot opcode (12, 24, 11, 16).
    static func snapshotRecords() -> [Record] {
        let lease = StoredLease(
            token: 7, claimedAt: t - 2_000, expiresAt: t + 600_000, monotonicExpiry: 900_000_000_000,
            bootID: "boot-0")
        var summary = ByteWriter()
        SnapshotCodec.encode(
            SnapshotSummary(lastLSN: 100, nextSequence: 10, createdAt: t - 100_000, expiredJobs: 2),
            into: &summary)
        var applied = ByteWriter()
        MigrationCodec.encode(.migrationsApplied(number: 1), into: &applied)
        let jobs = [
            job("a", .enqueued, sequence: 1, attempts: 1, uniqueKey: "ka", lastError: "e"),
            job("b", .running, sequence: 2, attempts: 1, lease: lease),
            job("c", .succeeded, sequence: 3, attempts: 1, finishedAt: t - 500),
            job(
                "p", .enqueued, sequence: 4,
                constraints: JobConstraints(requiresNetwork: true, requiredConditions: ["wifi"]),
                periodic: StoredPeriodic(interval: 900_000, flex: 300_000, anchor: t - 5_000, occurrence: 2)),
            job("w", .enqueued, sequence: 5, waitingFor: ["a"]),
        ]
        return [
            Record(body: body(version: 2, count: 1) { $0.writeRaw(summary.bytes) }),
            Record(body: body(version: 4, count: 1) { $0.writeRaw(applied.bytes) }),
            Record(
                body: body(version: 3, count: jobs.count) { writer in
                    for job in jobs {
                        SnapshotCodec.encodeRestore(job, payload: Array("payload-\(job.id)".utf8), into: &writer)
                    }
                }),
        ]
    }

    /// The records after the snapshot: every other opcode, each applying to the state before it.
    static func logRecords() -> [Record] {
        func enqueue(_ id: String, key: String? = nil, options: EnqueueOptions = EnqueueOptions()) -> PlannedOperation {
            .enqueue(
                NewEnqueue(
                    id: id, kind: "k", payload: Data("payload-\(id)".utf8), priority: 1, createdAt: t,
                    runAt: t, maxAttempts: 3, uniqueKey: key, options: options))
        }
        func claim(_ id: String, _ token: UInt64) -> PlannedOperation {
            PlannedOperation(
                .claim(
                    .init(
                        id: id, token: token, claimedAt: t, expiresAt: t + 600_000, monotonicExpiry: 700_000_000_000,
                        bootID: "boot-0")))
        }
        var migrated = MigratedJob(job("a", .enqueued, sequence: 1, attempts: 1, uniqueKey: "ka", lastError: "e"))
        migrated.kind = "k2"
        let created = MigratedJob(
            id: "m", kind: "k", state: .enqueued, attempts: 0, maxAttempts: 2, priority: 0,
            createdAt: t, runAt: t, nextRetryAt: nil, finishedAt: nil, uniqueKey: nil,
            lastError: nil, lease: nil, payload: nil)
        var records = [
            planned([enqueue("e1", key: "ke")]),
            planned([
                enqueue(
                    "e2",
                    options: EnqueueOptions(
                        constraints: JobConstraints(requiresCharging: true),
                        dependencies: ["e1"]))
            ]),
            planned([claim("e1", 11)]),
            planned([
                PlannedOperation(
                    .renewLease(id: "e1", token: 11, expiresAt: t + 900_000, monotonicExpiry: 800_000_000_000))
            ]
            ),
            planned([PlannedOperation(.complete(id: "e1", token: 11, at: t + 1))]),
            planned([claim("e2", 12)]),
            planned([PlannedOperation(.fail(id: "e2", token: 12, at: t + 2, error: "no", nextRetryAt: t + 5_000))]),
            planned([PlannedOperation(.reschedule(id: "e2", runAt: t + 100, at: t + 3))]),
            planned([claim("e2", 13)]),
            planned([PlannedOperation(.reclaim(id: "e2", at: t + 4, reason: "lost", nextRetryAt: nil))]),
            planned([PlannedOperation(.retry(id: "e2", at: t + 5))]),
            planned([PlannedOperation(.cancel(id: "e2", at: t + 6))]),
            planned([PlannedOperation(.delete(id: "e2"))]),
            planned([PlannedOperation(.expire(id: "c"))]),
            planned([
                claim("p", 14), PlannedOperation(.complete(id: "p", token: 14, at: t + 7)),
                PlannedOperation(.nextOccurrence(id: "p", at: t + 7, runAt: t + 900_000)),
            ]),
            planned([
                PlannedOperation(.migrationBegin(number: 2, at: t + 8)), .migrating(migrated, newPayload: nil),
                .migrating(created, newPayload: Data("new".utf8)), PlannedOperation(.migrationRemove(id: "w")),
                PlannedOperation(.migrationCommit(number: 2)),
            ]),
            planned([PlannedOperation(.abandon(id: "b", at: t + 9, reason: "unknown kind"))]),
            planned([enqueue("q", options: EnqueueOptions(periodic: (interval: 900_000, flex: 300_000)))]),
            planned([claim("q", 15)]),
            planned([PlannedOperation(.release(id: "q", token: 15, at: t + 10, reason: .systemTimeExpired))]),
            planned([claim("q", 16)]),
            planned([PlannedOperation(.snooze(id: "q", token: 16, at: t + 11, runAt: t + 20_000, givesBack: true))]),
            planned([PlannedOperation(.stopReason(id: "q", reason: .timedOut))]),
        ]
        // One commit group of three records, so that group indexes above 0 are swept too.
        records[2].groupIndex = 0
        records[3].groupIndex = 1
        records[4].groupIndex = 2
        return records
    }

    /// The bytes of a log file holding `records`, numbered from `firstLSN`.
    static func file(sequence: UInt64, records: [Record], firstLSN: UInt64, instanceID: [UInt8]) -> [UInt8] {
        var bytes = FileHeader(instanceID: instanceID, sequence: sequence, firstLSN: firstLSN).encoded()
        let seed = RecordFrame.checksumSeed(instanceID: instanceID)
        for (index, record) in records.enumerated() {
            record.body.withUnsafeBytes {
                _ = RecordFrame.append(
                    body: $0, type: .transaction, lsn: firstLSN + UInt64(index),
                    groupIndex: record.groupIndex, seed: seed, to: &bytes)
            }
        }
        return bytes
    }

    static let instanceID = Array(UInt8(0x40)..<0x50)

    /// The queue's two files: the snapshot (1) and the log after it (2).
    static func files(snapshot: [Record], log: [Record]) -> [(UInt64, [UInt8])] {
        [
            (1, file(sequence: 1, records: snapshot, firstLSN: 1, instanceID: instanceID)),
            (2, file(sequence: 2, records: log, firstLSN: 101, instanceID: instanceID)),
        ]
    }

    /// A frame whose header fields are patched, its checksum computed again over what it now covers.
    static func patchedFrame(body: [UInt8], lsn: UInt64, groupIndex: UInt16, patch: (inout [UInt8]) -> Void) -> [UInt8]
    {
        var frame: [UInt8] = []
        body.withUnsafeBytes {
            _ = RecordFrame.append(body: $0, type: .transaction, lsn: lsn, groupIndex: groupIndex, seed: 0, to: &frame)
        }
        patch(&frame)
        let length = Int(UInt32(frame[4]) | UInt32(frame[5]) << 8 | UInt32(frame[6]) << 16 | UInt32(frame[7]) << 24)
        let end = min(frame.count, LogFormat.frameHeaderSize + length)
        let crc = frame.withUnsafeBytes {
            CRC32C.update(
                RecordFrame.checksumSeed(instanceID: instanceID), UnsafeRawBufferPointer(rebasing: $0[4..<end]))
        }
        for byte in 0..<4 { frame[byte] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * byte)) }
        return frame
    }

    /// One mutated queue.
    struct Case {
        var name: String
        var files: [(UInt64, [UInt8])]
    }

    /// Every case: each field of each record set to each extreme, and each frame header field too.
    static func cases() throws -> [Case] {
        let snapshot = snapshotRecords()
        let log = logRecords()
        var cases: [Case] = [Case(name: "unchanged", files: files(snapshot: snapshot, log: log))]
        for (fileIndex, records) in [snapshot, log].enumerated() {
            for (index, record) in records.enumerated() {
                let place = "file \(fileIndex + 1) record \(index)"
                func withRecord(_ replaced: Record) -> [(UInt64, [UInt8])] {
                    var copy = records
                    copy[index] = replaced
                    return fileIndex == 0 ? files(snapshot: copy, log: log) : files(snapshot: snapshot, log: copy)
                }
                for spot in try FieldGrammar.walk(record.body) {
                    for (value, bytes) in FieldGrammar.replacements(for: spot.encoding) {
                        var body = record.body
                        body.replaceSubrange(spot.range, with: bytes)
                        cases.append(
                            Case(
                                name: "\(place) \(spot.name) = \(value)",
                                files: withRecord(Record(body: body, groupIndex: record.groupIndex))))
                    }
                }
                // The frame header's fields, with a checksum over what the frame now covers.
                let lsn = (fileIndex == 0 ? 1 : 101) + UInt64(index)
                let headerFields: [(String, Range<Int>, [UInt64])] = [
                    (
                        "length", 4..<8,
                        [
                            0, 1, UInt64(record.body.count) - 1, UInt64(record.body.count) + 1,
                            UInt64(LogFormat.maximumBodySize), UInt64(LogFormat.maximumBodySize) + 1,
                            (1 << 31) - 1, 1 << 31, UInt64(UInt32.max) - 1, UInt64(UInt32.max),
                        ]
                    ),
                    ("lsn", 8..<16, FieldGrammar.unsignedExtremes + [lsn - 1, lsn + 1]),
                    ("type", 16..<17, FieldGrammar.byteExtremes.map(UInt64.init)),
                    ("reserved", 17..<18, FieldGrammar.byteExtremes.map(UInt64.init)),
                    ("group_index", 18..<20, [0, 1, 2, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF, lsn - 1, lsn, lsn + 1]),
                ]
                for (name, range, values) in headerFields {
                    for value in values {
                        let frame = patchedFrame(body: record.body, lsn: lsn, groupIndex: record.groupIndex) { frame in
                            for (offset, position) in range.enumerated() {
                                frame[position] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(offset)))
                            }
                        }
                        var fileBytes =
                            fileIndex == 0
                            ? files(snapshot: snapshot, log: log)[0].1
                            : files(snapshot: snapshot, log: log)[1].1
                        let start = frameOffset(records: records, index: index)
                        fileBytes.replaceSubrange(
                            start..<(start + LogFormat.frameHeaderSize + record.body.count), with: frame)
                        var all = files(snapshot: snapshot, log: log)
                        all[fileIndex].1 = fileBytes
                        cases.append(Case(name: "\(place) frame \(name) = \(value)", files: all))
                    }
                }
            }
        }
        return cases
    }

    static func frameOffset(records: [Record], index: Int) -> Int {
        LogFormat.fileHeaderSize + records[..<index].reduce(0) { $0 + LogFormat.frameHeaderSize + $1.body.count }
    }

    /// The disk holding a case's files.
    static func disk(_ files: [(UInt64, [UInt8])]) throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try disk.createDirectory(at: directory)
        for (sequence, bytes) in files {
            disk.setContents(of: directory + "/" + QueueDirectoryLayout.logFileName(sequence: sequence), bytes)
        }
        return disk
    }

    /// What a replay may refuse a queue with, and the corruption must say where.
    static func checkReplayError(_ error: any Error, _ name: String, _ what: String) {
        guard let error = error as? SpoolError else {
            Issue.record("\(name): \(what) threw \(error), not a SpoolError")
            return
        }
        #expect([.corruption, .newerFormat, .notAQueue].contains(error.code), "\(name): \(what): \(error)")
        if error.code == .corruption {
            #expect(
                error.path != nil && error.offset != nil,
                "\(name): \(what): corruption without file and offset: \(error)")
        }
    }

    /// Read-only inspection, as `verify`, `dump`, `list`, `show` and `stats` do.
    static func inspect(_ files: [(UInt64, [UInt8])], _ name: String) throws -> String {
        let disk = try disk(files)
        let directory = QueueDirectory(path: Self.directory, fileSystem: disk)
        do {
            var described = 0
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            return try directory.inspect(
                mode: .strict,
                visit: { path, offset, lsn, operations in
                    // As `spool dump` prints it.
                    let record = LogRecordSummary(
                        path: path, offset: Int64(offset), lsn: lsn,
                        operations: operations.map(LogOperationSummary.init))
                    _ = DumpCommand.json(record).rendered
                    described += record.operations.count
                },
                then: { result in
                    let summary = VerificationSummary(result)
                    let queue = InspectedQueue(directory: Self.directory, fileSystem: disk, result: result)
                    // As `spool list`, `show` and `stats` print them.
                    for job in queue.jobs() {
                        let payload = (try? queue.payload(of: job.id)) ?? Data()
                        _ = JobPresentation.json(job, payload: payload).rendered
                        _ = JobPresentation.details(job, payload: payload, now: now)
                        _ = (JobPresentation.schedule(job, now: now), JobPresentation.summary(job, now: now))
                    }
                    _ = ListCommand.table(queue.jobs(), now: now, state: nil)
                    _ = (
                        queue.counts.total, queue.history.expiredJobs,
                        queue.history.createdAt.map(ISO8601.string(from:))
                    )
                    _ = FormatVersionsText.found(summary)
                    return "inspected \(summary.records) records, \(described) operations"
                })
        } catch {
            checkReplayError(error, name, "inspection")
            return "refused"
        }
    }

    /// An open in `mode` that enqueues, claims, queries, compacts and closes, as the writing commands do.
    static func open(_ files: [(UInt64, [UInt8])], mode: RecoveryMode, _ name: String) throws -> String {
        let disk = try disk(files)
        var configuration = Configuration()
        configuration.fileSystem = disk
        configuration.clock = ManualClock()
        configuration.recoveryMode = mode
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        let queue: JobQueue
        do {
            queue = try JobQueue(directory: directory, configuration: configuration)
        } catch {
            checkReplayError(error, name, "open (\(mode))")
            return "refused"
        }
        // No invariant check: a hostile file may hold a state no writer makes (attempts above their
        // maximum, say) that replay has no reason to refuse. What matters is that nothing traps.
        do {
            _ = try queue.enqueue(NewJob(kind: "k", payload: Data("new".utf8)))
            while let lease = try queue.claim(leaseDuration: 60) { _ = try? queue.complete(lease) }
            _ = try queue.jobs()
            _ = try queue.nextDeadline()
            _ = try queue.nextDeadlines()
            _ = try queue.compact()
            _ = try queue.enqueue(NewJob(kind: "k"))
            try queue.close()  // not closeChecked: no invariant check (above)
        } catch let error as SpoolError {
            try? queue.close()
            return "opened, then \(error.code)"
        }
        return "opened"
    }

    @Test func everyFieldAtEveryExtremeEndsInSuccessOrATypedError() throws {
        let cases = try Self.cases()
        var outcomes: [String: Int] = [:]
        let trace = ProcessInfo.processInfo.environment["SPOOL_FIELD_TRACE"] != nil
        for testCase in cases {
            // With SPOOL_FIELD_TRACE set, each case is named before it runs: a trap's case is the last line.
            if trace { FileHandle.standardError.write(Data("case: \(testCase.name)\n".utf8)) }
            let inspected = try Self.inspect(testCase.files, testCase.name).hasPrefix("inspected")
            outcomes[inspected ? "inspected" : "inspection refused", default: 0] += 1
            // A strict open replays as the inspection did: what it refused, the open refuses before it
            // writes anything. Salvage replays differently, so it always runs.
            for mode in RecoveryMode.allCases where inspected || mode == .salvage {
                outcomes["\(mode) " + (try Self.open(testCase.files, mode: mode, testCase.name)), default: 0] += 1
            }
        }
        print(
            "field sweep: \(cases.count) cases: \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        #expect(cases.count > 2_000)
    }

    @Test func theBaseQueueOpensWhole() throws {
        let files = Self.files(snapshot: Self.snapshotRecords(), log: Self.logRecords())
        #expect(try Self.inspect(files, "base") == "inspected 26 records, 36 operations")
        #expect(try Self.open(files, mode: .strict, "base") == "opened")
    }
}
