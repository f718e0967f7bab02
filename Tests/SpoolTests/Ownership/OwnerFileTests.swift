import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The `OWNER` file's bytes (FORMAT.md, "Ownership (the OWNER file)"), pinned by the checked-in
/// fixture `format-2-owner`, and what a reader does with torn or foreign slots.
@Suite(.blocking) struct OwnerFileTests {
    private var fixtureQueue: String { FormatFixture.fixturesDirectory + "/format-2-owner/queue" }

    private func copyOfFixture(_ temporary: TemporaryDirectory) throws -> String {
        let copy = temporary.path + "/queue"
        try FileManager.default.copyItem(atPath: fixtureQueue, toPath: copy)
        return copy
    }

    @Test func theFixturePinsBothSlots() throws {
        let bytes = try readFile(fixtureQueue + "/OWNER")
        #expect(bytes.count == 4160)
        let path = fixtureQueue + "/OWNER"
        let takeover = try #require(try OwnerRecord.decode(slot: bytes[0...], path: path, offset: 0))
        let closed = try #require(try OwnerRecord.decode(slot: bytes[4096...], path: path, offset: 4096))
        // The second owner took over at 1 800 000 031 000 ms with a 30 s lease, then closed cleanly.
        #expect(takeover.generation == 2 && takeover.epoch == 2 && takeover.leaseUntil == 1_800_000_061_000)
        #expect(closed.generation == 3 && closed.epoch == 2 && closed.leaseUntil == 0)
        #expect(closed.token == takeover.token && closed.processID == takeover.processID)
        #expect(try OwnerRecord.current(in: bytes, path: path) == closed)
        // The layout, field by field.
        #expect(Array(bytes[0..<8]) == Array("SPOOLOWN".utf8))
        #expect(bytes[8] == 1 && bytes[9] == 0 && bytes[10] == 0 && bytes[11] == 0)
        #expect(Array(bytes[56..<60]) == [0, 0, 0, 0])
        #expect(UInt32(littleEndianBytes: bytes[60..<64]) == CRC32C.checksum(Array(bytes[0..<60])))
        #expect(bytes[64..<4096].allSatisfy { $0 == 0 })
        #expect(takeover.encoded() == Array(bytes[0..<64]))
        #expect(closed.encoded() == Array(bytes[4096..<4160]))
    }

    @Test func theFixtureOpensSharedAndExclusiveTakingTheNextEpoch() throws {
        for sharing in [ProcessSharing.shared, .exclusive] {
            let temporary = TemporaryDirectory("owner-fixture")
            defer { temporary.cleanup() }
            let copy = try copyOfFixture(temporary)
            var configuration = FormatFixture.configuration(clock: ManualClock(start: FormatFixture.start))
            configuration.sharing = sharing
            configuration.createIfMissing = false
            let queue = try JobQueue(directory: copy, configuration: configuration)
            #expect(
                try queue.jobs().map(\.id.rawValue) == ["upload-1", "upload-2", "upload-3", "upload-4", "upload-5"])
            #expect(try queue.job("upload-1")?.state == .succeeded)
            let record = try #require(try OwnershipFence.read(copy + "/OWNER", fileSystem: POSIXFileSystem()))
            #expect(record.epoch == 3 && record.generation == 4)
            #expect(record.leaseUntil == (sharing == .shared ? Millis.from(FormatFixture.start) + 30_000 : 0))
            #expect(record.slotOffset == 0)
            try closeChecked(queue)
        }
    }

    @Test func aTornSlotLeavesThePreviousRecordCurrent() throws {
        let path = fixtureQueue + "/OWNER"
        var bytes = try readFile(path)
        bytes[4096 + 20] ^= 0xFF  // slot 1 (generation 3) torn
        let current = try #require(try OwnerRecord.current(in: bytes, path: path))
        #expect(current.generation == 2)
        bytes[20] ^= 0xFF  // both torn: no owner
        #expect(try OwnerRecord.current(in: bytes, path: path) == nil)
        #expect(try OwnerRecord.current(in: [], path: path) == nil)
        #expect(try OwnerRecord.current(in: Array(bytes.prefix(63)), path: path) == nil)
    }

    @Test func aSlotOfANewerVersionIsRefused() throws {
        let path = fixtureQueue + "/OWNER"
        var slot = Array(try readFile(path)[0..<64])
        slot[8] = 2
        let checksum = CRC32C.checksum(Array(slot[0..<60]))
        for index in 0..<4 { slot[60 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(index))) }
        do {
            _ = try OwnerRecord.current(in: slot, path: path)
            Issue.record("a newer OWNER slot was read")
        } catch let error as SpoolError {
            #expect(error.code == .newerFormat && error.path == path && error.offset == 0)
        }
        // The same slot with a bad checksum is a torn write, not a newer version.
        slot[60] ^= 1
        #expect(try OwnerRecord.current(in: slot, path: path) == nil)
    }

    /// A queue whose OWNER is damaged opens: no owner, so the opener takes epoch 1.
    @Test func aDamagedOwnerFileMeansNoOwner() throws {
        let temporary = TemporaryDirectory("owner-fixture")
        defer { temporary.cleanup() }
        let copy = try copyOfFixture(temporary)
        try writeFile(copy + "/OWNER", [UInt8](repeating: 0xAB, count: 100))
        var configuration = FormatFixture.configuration(clock: ManualClock(start: FormatFixture.start))
        configuration.sharing = .shared
        let queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(try OwnershipFence.read(copy + "/OWNER", fileSystem: POSIXFileSystem())?.epoch == 1)
        try closeChecked(queue)
    }
}

extension UInt32 {
    fileprivate init(littleEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
