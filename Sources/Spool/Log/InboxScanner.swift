/// Reads the records of one producer inbox file (FORMAT.md, *Producer inbox files*) from an offset:
/// the verified frames up to the last complete one, and what lies after them.
///
/// Zeroes after the last frame are the end (what is left of the producer's reservation). An incomplete
/// frame at the end, or other bytes after the last frame in which no intact frame starts, are a *torn tail*: a producer's write that a crash or a failed write cut short (its producer
/// abandons the file after any failure, so nothing is ever appended after one). An intact frame after
/// bytes that are not one is *corruption*: a typed error naming the file and the offset of the damage.
struct InboxScanner {
    /// One record: its stamp, its requests and where it ends in the file.
    struct Record {
        /// When its producer acknowledged it (absent in records of builds before the stamp).
        var stamp: InboxStamp?
        var entries: [InboxEntry]
        /// The offset of the record's frame.
        var offset: Int
        /// The offset after the record's frame.
        var end: Int
        /// The record's body bytes (payload bytes included).
        var bodyBytes: Int
    }

    struct Outcome {
        var records: [Record] = []
        /// The end of the last record read (the start offset when none was).
        var end: Int
        /// Whether bytes lie after `end` (a torn tail).
        var hasTornTail: Bool
    }

    /// Checks the file's header: `true` when it is sound, `false` when it is incomplete (a creation cut
    /// short, which holds no acknowledged record); throws a typed error for any other problem.
    static func checkHeader(_ bytes: UnsafeRawBufferPointer, id: [UInt8], path: String) throws -> Bool {
        // A first write (header, record, reservation) cut short may leave the header's blocks zero and later
        // ones written: a creation cut short, unless an intact record follows (then the header was damaged).
        if bytes.count >= InboxFormat.headerSize,
            Platform.isAllZero(UnsafeRawBufferPointer(rebasing: bytes[..<InboxFormat.headerSize]))
        {
            let seed = InboxFormat.checksumSeed(id: id)
            guard
                let record = firstIntactFrame(
                    bytes, after: InboxFormat.headerSize - 1, before: Platform.endOfNonZero(bytes), seed: seed)
            else {
                return false
            }
            throw SpoolError(
                .corruption, "inbox file header is zeroes before an intact record (at offset \(record))", path: path,
                offset: 0)
        }
        switch InboxFormat.checkHeader(bytes, id: id) {
        case nil: return true
        case .incomplete: return false
        case .newerVersion(let version):
            throw SpoolError(
                .newerFormat, "inbox file version \(version) is newer than this build reads (\(InboxFormat.version))",
                path: path, offset: 0)
        case .damaged(let reason):
            throw SpoolError(.corruption, "inbox file header: \(reason)", path: path, offset: 0)
        }
    }

    /// Scans `bytes` (the whole file) from `start` (at least the header's end).
    static func scan(_ bytes: UnsafeRawBufferPointer, id: [UInt8], path: String, from start: Int) throws -> Outcome {
        let seed = InboxFormat.checksumSeed(id: id)
        var offset = max(start, InboxFormat.headerSize)
        var outcome = Outcome(end: offset, hasTornTail: false)
        // The producer's reservation: zeroes from here on are the end, not a torn tail.
        let dataEnd = Platform.endOfNonZero(bytes)
        var expectedNumber = recordNumber(at: offset, in: bytes, seed: seed)
        while offset < dataEnd {
            switch RecordFrame.parse(bytes, at: offset, seed: seed) {
            case .success(let found):
                guard found.header.groupIndex == 0 else {
                    throw SpoolError(
                        .corruption, "inbox record with group index \(found.header.groupIndex)", path: path,
                        offset: Int64(offset))
                }
                if let expected = expectedNumber, found.header.lsn != expected {
                    throw SpoolError(
                        .corruption,
                        "inbox record number \(found.header.lsn) where number \(expected) follows: a record "
                            + (found.header.lsn < expected ? "repeated" : "lost"), path: path, offset: Int64(offset))
                }
                expectedNumber = found.header.lsn &+ 1
                let body: InboxBody
                do {
                    body = try InboxCodec.decode(
                        UnsafeRawBufferPointer(rebasing: bytes[found.bodyRange]),
                        bodyOffset: Int64(found.bodyRange.lowerBound))
                } catch .newerBodyVersion(let version) {
                    throw SpoolError(
                        .newerFormat, "inbox record of body version \(version), newer than this build reads",
                        path: path, offset: Int64(offset))
                } catch .malformed(let reason) {
                    throw SpoolError(
                        .corruption, "inbox record does not decode: \(reason)", path: path, offset: Int64(offset))
                }
                outcome.records.append(
                    Record(
                        stamp: body.stamp, entries: body.entries, offset: offset, end: found.end,
                        bodyBytes: found.bodyRange.count))
                offset = found.end
                outcome.end = offset
            case .failure:
                if let later = firstIntactFrame(bytes, after: offset, before: dataEnd, seed: seed) {
                    throw SpoolError(
                        .corruption,
                        "damaged inbox record before an intact one (at offset \(later)): bytes a producer "
                            + "acknowledged may be lost", path: path, offset: Int64(offset))
                }
                outcome.hasTornTail = true
                return outcome
            }
        }
        return outcome
    }

    /// The complete records of a file its producer is writing (it holds the lock), read without the
    /// lock: those before the producer's current call do not change, and that call's own record may be
    /// complete, partly written or absent. So the records are taken up to the first bytes that are not an
    /// intact, decodable record, and nothing after is judged: no torn tail, no error (the next read under
    /// the lock judges the file). `nil` when the header is not complete yet.
    static func scanWhileWritten(_ bytes: UnsafeRawBufferPointer, id: [UInt8], from start: Int) -> Outcome? {
        guard InboxFormat.checkHeader(bytes, id: id) == nil else { return nil }
        let seed = InboxFormat.checksumSeed(id: id)
        var offset = max(start, InboxFormat.headerSize)
        var outcome = Outcome(end: offset, hasTornTail: false)
        var expectedNumber = recordNumber(at: offset, in: bytes, seed: seed)
        while case .success(let found) = RecordFrame.parse(bytes, at: offset, seed: seed), found.header.groupIndex == 0,
            expectedNumber.map({ found.header.lsn == $0 }) ?? true,
            let body = try? InboxCodec.decode(
                UnsafeRawBufferPointer(rebasing: bytes[found.bodyRange]), bodyOffset: Int64(found.bodyRange.lowerBound))
        {
            outcome.records.append(
                Record(
                    stamp: body.stamp, entries: body.entries, offset: offset, end: found.end,
                    bodyBytes: found.bodyRange.count))
            expectedNumber = found.header.lsn &+ 1
            offset = found.end
            outcome.end = offset
        }
        return outcome
    }

    /// The number the record at `offset` must have (FORMAT.md, *Producer inbox files*: 1, 2, 3 … in the
    /// file): 1 past the frames from the header's end to it, walked without decoding; `nil` when they do not
    /// lead exactly to `offset` (an offset the log recorded that is not a frame's start: then the first
    /// record read is taken as it is numbered, and the numbers are checked from it on).
    private static func recordNumber(at offset: Int, in bytes: UnsafeRawBufferPointer, seed: UInt32) -> UInt64? {
        var position = InboxFormat.headerSize
        var number: UInt64 = 1
        while position < offset {
            guard case .success(let found) = RecordFrame.parse(bytes, at: position, seed: seed),
                found.header.lsn == number
            else { return nil }
            position = found.end
            number += 1
        }
        return position == offset ? number : nil
    }

    /// The stamp rule (FORMAT.md, *Producer inbox files*): a producer stamps a record under its file's lock,
    /// before it writes it, so a record read from a file carries, on the reader's boot, a monotonic reading
    /// at most the reader's own taken after the read (`readAfter`). One above it is no producer's: `corruption`
    /// naming the file and the record's offset (it would otherwise hold back, for ever, the records after it).
    static func checkStamps(_ records: [Record], boot: String, readAfter: UInt64, path: String) throws {
        for record in records {
            guard let stamp = record.stamp, stamp.bootID == boot, stamp.monotonic > readAfter else { continue }
            throw SpoolError(
                .corruption,
                "inbox record stamped at \(stamp.monotonic) ns of this boot, later than the reader's clock read "
                    + "after the file: no producer writes such a stamp", path: path,
                offset: Int64(record.offset))
        }
    }

    /// The offset of the first intact frame that starts after `offset`, if any. Every frame's type byte
    /// (offset 16) is not zero, so a frame starts before `dataEnd` (``Platform/endOfNonZero(_:)``) by more
    /// than 16 bytes; a candidate whose type and reserved bytes are wrong is skipped without a parse.
    private static func firstIntactFrame(
        _ bytes: UnsafeRawBufferPointer, after offset: Int, before dataEnd: Int, seed: UInt32
    ) -> Int? {
        let typeField = 16
        var candidate = offset + 1
        while candidate + typeField < dataEnd && candidate + LogFormat.frameHeaderSize <= bytes.count {
            if bytes[candidate + typeField] == RecordType.transaction.rawValue && bytes[candidate + typeField + 1] == 0,
                case .success = RecordFrame.parse(bytes, at: candidate, seed: seed)
            {
                return candidate
            }
            candidate += 1
        }
        return nil
    }
}
