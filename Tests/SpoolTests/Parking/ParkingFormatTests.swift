import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The bytes of the parking and checkpoint operations are FORMAT.md's (*Parked jobs and checkpoints*),
/// and a reader refuses what is out of their ranges.
@Suite(.blocking) struct ParkingFormatTests {
    private func decode(_ bytes: [UInt8]) throws -> [LogOperation] {
        try bytes.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
    }

    @Test func parkingOperationBytes() throws {
        let park: [UInt8] = [0x05, 0x01, 0x1a, 0x01, 0x6a, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x6b, 0x02]
        #expect(TransactionCodec.encode([PlannedOperation(.park(id: "j", token: 1, key: "k", deadline: 1))]) == park)
        #expect(try decode(park) == [.park(id: "j", token: 1, key: "k", deadline: 1)])
        let restore: [UInt8] = [0x05, 0x01, 0x1c, 0x01, 0x6a, 0x02, 0xca, 0xfe]
        #expect(
            TransactionCodec.encode([PlannedOperation(.restoreCheckpoint(id: "j", data: [0xca, 0xfe]))]) == restore)
        #expect(try decode(restore) == [.restoreCheckpoint(id: "j", data: [0xca, 0xfe])])
        let checkpoint = LogOperation.checkpoint(id: "j", token: 7, data: [1, 2, 3], expiresAt: -5, monotonicExpiry: 9)
        #expect(try decode(TransactionCodec.encode([PlannedOperation(checkpoint)])) == [checkpoint])
    }

    @Test func aParkingOpcodeInABodyOfVersionFourIsMalformed() {
        var park: [UInt8] = [0x05, 0x01, 0x1a, 0x01, 0x6a, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x6b, 0x02]
        park[0] = 4
        #expect(throws: TransactionCodec.Failure.self) { try decode(park) }
    }

    @Test func anEmptyKeyAndAnOversizedCheckpointAreUndecodable() {
        let empty: [UInt8] = [0x05, 0x01, 0x1a, 0x01, 0x6a, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x02]
        #expect(throws: TransactionCodec.Failure.self) { try decode(empty) }
        let big = [UInt8](repeating: 0, count: JobLimits.maxCheckpointBytes + 1)
        let body = TransactionCodec.encode([PlannedOperation(.restoreCheckpoint(id: "j", data: big))])
        #expect(throws: TransactionCodec.Failure.self) { try decode(body) }
        let fits = TransactionCodec.encode([PlannedOperation(.restoreCheckpoint(id: "j", data: Array(big.dropLast())))])
        #expect(throws: Never.self) { try decode(fits) }
    }
}
