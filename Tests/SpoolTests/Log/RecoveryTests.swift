import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Open after damage: torn tails are cut silently, damage before intact
/// records is corruption, salvage mode skips it and says so.
@Suite(.blocking) struct RecoveryTests {
    /// Writes `count` enqueues, one record each, and returns the file's bytes
    /// and the offset where each record starts.
    private func makeLog(in directory: String, count: Int) throws -> (bytes: [UInt8], recordStarts: [Int]) {
        let queue = try JobQueue(directory: directory, configuration: testConfiguration())
        for index in 0..<count {
            try queue.enqueue(NewJob(kind: "k", payload: Data("payload \(index)".utf8), id: JobID("job-\(index)")))
        }
        try closeChecked(queue)
        // While the queue is open the file is preallocated; close cuts it back to the last record.
        let bytes = try readFile(logFilePath(directory))
        var starts: [Int] = []
        var offset = LogFormat.fileHeaderSize
        while offset < bytes.count {
            starts.append(offset)
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + 4 + $1]) << (8 * $1) }
            offset += LogFormat.frameHeaderSize + length
        }
        #expect(starts.count == count && offset == bytes.count)
        return (bytes, starts)
    }

    @Test func theLastRecordCutAtEveryByteStillOpensWithEveryEarlierRecord() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, starts) = try makeLog(in: temp.queue, count: 4)
        let lastStart = starts[3]
        for cut in lastStart..<bytes.count {
            try writeFile(logFilePath(temp.queue), Array(bytes[..<cut]))
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            let ids = try queue.jobs().map(\.id.rawValue)
            #expect(ids == ["job-0", "job-1", "job-2"], "cut at \(cut)")
            // A cut that leaves only zero bytes of the record (its checksum can begin with 00) is a clean end.
            let leftover = bytes[lastStart..<cut]
            let expectedTorn = leftover.allSatisfy { $0 == 0 } ? 0 : Int64(cut - lastStart)
            #expect(queue.recoveryReport.tornTailBytes == expectedTorn, "cut at \(cut)")
            #expect(try queue.payload(of: "job-2") == Data("payload 2".utf8))
            // The queue accepts new work after the repair, and it survives another reopen.
            try queue.enqueue(NewJob(kind: "k", id: "after"))
            try closeChecked(queue)
            let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            #expect(try reopened.jobs().map(\.id.rawValue) == ["job-0", "job-1", "job-2", "after"])
            #expect(reopened.recoveryReport.tornTailBytes == 0)
            try closeChecked(reopened)
        }
    }

    @Test func zeroesAfterTheLastRecordAreTheEndOfTheLog() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, _) = try makeLog(in: temp.queue, count: 2)
        try writeFile(logFilePath(temp.queue), bytes + [UInt8](repeating: 0, count: 4096))
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try queue.jobs().count == 2)
        try queue.enqueue(NewJob(kind: "k", id: "third"))
        try closeChecked(queue)
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().map(\.id.rawValue) == ["job-0", "job-1", "third"])
        try closeChecked(reopened)
    }

    @Test func aLaterSectorSurvivingWithoutTheEarlierOneIsATornTail() throws {
        // One group-commit write of several records whose first sector never reached the disk.
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, starts) = try makeLog(in: temp.queue, count: 1)
        var groupWrite: [UInt8] = []
        let seed = RecordFrame.checksumSeed(instanceID: Array(bytes[12..<28]))
        for index in 0..<30 {
            let body = TransactionCodec.encode([PlannedOperation(.cancel(id: "job-0", at: Int64(index)))])
            body.withUnsafeBytes {
                _ = RecordFrame.append(
                    body: $0, type: .transaction, lsn: UInt64(2 + index), groupIndex: UInt16(index),
                    seed: seed, to: &groupWrite)
            }
        }
        var torn = bytes + groupWrite
        for index in bytes.count..<min(torn.count, bytes.count + 512) { torn[index] = 0 }
        try writeFile(logFilePath(temp.queue), torn)
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try queue.job("job-0")?.state == .enqueued)
        #expect(queue.recoveryReport.tornTailOffset == Int64(bytes.count))
        _ = starts
        try closeChecked(queue)
    }

    @Test func aBitFlippedInAMiddleRecordIsCorruptionAndChangesNothing() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, starts) = try makeLog(in: temp.queue, count: 5)
        for target in [starts[1] + 2, starts[2] + 25, starts[3] + 10] {
            var damaged = bytes
            damaged[target] ^= 0x04
            try writeFile(logFilePath(temp.queue), damaged)
            let expectedOffset = Int64(starts.last(where: { $0 <= target })!)
            do {
                _ = try JobQueue(directory: temp.queue, configuration: testConfiguration())
                Issue.record("opened despite a flipped bit at \(target)")
            } catch let error as SpoolError {
                #expect(error.code == .corruption)
                #expect(error.path == logFilePath(temp.queue))
                #expect(error.offset == expectedOffset, "\(error)")
            }
            #expect(try readFile(logFilePath(temp.queue)) == damaged, "strict open changed the file")
        }
    }

    @Test func salvageModeSkipsTheDamagedRecordAndReportsIt() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, starts) = try makeLog(in: temp.queue, count: 5)
        var damaged = bytes
        damaged[starts[2] + 22] ^= 0xFF
        try writeFile(logFilePath(temp.queue), damaged)
        var configuration = testConfiguration()
        configuration.recoveryMode = .salvage
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.jobs().map(\.id.rawValue) == ["job-0", "job-1", "job-3", "job-4"])
        #expect(queue.recoveryReport.skipped.count == 1)
        #expect(queue.recoveryReport.skipped.first?.offset == Int64(starts[2]))
        #expect(queue.recoveryReport.skipped.first?.length == Int64(starts[3] - starts[2]))
        try closeChecked(queue)
    }

    /// Replay applies each operation as it decodes it in strict mode; a record whose first operation
    /// applies but whose second does not decode must still leave no trace: strict open fails and
    /// changes nothing, salvage skips the record whole (its first operation unapplied).
    @Test func aRecordThatDecodesOnlyInPartIsNeverAppliedInPart() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, _) = try makeLog(in: temp.queue, count: 1)
        let seed = RecordFrame.checksumSeed(instanceID: Array(bytes[12..<28]))
        // A cancel of job-0, then a byte that is no opcode: the count says two operations.
        var body = TransactionCodec.encode([PlannedOperation(.cancel(id: "job-0", at: 5))])
        #expect(body[1] == 1)
        body[1] = 2
        body.append(0xEE)
        var damaged = bytes
        body.withUnsafeBytes {
            _ = RecordFrame.append(body: $0, type: .transaction, lsn: 2, groupIndex: 0, seed: seed, to: &damaged)
        }
        try writeFile(logFilePath(temp.queue), damaged)
        do {
            _ = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            Issue.record("strict open applied a record that does not decode")
        } catch let error as SpoolError {
            #expect(error.code == .corruption)
            #expect(error.offset == Int64(bytes.count), "\(error)")
            #expect(error.message.contains("cannot be decoded"), "\(error)")
        }
        #expect(try readFile(logFilePath(temp.queue)) == damaged, "strict open changed the file")

        var configuration = testConfiguration()
        configuration.recoveryMode = .salvage
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job("job-0")?.state == .enqueued, "the cancel of the skipped record was applied")
        #expect(queue.recoveryReport.skipped.map(\.offset) == [Int64(bytes.count)])
        try closeChecked(queue)
    }

    @Test func aFileFromANewerFormatIsRefusedAndLeftAlone() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        _ = try makeLog(in: temp.queue, count: 1)
        var bytes = try readFile(logFilePath(temp.queue))
        let newer = FileHeader(
            version: LogFormat.currentVersion + 1, instanceID: Array(bytes[12..<28]), sequence: 1, firstLSN: 1)
        bytes.replaceSubrange(0..<LogFormat.fileHeaderSize, with: newer.encoded())
        try writeFile(logFilePath(temp.queue), bytes)
        #expect {
            _ = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        } throws: { error in
            let error = error as! SpoolError
            return error.code == .newerFormat && error.message.contains("\(LogFormat.currentVersion + 1)")
                && error.message.contains("\(LogFormat.currentVersion)")
        }
        #expect(try readFile(logFilePath(temp.queue)) == bytes)
    }

    @Test func aFileThatIsNotSpoolsIsRefusedAndLeftAlone() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        try FileManager.default.createDirectory(atPath: temp.queue, withIntermediateDirectories: true)
        let text = Array("name,age\nada,36\n".utf8) + [UInt8](repeating: 0x41, count: 100)
        try writeFile(logFilePath(temp.queue), text)
        expectError(.notAQueue) {
            _ = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        }
        #expect(try readFile(logFilePath(temp.queue)) == text)
    }

    @Test func aCrashBeforeTheFirstHeaderWasSyncedLeavesANewQueue() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        try FileManager.default.createDirectory(atPath: temp.queue, withIntermediateDirectories: true)
        try writeFile(
            logFilePath(temp.queue),
            Array(FileHeader(instanceID: Array(0..<16), sequence: 1, firstLSN: 1).encoded()[..<17]))
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try queue.jobs().isEmpty)
        try queue.enqueue(NewJob(kind: "k"))
        try closeChecked(queue)
    }

    @Test func randomDamageNeverTrapsAndEitherRecoversAPrefixOrFailsTyped() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let (bytes, _) = try makeLog(in: temp.queue, count: 6)
        var generator = SeededGenerator(seed: 2026)
        let allIDs = (0..<6).map { "job-\($0)" }
        for round in 0..<150 {
            var damaged = bytes
            switch round % 5 {
            case 0:
                damaged[Int.random(in: LogFormat.fileHeaderSize..<damaged.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            case 1:
                damaged.removeLast(Int.random(in: 1..<(damaged.count - LogFormat.fileHeaderSize), using: &generator))
            case 2:
                let start = Int.random(in: LogFormat.fileHeaderSize..<damaged.count, using: &generator)
                for index in start..<min(damaged.count, start + Int.random(in: 1...64, using: &generator)) {
                    damaged[index] = UInt8.random(in: 0...255, using: &generator)
                }
            case 3:
                // A length field set to a huge value.
                let start = Int.random(in: LogFormat.fileHeaderSize..<(damaged.count - 8), using: &generator)
                damaged.replaceSubrange(start..<(start + 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
            default:
                let start = Int.random(in: LogFormat.fileHeaderSize..<(damaged.count - 40), using: &generator)
                damaged.insert(contentsOf: damaged[start..<(start + 40)], at: start)
            }
            try writeFile(logFilePath(temp.queue), damaged)
            do {
                let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
                let ids = try queue.jobs().map(\.id.rawValue)
                #expect(ids == Array(allIDs.prefix(ids.count)), "round \(round): not a prefix: \(ids)")
                checkInvariants(queue.engine.stateSnapshot)
                try closeChecked(queue)
            } catch let error as SpoolError {
                #expect(error.code == .corruption, "round \(round): \(error)")
            }
        }
    }
}
