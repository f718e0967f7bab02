import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

@Suite(.blocking) struct CRC32CTests {
    @Test func checkValueOfTheStandardString() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func emptyInputAndKnownVectors() {
        #expect(CRC32C.checksum([]) == 0)
        // RFC 3720 B.4: 32 bytes of zeroes, 32 bytes of 0xFF.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    }

    @Test func everyLengthMatchesTheBitwiseDefinition() {
        // Lengths 0 to 100 take every path of the sliced loop (16, 8, 4 and single bytes) at every offset.
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var generator = SeededGenerator(seed: 11)
        let bytes = (0..<100).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in 0...100 {
            #expect(CRC32C.checksum(Array(bytes[..<length])) == bitwise(Array(bytes[..<length])), "length \(length)")
        }
    }

    @Test func incrementalUpdateEqualsOneShot() {
        var generator = SeededGenerator(seed: 7)
        for length in [0, 1, 7, 8, 9, 63, 64, 65, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for split in Set([0, length / 3, length]) {
                let first = bytes[..<split].withUnsafeBytes { CRC32C.checksum($0) }
                let whole = bytes[split...].withUnsafeBytes { CRC32C.update(first, $0) }
                #expect(whole == CRC32C.checksum(bytes), "length \(length) split \(split)")
            }
        }
    }
}

@Suite(.blocking) struct EncodingTests {
    @Test func varintsRoundTripAtTheirEdges() throws {
        let unsigned: [UInt64] = [0, 1, 127, 128, 16383, 16384, UInt64(UInt32.max), UInt64.max]
        let signed: [Int64] = [0, -1, 1, -64, 64, Int64.min, Int64.max]
        var writer = ByteWriter()
        for value in unsigned { writer.writeVarint(value) }
        for value in signed { writer.writeSignedVarint(value) }
        let (readUnsigned, readSigned, atEnd) = try writer.bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            let first = try unsigned.map { _ in try reader.readVarint() }
            let second = try signed.map { _ in try reader.readSignedVarint() }
            return (first, second, reader.isAtEnd)
        }
        #expect(readUnsigned == unsigned && readSigned == signed && atEnd)
    }

    @Test func varintsOfEveryWidthReadAlikeWithAndWithoutBytesAfterThem() throws {
        // A varint of up to eight bytes is read a word at a time when eight bytes remain, byte by
        // byte otherwise: both read every width, and a non-canonical one (zero groups at the end), alike.
        var encodings: [(bytes: [UInt8], value: UInt64)] = []
        for bits in 0...64 {
            let value: UInt64 = bits == 0 ? 0 : (UInt64.max >> (64 - bits)) ^ (bits > 2 ? 2 : 0)
            var writer = ByteWriter()
            writer.writeVarint(value)
            encodings.append((writer.bytes, value))
        }
        encodings.append(([0x81, 0x80, 0x80, 0x00], 1))
        encodings.append(([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x00], (1 << 49) - 1))
        for (bytes, value) in encodings {
            for padding in [0, 1, 7, 8] {
                let input = bytes + [UInt8](repeating: 0xAB, count: padding)
                let (read, position) = try input.withUnsafeBytes { raw in
                    var reader = ByteReader(raw)
                    return (try reader.readVarint(), reader.position)
                }
                #expect(read == value && position == bytes.count, "\(bytes) with \(padding) bytes after")
            }
        }
    }

    @Test func overlongVarintAndHugeLengthsAreRejected() {
        let overlong = [UInt8](repeating: 0xFF, count: 11) + [0x01]
        overlong.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            #expect(throws: DecodingError.self) { try reader.readVarint() }
        }
        // A byte string claiming 2^62 bytes with 3 bytes left.
        var writer = ByteWriter()
        writer.writeVarint(1 << 62)
        writer.writeRaw([1, 2, 3])
        writer.bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            #expect(throws: DecodingError.self) { try reader.readBytes() }
        }
    }

    @Test func everyOperationRoundTrips() throws {
        let enqueue = NewEnqueue(
            id: "job-1", kind: "upload", payload: Data("héllo".utf8), priority: -3,
            createdAt: 1_800_000_000_123, runAt: 1_800_000_005_000, maxAttempts: 5,
            uniqueKey: "photo:42")
        let others: [Spool.LogOperation] = [
            .claim(
                .init(
                    id: "job-1", token: 0xDEAD_BEEF_0000_0001, claimedAt: 5, expiresAt: 300_005,
                    monotonicExpiry: 1 << 40, bootID: "boot-a")),
            .renewLease(id: "job-1", token: 9, expiresAt: 10, monotonicExpiry: 11),
            .complete(id: "job-1", token: 9, at: 12),
            .fail(id: "job-1", token: 9, at: 13, error: "timeout", nextRetryAt: 5013),
            .fail(id: "job-1", token: 9, at: 13, error: "", nextRetryAt: nil),
            .cancel(id: "j", at: -5),
            .retry(id: "j", at: 0),
            .reschedule(id: "j", runAt: Int64.max, at: Int64.min),
            .delete(id: "j"),
            .reclaim(id: "j", at: 1, reason: "orphaned", nextRetryAt: nil),
        ]
        let body = TransactionCodec.encode([.enqueue(enqueue)] + others.map { PlannedOperation($0) })
        let decoded = try body.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: 3, bodyOffset: 1000)
        }
        #expect(decoded.count == 1 + others.count)
        #expect(Array(decoded.dropFirst()) == others)
        guard case .enqueue(let op) = decoded[0] else {
            Issue.record("not an enqueue")
            return
        }
        #expect(op.id == "job-1" && op.kind == "upload" && op.priority == -3 && op.uniqueKey == "photo:42")
        #expect(op.createdAt == 1_800_000_000_123 && op.runAt == 1_800_000_005_000 && op.maxAttempts == 5)
        #expect(op.payload.fileSequence == 3 && op.payload.length == 6)
        let start = Int(op.payload.offset - 1000)
        #expect(Array(body[start..<(start + 6)]) == Array("héllo".utf8))
    }

    @Test func aNewerBodyVersionIsNamedAsSuch() {
        let body: [UInt8] = [TransactionCodec.bodyVersion + 1, 0]
        #expect(throws: TransactionCodec.Failure.newerBodyVersion(TransactionCodec.bodyVersion + 1)) {
            try body.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
    }

    @Test func compactionOperationsAreWrittenInBodyVersion2Only() throws {
        let expire = TransactionCodec.encode([PlannedOperation(.expire(id: "j"))])
        #expect(expire.first == 2)
        #expect(TransactionCodec.encode([PlannedOperation(.delete(id: "j"))]).first == 1)
        let decoded = try expire.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        #expect(decoded == [.expire(id: "j")])
        // The same operation in a version 1 body is malformed: a reader of version 1 only refuses version 2 as newer.
        let downgraded = [1] + expire.dropFirst()
        #expect(throws: TransactionCodec.Failure.self) {
            try downgraded.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
        var summaryBody = ByteWriter()
        summaryBody.writeUInt8(2)
        summaryBody.writeVarint(1)
        SnapshotCodec.encode(
            SnapshotSummary(lastLSN: 7, nextSequence: 3, createdAt: -5, expiredJobs: 2), into: &summaryBody)
        let summary = try summaryBody.bytes.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0)
        }
        #expect(summary == [.snapshot(SnapshotSummary(lastLSN: 7, nextSequence: 3, createdAt: -5, expiredJobs: 2))])
    }

    @Test func aRestoreRoundTripsEveryField() throws {
        let job = StoredJob(
            id: "j", kind: "k", state: .running, attempts: 2, maxAttempts: 5, priority: -3, sequence: 42,
            createdAt: -1, runAt: 10, nextRetryAt: nil, finishedAt: nil, uniqueKey: "u", lastError: "e",
            payload: PayloadLocation(fileSequence: 0, offset: 0, length: 3, checksum: 0),
            lease: StoredLease(token: .max, claimedAt: 11, expiresAt: 12, monotonicExpiry: 13, bootID: "b"))
        var body = ByteWriter()
        body.writeUInt8(2)
        body.writeVarint(1)
        let range = SnapshotCodec.encodeRestore(job, payload: [7, 8, 9], into: &body)
        let decoded = try body.bytes.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: 9, bodyOffset: 100)
        }
        var expected = job
        expected.payload = PayloadLocation(
            fileSequence: 9, offset: 100 + Int64(range.lowerBound), length: 3,
            checksum: CRC32C.checksum([7, 8, 9]))
        #expect(decoded == [.restore(expected)])
    }

    @Test func fileHeaderRoundTripsAndRejectsStrangers() {
        let header = FileHeader(instanceID: Array(0..<16), sequence: 7, firstLSN: 12)
        let bytes = header.encoded()
        #expect(bytes.count == LogFormat.fileHeaderSize)
        #expect(bytes.withUnsafeBytes { FileHeader.decode($0) } == .success(header))
        var damaged = bytes
        damaged[20] ^= 1
        #expect(damaged.withUnsafeBytes { FileHeader.decode($0) } == .failure(.damaged("header checksum mismatch")))
        let text = Array("hello, this is not a spool file at all, really.".utf8)
        #expect(text.withUnsafeBytes { FileHeader.decode($0) } == .failure(.notASpoolFile))
        var newer = FileHeader(
            version: LogFormat.currentVersion + 1, instanceID: Array(0..<16), sequence: 1, firstLSN: 1)
        newer.sequence = 1
        #expect(
            newer.encoded().withUnsafeBytes { FileHeader.decode($0) }
                == .failure(.newerVersion(LogFormat.currentVersion + 1)))
    }

    @Test func frameChecksumCoversTypeLengthAndBody() {
        var buffer: [UInt8] = []
        let body: [UInt8] = [1, 2, 3]
        body.withUnsafeBytes {
            _ = RecordFrame.append(body: $0, type: .transaction, lsn: 42, groupIndex: 0, seed: 0, to: &buffer)
        }
        #expect(buffer.count == LogFormat.frameHeaderSize + 3)
        if case .success(let found) = buffer.withUnsafeBytes({ RecordFrame.parse($0, at: 0, seed: 0) }) {
            #expect(found.header.lsn == 42 && found.bodyRange == 20..<23)
        } else {
            Issue.record("intact frame not parsed")
        }
        for index in 4..<buffer.count {
            var copy = buffer
            copy[index] ^= 0x10
            let result = copy.withUnsafeBytes { RecordFrame.parse($0, at: 0, seed: 0) }
            if case .success = result { Issue.record("a flip at byte \(index) went unnoticed") }
        }
    }

    @Test func aFrameSealedInPlaceIsTheFrameAppendMakes() throws {
        let body = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var appended: [UInt8] = []
        body.withUnsafeBytes {
            _ = RecordFrame.append(body: $0, type: .transaction, lsn: 77, groupIndex: 3, seed: 0xABCD, to: &appended)
        }
        // The room in front holds anything: every header byte is written.
        var sealed = [UInt8](repeating: 0xEE, count: LogFormat.frameHeaderSize) + body
        RecordFrame.seal(&sealed, type: .transaction, lsn: 77, groupIndex: 3, seed: 0xABCD)
        #expect(sealed == appended)
        // And the codec's headroom puts the body behind the room, payload ranges relative to the body.
        let operation = PlannedOperation.enqueue(
            NewEnqueue(
                id: "j", kind: "k", payload: Data([9, 8, 7]), priority: 0,
                createdAt: 1, runAt: 1, maxAttempts: 1, uniqueKey: nil,
                options: EnqueueOptions()))
        var plainRanges: [Range<Int>] = []
        var framedRanges: [Range<Int>] = []
        let plain = TransactionCodec.encode([operation], payloadRanges: &plainRanges)
        let framed = TransactionCodec.encode(
            [operation], payloadRanges: &framedRanges, headroom: LogFormat.frameHeaderSize)
        #expect(Array(framed[LogFormat.frameHeaderSize...]) == plain && framedRanges == plainRanges)
        #expect(Array(plain[plainRanges[0]]) == [9, 8, 7])
    }
}
