import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The boundaries between log files (FORMAT.md, *File numbers*, *Continuity across files*, and the file
/// after a snapshot): what a reader can tell is missing there, judged alike by read-only inspection and by open.
@Suite(.blocking) struct LogFileContinuityTests {
    /// Every name in `directory` with its bytes.
    static func contents(of directory: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try readFile(directory + "/" + name)
        }
        return files
    }

    static func configuration(_ mode: RecoveryMode = .strict) -> Configuration {
        var configuration = testConfiguration()
        configuration.preallocationChunk = 0
        configuration.autoCompaction = nil
        configuration.recoveryMode = mode
        configuration.createIfMissing = false
        return configuration
    }

    /// A new queue in `temporary` (created by this open), with ``configuration(_:)``'s settings.
    static func newQueue(in temporary: TemporaryDirectory) throws -> JobQueue {
        var settings = Self.configuration()
        settings.createIfMissing = true
        return try JobQueue(directory: temporary.queue, configuration: settings)
    }

    static func path(_ directory: String, _ sequence: UInt64) -> String {
        directory + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)
    }

    /// Verify, list (``LogInspector/withJobs(directory:_:)``) and open all refuse the directory with `code`,
    /// and none of them changes a byte of it.
    static func expectRefusedAlike(
        _ directory: String, _ code: SpoolError.Code = .corruption,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ check: (SpoolError) -> Bool = { _ in true }
    ) throws {
        let before = try contents(of: directory)
        let attempts: [(String, () throws -> Void)] = [
            ("verify", { _ = try LogInspector.verify(directory: directory) }),
            ("list", { _ = try LogInspector.withJobs(directory: directory) { $0.jobs() } }),
            ("open", { _ = try JobQueue(directory: directory, configuration: configuration()) }),
            ("verify again", { _ = try LogInspector.verify(directory: directory) }),
        ]
        for (name, attempt) in attempts {
            do {
                try attempt()
                Issue.record("\(name) accepted the directory", sourceLocation: sourceLocation)
            } catch let error as SpoolError {
                #expect(error.code == code && check(error), "\(name): \(error)", sourceLocation: sourceLocation)
            }
            #expect(
                try contents(of: directory) == before, "\(name) changed the directory", sourceLocation: sourceLocation)
        }
    }

    /// A hostile or damaged directory may name its files near the top of the 64-bit range (the writer
    /// counts up from 1 and never gets there). Such a directory is refused by every reader; before, open
    /// accepted it and the next roll-over trapped computing the next file's number.
    @Test func fileNumbersPastTheirRangeAreRefused() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let directory = temporary.queue
        let queue = try Self.newQueue(in: temporary)
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        _ = try queue.compact()
        try closeChecked(queue)
        // A compacted queue (a snapshot, then a log file) renamed to the two highest numbers, each
        // header rewritten to match its name.
        let sequences = try FileManager.default.contentsOfDirectory(atPath: directory)
            .compactMap(QueueDirectoryLayout.logSequence(fromFileName:)).sorted()
        try #require(sequences.count == 2)
        for (old, new) in zip(sequences, [UInt64.max - 1, UInt64.max]) {
            var bytes = try readFile(Self.path(directory, old))
            var header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
            header.sequence = new
            bytes.replaceSubrange(0..<header.size, with: header.encoded())
            try writeFile(Self.path(directory, new), bytes)
            try FileManager.default.removeItem(atPath: Self.path(directory, old))
        }
        try Self.expectRefusedAlike(directory) { "\($0)".contains("out of range") }
    }

    // MARK: A. The file after a snapshot

    /// After a compaction the file after the snapshot always has its header (it was synced before the
    /// snapshot had its name): empty, or cut inside its header, it is refused by every reader, and open
    /// removes nothing (it used to remove it while refusing, after which the queue did not open at all).
    @Test(arguments: [0, 20, 47])
    func aTornFileAfterASnapshotIsRefusedAlikeAndLeftInPlace(_ keptBytes: Int) throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let queue = try Self.newQueue(in: temporary)
        for index in 0..<9 { _ = try queue.enqueue(NewJob(kind: "k", payload: Data("job \(index)".utf8))) }
        let report = try queue.compact()
        try closeChecked(queue)
        #expect(report.snapshotFile == 2)
        let after = Self.path(temporary.queue, 3)
        #expect(try readFile(after).count == LogFormat.fileHeaderSize)
        try writeFile(after, Array(try readFile(after).prefix(keptBytes)))
        try Self.expectRefusedAlike(temporary.queue) { $0.path == after && $0.offset == 0 }
    }

    /// The crash-order argument, checked at every I/O step of a compaction: no crash image holds a snapshot
    /// followed by a torn creation (every image verifies read-only, which refuses that), so open never meets one.
    @Test func noCrashDuringACompactionLeavesATornFileAfterItsSnapshot() throws {
        func configuration(_ disk: SimulatedDisk) -> Configuration {
            var configuration = Configuration()
            configuration.clock = ManualClock()
            configuration.fileSystem = disk
            configuration.logFileSize = 300
            configuration.preallocationChunk = 4096
            return configuration
        }
        func setUp(_ disk: SimulatedDisk) throws -> JobQueue {
            let queue = try JobQueue(directory: "/q", configuration: configuration(disk))
            for index in 0..<6 { _ = try queue.enqueue(NewJob(kind: "k", payload: Data("payload \(index)".utf8))) }
            return queue
        }
        let dry = SimulatedDisk()
        let queue = try setUp(dry)
        let start = dry.steps
        _ = try queue.compact()
        _ = try queue.enqueue(NewJob(kind: "k", payload: Data(repeating: 7, count: 400)))
        let steps = dry.steps - start
        try closeChecked(queue)
        var snapshots = 0
        for step in 1...steps {
            let disk = SimulatedDisk()
            let crashing = try setUp(disk)
            disk.crash(atStep: disk.steps + step)
            do {
                _ = try crashing.compact()
                _ = try crashing.enqueue(NewJob(kind: "k", payload: Data(repeating: 7, count: 400)))
            } catch {}
            for tear in [
                SimulatedDisk.Survival.nothing, .init(mask: .max, tear: .none), .init(mask: .max, tear: .prefix(7)),
            ] {
                let survival = Dictionary(uniqueKeysWithValues: disk.pendingChanges.map { ($0.path, tear) })
                let image = disk.crashImage(survival)
                let replay = try QueueDirectory(path: "/q", fileSystem: image).inspect(mode: .strict)
                if replay.snapshotSequence != nil { snapshots += 1 }
                _ = try JobQueue(directory: "/q", configuration: configuration(image)).close()
            }
        }
        #expect(snapshots > 0, "no crash image held the snapshot")
    }

    // MARK: B. Records missing at a file boundary

    /// Cuts file `sequence` of `directory` after its second-to-last record (at a record boundary).
    static func cutLastRecord(of sequence: UInt64, in directory: String) throws {
        let records = try LogInspector.records(directory: directory).filter { $0.path == path(directory, sequence) }
        let last = try #require(records.last)
        #expect(records.count >= 1)
        let file = path(directory, sequence)
        try writeFile(file, Array(try readFile(file).prefix(Int(last.offset))))
    }

    /// Files 1 … n of jobs, then a last file holding only its header (a roll-over just before close).
    static func rolledOverQueue(_ directory: String) throws -> UInt64 {
        var configuration = Self.configuration()
        configuration.createIfMissing = true
        configuration.logFileSize = 300
        let queue = try JobQueue(directory: directory, configuration: configuration)
        for index in 0..<8 {
            _ = try queue.enqueue(
                NewJob(kind: "k", payload: Data(repeating: UInt8(index), count: 60), id: JobID("j\(index)")))
        }
        try queue.engine.lockedRollOver()
        try closeChecked(queue)
        let files = try LogReplay.logFiles(in: directory, fileSystem: POSIXFileSystem())
        #expect(files.count >= 3)
        return files.last!.sequence
    }

    @Test func aFileCutAtARecordBoundaryBeforeAHeaderOnlyLastFileIsCorruptionNamingIt() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let last = try Self.rolledOverQueue(temporary.queue)
        let cut = last - 1
        try Self.cutLastRecord(of: cut, in: temporary.queue)
        try Self.expectRefusedAlike(temporary.queue) { error in
            error.path == Self.path(temporary.queue, cut) && error.message.contains("missing")
                && error.message.contains("file \(last) starts at LSN")
        }
    }

    /// Salvage lists the missing records as a skipped range at the end of the cut file and goes on at the
    /// LSN the next header names, so what it appends agrees with that header; the files stay as they were,
    /// so strict open refuses again, until a compaction writes a snapshot past the gap.
    @Test func salvageReportsTheMissingRecordsAndGoesOnAtTheHeadersLSN() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let last = try Self.rolledOverQueue(temporary.queue)
        let cut = last - 1
        let lastLSN = try LogInspector.verify(directory: temporary.queue).lastLSN
        try Self.cutLastRecord(of: cut, in: temporary.queue)
        var queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(.salvage))
        let skipped = try #require(queue.recoveryReport.skipped.first)
        #expect(queue.recoveryReport.skipped.count == 1)
        let cutSize = Int64(try readFile(Self.path(temporary.queue, cut)).count)
        #expect(skipped.path == Self.path(temporary.queue, cut) && skipped.length == 0 && skipped.offset == cutSize)
        #expect(skipped.reason.contains("records \(lastLSN) to \(lastLSN) are missing"), "\(skipped)")
        #expect(try queue.jobs().count == 7 && queue.job("j7") == nil)
        _ = try queue.enqueue(NewJob(kind: "k", id: "after"))
        try closeChecked(queue)
        expectError(.corruption) { try JobQueue(directory: temporary.queue, configuration: Self.configuration()) }
        queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration(.salvage))
        #expect(try queue.job("after") != nil)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: Self.configuration())
        #expect(try queue.jobs().count == 8 && queue.job("after") != nil)
        try closeChecked(queue)
        #expect(try LogInspector.verify(directory: temporary.queue).lastLSN == lastLSN + 1)
    }

    /// A compacted queue: the files after the snapshot are checked too.
    @Test func aCompactedQueueHasItsContinuityChecked() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let queue = try Self.newQueue(in: temporary)
        for index in 0..<3 { _ = try queue.enqueue(NewJob(kind: "k", id: JobID("a\(index)"))) }
        _ = try queue.compact()  // snapshot 2, then file 3
        for index in 0..<3 { _ = try queue.enqueue(NewJob(kind: "k", id: JobID("b\(index)"))) }
        try queue.engine.lockedRollOver()  // file 4, header only
        try closeChecked(queue)
        #expect(try LogInspector.verify(directory: temporary.queue).fileVersions == [2: 3])
        try Self.cutLastRecord(of: 3, in: temporary.queue)
        try Self.expectRefusedAlike(temporary.queue) { $0.path == Self.path(temporary.queue, 3) }
    }

    /// A queue of format version 1 (a checked-in fixture) rolls over into version 2 files; the boundary between
    /// its last version 1 file and the first version 2 file is checked by the new header.
    @Test func anOldQueueRollsOverIntoNewFilesAndTheirBoundaryIsChecked() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let copy = temporary.path + "/old"
        try FileManager.default.copyItem(atPath: FormatFixture.fixturesDirectory + "/format-1/queue", toPath: copy)
        let old = try LogReplay.logFiles(in: copy, fileSystem: POSIXFileSystem())
        let lastOld = try #require(old.last).sequence
        let expected = try JSONDecoder().decode(
            FixtureState.self,
            from: Data(
                contentsOf: URL(
                    fileURLWithPath:
                        FormatFixture.fixturesDirectory + "/format-1/expected.json")))
        let clock = ManualClock(start: FormatFixture.start)
        clock.advance(by: expected.clockAdvance)
        var configuration = FormatFixture.configuration(clock: clock)
        configuration.createIfMissing = false
        var queue = try JobQueue(directory: copy, configuration: configuration)
        _ = try queue.enqueue(NewJob(kind: "k", id: "new-1"))  // into the old version 1 file
        try queue.engine.lockedRollOver()  // a version 2 file, header only
        try closeChecked(queue)
        let summary = try LogInspector.verify(directory: copy)
        #expect(summary.fileVersions == [1: old.count, 2: 1])
        queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(try queue.job("new-1") != nil && queue.jobs().count == expected.jobs.count + 1)
        try closeChecked(queue)
        try Self.cutLastRecord(of: lastOld, in: copy)  // new-1's record, in the version 1 file
        try Self.expectRefusedAlike(copy) { $0.path == Self.path(copy, lastOld) }
    }

    /// A header naming an LSN below the one the log has reached is refused at its first-LSN field.
    @Test func aHeaderNamingAnEarlierFirstLSNIsCorruptionAtItsField() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let last = try Self.rolledOverQueue(temporary.queue)
        let file = Self.path(temporary.queue, last)
        var bytes = try readFile(file)
        let header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
        let firstLSN = try #require(header.firstLSN)
        bytes.replaceSubrange(
            0..<header.size,
            with: FileHeader(
                instanceID: header.instanceID, sequence: last,
                firstLSN: firstLSN - 1
            ).encoded())
        try writeFile(file, bytes)
        try Self.expectRefusedAlike(temporary.queue) { $0.path == file && $0.offset == 36 }
    }

    // MARK: D. File numbers

    /// One free number between files, as many times as compactions were cut short, is accepted; two are not;
    /// and without a snapshot the lowest file must be 1.
    @Test func fileNumbersMayHaveSingleGapsOnlyAndStartAtOne() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let queue = try Self.newQueue(in: temporary)
        _ = try queue.enqueue(NewJob(kind: "k", id: "a"))
        try queue.engine.lockedRollOver(skipping: 1)  // file 3, as a compaction cut short leaves it
        _ = try queue.enqueue(NewJob(kind: "k", id: "b"))
        try queue.engine.lockedRollOver(skipping: 1)  // file 5: a second one
        try closeChecked(queue)
        #expect(
            try LogReplay.logFiles(in: temporary.queue, fileSystem: POSIXFileSystem()).map(\.sequence) == [1, 3, 5])
        #expect(try LogInspector.verify(directory: temporary.queue).records == 2)
        let five = Self.path(temporary.queue, 5)
        let bytes = try readFile(five)
        // Renamed to 6 (its header saying so): two numbers free.
        let header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
        let six = Self.path(temporary.queue, 6)
        try writeFile(
            six,
            FileHeader(instanceID: header.instanceID, sequence: 6, firstLSN: try #require(header.firstLSN)).encoded())
        try FileManager.default.removeItem(atPath: five)
        try Self.expectRefusedAlike(temporary.queue) { $0.path == six && $0.message.contains("log file 4 is missing") }
        try FileManager.default.removeItem(atPath: six)
        // Without file 1 (and no snapshot), the lowest file is refused: file 3's header alone could not tell
        // in version 1, where a file holding no record names no LSN.
        try FileManager.default.removeItem(atPath: Self.path(temporary.queue, 1))
        try Self.expectRefusedAlike(temporary.queue) { $0.path == Self.path(temporary.queue, 3) }
    }

    // MARK: C. Read-only inspection creates nothing

    /// A copy of the log files without `LOCK` (pulled from a device, on a read-only volume): every read-only
    /// command reads it, and the directory is exactly as before, with no `LOCK` created.
    @Test func inspectingADirectoryWithoutLockCreatesNothing() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let queue = try Self.newQueue(in: temporary)
        _ = try queue.enqueue(NewJob(kind: "k", payload: Data("kept".utf8), id: "a"))
        try closeChecked(queue)
        try FileManager.default.removeItem(atPath: temporary.queue + "/" + QueueDirectoryLayout.lockFileName)
        // Root ignores the mode, so the mode alone proves nothing; the listing compare below does.
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: temporary.queue)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temporary.queue) }
        let before = try Self.contents(of: temporary.queue)
        #expect(try LogInspector.verify(directory: temporary.queue).records == 1)
        #expect(try LogInspector.records(directory: temporary.queue).count == 1)
        let payload = try LogInspector.withJobs(directory: temporary.queue) { try $0.payload(of: "a") }
        #expect(payload == Data("kept".utf8))
        #expect(try Self.contents(of: temporary.queue) == before)
        #expect(!FileManager.default.fileExists(atPath: temporary.queue + "/" + QueueDirectoryLayout.lockFileName))
    }

    /// With `LOCK` present, inspection still changes nothing, and takes no lock: a writer opens the queue
    /// while it reads (issue #16: a reader must never keep the owner from writing).
    @Test func inspectingADirectoryWithLockChangesNothingAndKeepsNoWriterOut() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let queue = try Self.newQueue(in: temporary)
        _ = try queue.enqueue(NewJob(kind: "k", id: "a"))
        try closeChecked(queue)
        let before = try Self.contents(of: temporary.queue)
        #expect(before[QueueDirectoryLayout.lockFileName] != nil)
        #expect(try LogInspector.withJobs(directory: temporary.queue) { $0.jobs().count } == 1)
        #expect(try Self.contents(of: temporary.queue) == before)
        try LogInspector.withJobs(directory: temporary.queue) { inspected in
            #expect(inspected.jobs().count == 1)
            let writer = try JobQueue(directory: temporary.queue, configuration: Self.configuration())
            try writer.enqueue(NewJob(kind: "k", id: "b"))
            try writer.close()
        }
        #expect(try LogInspector.withJobs(directory: temporary.queue) { $0.jobs().count } == 2)
    }

    /// Directory-level codes (FORMAT.md's table), for read-only inspection; nothing is created.
    @Test func directoriesThatAreNoQueueGetTheirCodes() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let directory = temporary.queue
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        expectError(.queueNotFound) { try LogInspector.verify(directory: directory) }
        try writeFile(directory + "/LOCK", [])
        expectError(.queueNotFound) { try LogInspector.verify(directory: directory) }
        expectError(.queueNotFound) { try JobQueue(directory: directory, configuration: Self.configuration()) }
        try writeFile(directory + "/" + QueueDirectoryLayout.snapshotTempName(sequence: 2), [1, 2, 3])
        expectError(.notAQueue) { try LogInspector.verify(directory: directory) }
        expectError(.notAQueue) { try JobQueue(directory: directory, configuration: Self.configuration()) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 2)
    }

    /// A header of version 0 (never written) is corruption, not a newer format.
    @Test func aHeaderOfVersionZeroIsCorruption() throws {
        let temporary = TemporaryDirectory("boundary")
        defer { temporary.cleanup() }
        let queue = try Self.newQueue(in: temporary)
        _ = try queue.enqueue(NewJob(kind: "k"))
        try closeChecked(queue)
        let file = logFilePath(temporary.queue)
        var bytes = try readFile(file)
        let header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
        bytes.replaceSubrange(
            0..<header.size,
            with: FileHeader(
                version: 0, instanceID: header.instanceID, sequence: 1,
                firstLSN: nil
            ).encoded())
        try writeFile(file, bytes)
        try Self.expectRefusedAlike(temporary.queue) {
            $0.path == file && $0.offset == 0 && $0.message.contains("version 0")
        }
    }
}
