import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A torn tail is at most the last commit group (``TornTailPolicy``): damaged frames that still
/// read as several groups were synced, so they are corruption, refused by a strict open and by
/// `verify`, not cut. A damaged last group is still a torn tail, cut without a word.
@Suite(.blocking) struct TornTailPolicyTests {
    static let directory = "/torn"
    static let instanceID = Array(UInt8(0x10)..<0x20)

    /// A log of `count` enqueues in commit groups of `groupSize` records.
    static func log(count: Int, groupSize: Int, instanceID: [UInt8] = instanceID) -> (bytes: [UInt8], offsets: [Int]) {
        var records: [DiskFieldRangeTests.Record] = []
        for index in 0..<count {
            var record = DiskFieldRangeTests.planned([
                .enqueue(
                    NewEnqueue(
                        id: "job-\(index)", kind: "k", payload: Data(repeating: UInt8(index), count: 200), priority: 0,
                        createdAt: 1_800_000_000_000, runAt: 1_800_000_000_000, maxAttempts: 3, uniqueKey: nil))
            ])
            record.groupIndex = UInt16(index % groupSize)
            records.append(record)
        }
        let bytes = DiskFieldRangeTests.file(sequence: 1, records: records, firstLSN: 1, instanceID: instanceID)
        return (bytes, records.indices.map { DiskFieldRangeTests.frameOffset(records: records, index: $0) })
    }

    static func disk(_ bytes: [UInt8]) throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try disk.createDirectory(at: directory)
        disk.setContents(of: path, bytes)
        return disk
    }

    static let path = directory + "/" + QueueDirectoryLayout.logFileName(sequence: 1)

    static func open(_ disk: SimulatedDisk, mode: RecoveryMode = .strict) throws -> JobQueue {
        var configuration = Configuration()
        configuration.fileSystem = disk
        configuration.clock = ManualClock()
        configuration.recoveryMode = mode
        return try JobQueue(directory: directory, configuration: configuration)
    }

    /// Strict open and `verify` refuse the bytes as corruption at `offset`, and change nothing.
    static func expectRefused(_ bytes: [UInt8], at offset: Int, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let disk = try disk(bytes)
        for what in ["open", "verify"] {
            do {
                if what == "open" {
                    try open(disk).close()
                } else {
                    _ = try QueueDirectory(path: directory, fileSystem: disk).inspect(mode: .strict)
                }
                Issue.record(
                    "\(what) accepted several damaged commit groups as a torn tail", sourceLocation: sourceLocation)
            } catch let error as SpoolError {
                #expect(
                    error.code == .corruption && error.path == path && error.offset == Int64(offset),
                    "\(what): \(error)", sourceLocation: sourceLocation)
                #expect(error.message.contains("commit groups"), "\(what): \(error)", sourceLocation: sourceLocation)
            }
        }
        #expect(disk.contents(of: path) == bytes, "the file changed", sourceLocation: sourceLocation)
    }

    @Test func aFileWhoseEveryRecordFailsIsCorruptionNotATornTail() throws {
        // 32 records of this queue under a header (its checksum right) naming another queue's instance id:
        // every frame fails its checksum (another seed), and each is a commit group.
        var (bytes, _) = Self.log(count: 32, groupSize: 1)
        bytes.replaceSubrange(
            0..<LogFormat.fileHeaderSize,
            with: FileHeader(instanceID: Array(UInt8(0xA0)..<0xB0), sequence: 1, firstLSN: 1).encoded())
        try Self.expectRefused(bytes, at: LogFormat.fileHeaderSize)
        // Groups of several records are counted as groups, not records.
        var (grouped, _) = Self.log(count: 32, groupSize: 8)
        grouped.replaceSubrange(
            0..<LogFormat.fileHeaderSize,
            with: FileHeader(instanceID: Array(UInt8(0xA0)..<0xB0), sequence: 1, firstLSN: 1).encoded())
        try Self.expectRefused(grouped, at: LogFormat.fileHeaderSize)
        // Salvage opens it, skipping the bytes, and cuts nothing as a torn tail.
        let queue = try Self.open(try Self.disk(bytes), mode: .salvage)
        #expect(queue.recoveryReport.tornTailOffset == nil && queue.recoveryReport.tornTailBytes == 0)
        let jobs = try queue.jobs()
        #expect(!queue.recoveryReport.skipped.isEmpty && jobs.isEmpty)
        try closeChecked(queue)
    }

    @Test func twoDamagedGroupsAtTheEndAreCorruption() throws {
        var (bytes, offsets) = Self.log(count: 6, groupSize: 1)
        // The bodies of the last two groups, each synced before the next began, are damaged.
        bytes[offsets[4] + LogFormat.frameHeaderSize + 30] ^= 0x01
        bytes[offsets[5] + LogFormat.frameHeaderSize + 30] ^= 0x01
        try Self.expectRefused(bytes, at: offsets[4])
    }

    @Test func aDamagedLastGroupIsStillATornTail() throws {
        // The last group is records 3 to 5; a crash damaged its records in every way a torn write can.
        for damaged in [[4, 5], [3, 4, 5], [3], [5], [3, 5]] {
            var (bytes, offsets) = Self.log(count: 6, groupSize: 3)
            for index in damaged { bytes[offsets[index] + LogFormat.frameHeaderSize + 30] ^= 0x01 }
            let disk = try Self.disk(bytes)
            let summary = VerificationSummary(
                try QueueDirectory(path: Self.directory, fileSystem: disk).inspect(mode: .strict))
            #expect(summary.tornTail?.offset == Int64(offsets[damaged[0]]), "damaged \(damaged)")
            let queue = try Self.open(disk)
            #expect(queue.recoveryReport.tornTailOffset == Int64(offsets[damaged[0]]), "damaged \(damaged)")
            #expect(try queue.jobs().count == damaged[0], "damaged \(damaged)")
            try closeChecked(queue)
        }
        // A write torn short: the last group's last record cut in its body.
        let (bytes, offsets) = Self.log(count: 6, groupSize: 3)
        let queue = try Self.open(try Self.disk(Array(bytes[..<(offsets[5] + 40)])))
        let jobs = try queue.jobs()
        #expect(queue.recoveryReport.tornTailOffset == Int64(offsets[5]) && jobs.count == 5)
        try closeChecked(queue)
    }

    @Test func theChainOfDamagedFramesIsCountedByGroupStarts() throws {
        let (bytes, offsets) = Self.log(count: 6, groupSize: 3)
        bytes.withUnsafeBytes { raw in
            // From record 1 (group 1), the chain runs into group 2: two groups.
            #expect(TornTailPolicy.plausibleGroups(in: raw, from: offsets[1], firstLSN: 2).count == 2)
            // From record 3 (group 2): one group.
            #expect(TornTailPolicy.plausibleGroups(in: raw, from: offsets[3], firstLSN: 4).count == 1)
            // A first frame whose LSN is not the one expected starts no chain.
            #expect(TornTailPolicy.plausibleGroups(in: raw, from: offsets[3], firstLSN: 9).count == 0)
            #expect(TornTailPolicy.plausibleGroups(in: raw, from: offsets[3] + 1, firstLSN: nil).count == 0)
        }
    }
}
