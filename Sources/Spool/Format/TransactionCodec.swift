/// The binary encoding of a transaction body (record type 1):
///
/// ```
/// u8      body version (1)
/// varint  operation count
/// then each operation: u8 opcode, then its fields in order
/// ```
/// Integers are LEB128 varints (signed ones zigzag), strings and byte strings
/// a varint length then the bytes, optional values a presence byte then the value.
enum TransactionCodec {
    /// The body version of records holding only operations 1 to 10.
    static let baseBodyVersion: UInt8 = 1
    /// The body version of records holding any of the compaction operations (11 to 13), so that a
    /// build that reads only version 1 refuses them as newer rather than as corrupt.
    static let compactionBodyVersion: UInt8 = 2
    /// The body version of records holding any of the job-options operations (14 to 16: an enqueue
    /// with constraints, prerequisites or a periodic schedule, a next occurrence, a restore of such a job).
    static let optionsBodyVersion: UInt8 = 3
    /// The body version of records holding any of the migration operations (20 to 25).
    static let migrationBodyVersion: UInt8 = 4
    /// The body version of records holding any of the parking and checkpoint operations (26 to 28).
    static let parkingBodyVersion: UInt8 = 5
    /// The body version of records holding any of the stop operations (30 to 32: a released attempt,
    /// a snooze, a stop reason; see `StopsCodec`).
    static let stopsBodyVersion: UInt8 = 6
    /// The body version of records holding any of the kind controls (34 to 37: pause and resume of a
    /// kind, rate limits and their windows). Tags (38) are of ``resultsBodyVersion``, whatever the name.
    static let tagsBodyVersion: UInt8 = 7
    /// The body version of records holding the inbox operations (40 and 41: how far the owner ingested a
    /// producer's inbox file; the unique-key policy of a producer's enqueue, in inbox files only), and
    /// of every record of an inbox file (FORMAT.md, *Producer inbox files*).
    static let inboxBodyVersion: UInt8 = 8
    /// The body version of records holding a job's result or tags (opcodes 33, 38 and 39: a result, a
    /// prerequisite's result kept by its dependent, a job's tags; see `ResultsCodec`).
    static let resultsBodyVersion: UInt8 = 9
    /// The body version of every inbox record this build writes: it starts with `acknowledged` (42, the
    /// producer's boot and monotonic time, by which the owner merges the inbox files) and may hold
    /// `cancel_tagged` (43), both in inbox files only (FORMAT.md, *Producer inbox files*).
    static let producerOrderBodyVersion: UInt8 = 10
    /// The body version of a snapshot's first record when it says how many records the snapshot holds
    /// (`snapshot_extent`, 44), so that a snapshot cut short is corruption, not a smaller queue.
    static let snapshotExtentBodyVersion: UInt8 = 11
    /// The body version of an inbox record holding a producer's terms for the owner (`owner_attempts`, 45: the
    /// job takes the owner's attempt budget; `park_on_ingest`, 46: the job arrives parked), in inbox files only.
    static let producerTermsBodyVersion: UInt8 = 12
    /// The body version of records holding a job's own retry schedule or its starts (47 to 49; see `RetriesCodec`).
    static let retriesBodyVersion: UInt8 = 13
    /// The body version of records holding a change of an unfinished job's constraints (`set_constraints`, 50;
    /// see `ConstraintsCodec`).
    static let constraintsBodyVersion: UInt8 = 14
    // Which opcodes need which version, and the newest version read (`bodyVersion`): the opcode
    // table (Opcode.swift).

    /// The body version a record holding `operations` is written in: the lowest that can express them.
    static func version(for operations: [PlannedOperation]) -> UInt8 {
        var version = baseBodyVersion
        for index in operations.indices {
            version = max(version, opcode(of: operations[index].operation).minimumBodyVersion)
        }
        return version
    }

    static func encode(_ operations: [PlannedOperation]) -> [UInt8] {
        var payloadRanges: [Range<Int>] = []
        return encode(operations, payloadRanges: &payloadRanges)
    }

    /// Encodes a body and says where in it each enqueue's payload bytes lie, in order.
    ///
    /// - Parameter headroom: Bytes left in front of the body (zeroes), so that the frame
    ///   header can be written there and the body need not be copied behind it
    ///   (``LogWriter/append(frame:type:)``). The payload ranges are relative to the body.
    static func encode(
        _ operations: [PlannedOperation], payloadRanges: inout [Range<Int>],
        headroom: Int = 0
    ) -> [UInt8] {
        var capacity = 3 + headroom
        for index in operations.indices {
            let payloadCount = operations[index].payload?.count ?? 0
            switch operations[index].operation {
            case .enqueue(let op):
                capacity += 64 + op.id.utf8.count + op.kind.utf8.count + (op.uniqueKey?.utf8.count ?? 0) + payloadCount
            case .migrateJob(let job):
                capacity +=
                    96 + job.id.utf8.count + job.kind.utf8.count + (job.uniqueKey?.utf8.count ?? 0)
                    + (job.lastError?.utf8.count ?? 0) + (job.lease?.bootID.utf8.count ?? 0) + payloadCount
            default:
                capacity += 64
            }
        }
        var writer = ByteWriter(capacity: capacity)
        writer.writeRaw(repeatElement(0, count: headroom))
        writer.writeUInt8(version(for: operations))
        writer.writeVarint(UInt64(operations.count))
        // By index: a `for` over the array would copy each operation (and retain its strings) first.
        for index in operations.indices {
            encodeOperation(operations[index], into: &writer, payloadRanges: &payloadRanges, headroom: headroom)
        }
        return writer.bytes
    }

    /// Appends one operation (its opcode, then its fields) to `writer`, and where its payload bytes
    /// lie to `payloadRanges` (relative to the body: `headroom` bytes lie in front of it). The one
    /// encoding of an operation, for the log's bodies and the inbox files' (``InboxCodec``).
    static func encodeOperation(
        _ operation: PlannedOperation, into writer: inout ByteWriter, payloadRanges: inout [Range<Int>],
        headroom: Int
    ) {
        let start = writer.count
        defer {
            // The encoders below write each operation's opcode; the table says which it must be.
            assert(
                writer.bytes[start] == opcode(of: operation.operation).rawValue,
                "operation written with opcode \(writer.bytes[start])")
        }
        switch operation.operation {
        case .enqueue(let op):
            guard let payload = operation.payload else { preconditionFailure("an enqueue planned without its payload") }
            writer.writeUInt8(op.options.isEmpty ? Opcode.enqueue.rawValue : Opcode.enqueueWithOptions.rawValue)
            writer.writeString(op.id)
            writer.writeString(op.kind)
            writer.writeSignedVarint(op.priority)
            writer.writeSignedVarint(op.createdAt)
            writer.writeSignedVarint(op.runAt)
            writer.writeSignedVarint(op.maxAttempts)
            writer.writeOptionalString(op.uniqueKey)
            if !op.options.isEmpty {
                OptionsCodec.encodeOptional(op.options.constraints, into: &writer)
                OptionsCodec.encode(ids: op.options.dependencies, into: &writer)
                if let periodic = op.options.periodic {
                    writer.writeUInt8(1)
                    writer.writeVarint(UInt64(periodic.interval))
                    writer.writeVarint(UInt64(periodic.flex))
                } else {
                    writer.writeUInt8(0)
                }
            }
            writer.writeVarint(UInt64(payload.count))
            payloadRanges.append((writer.count - headroom)..<(writer.count - headroom + payload.count))
            // Through its buffer: one copy of the bytes, where appending `Data` as a collection goes byte by byte.
            payload.withUnsafeBytes { writer.writeRaw($0) }
        case .migrateJob(let job) where operation.payload != nil:
            if let range = MigrationCodec.encodeJob(job, payload: operation.payload, into: &writer) {
                payloadRanges.append((range.lowerBound - headroom)..<(range.upperBound - headroom))
            }
        default:
            encode(operation.operation, into: &writer)
        }
    }

    private static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .enqueue:
            preconditionFailure("an enqueue is encoded with its payload bytes, as a PlannedOperation")
        case .claim(let op):
            writer.writeUInt8(Opcode.claim.rawValue)
            writer.writeString(op.id)
            writer.writeUInt64(op.token)
            writer.writeSignedVarint(op.claimedAt)
            writer.writeSignedVarint(op.expiresAt)
            writer.writeVarint(op.monotonicExpiry)
            writer.writeString(op.bootID)
        case .renewLease(let id, let token, let expiresAt, let monotonicExpiry):
            writer.writeUInt8(Opcode.renewLease.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeSignedVarint(expiresAt)
            writer.writeVarint(monotonicExpiry)
        case .complete(let id, let token, let at):
            writer.writeUInt8(Opcode.complete.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeSignedVarint(at)
        case .fail(let id, let token, let at, let error, let nextRetryAt):
            writer.writeUInt8(Opcode.fail.rawValue)
            writer.writeString(id)
            writer.writeUInt64(token)
            writer.writeSignedVarint(at)
            writer.writeString(error)
            writer.writeOptionalSignedVarint(nextRetryAt)
        case .cancel(let id, let at):
            writer.writeUInt8(Opcode.cancel.rawValue)
            writer.writeString(id)
            writer.writeSignedVarint(at)
        case .retry(let id, let at):
            writer.writeUInt8(Opcode.retry.rawValue)
            writer.writeString(id)
            writer.writeSignedVarint(at)
        case .reschedule(let id, let runAt, let at):
            writer.writeUInt8(Opcode.reschedule.rawValue)
            writer.writeString(id)
            writer.writeSignedVarint(runAt)
            writer.writeSignedVarint(at)
        case .delete(let id):
            writer.writeUInt8(Opcode.delete.rawValue)
            writer.writeString(id)
        case .reclaim(let id, let at, let reason, let nextRetryAt):
            writer.writeUInt8(Opcode.reclaim.rawValue)
            writer.writeString(id)
            writer.writeSignedVarint(at)
            writer.writeString(reason)
            writer.writeOptionalSignedVarint(nextRetryAt)
        case .restore:
            preconditionFailure("a restore is encoded from its payload bytes, with SnapshotCodec")
        case .snapshot(let summary):
            SnapshotCodec.encode(summary, into: &writer)
        case .snapshotExtent(let records):
            SnapshotCodec.encodeExtent(records: records, into: &writer)
        case .expire(let id):
            writer.writeUInt8(Opcode.expire.rawValue)
            writer.writeString(id)
        case .migrationBegin, .migrateJob, .migrationRemove, .migrationCommit, .migrationsApplied, .abandon:
            MigrationCodec.encode(operation, into: &writer)
        case .nextOccurrence(let id, let at, let runAt):
            writer.writeUInt8(Opcode.nextOccurrence.rawValue)
            writer.writeString(id)
            writer.writeSignedVarint(at)
            writer.writeSignedVarint(runAt)
        case .park, .checkpoint, .restoreCheckpoint:
            ParkingCodec.encode(operation, into: &writer)
        case .release, .snooze, .stopReason:
            StopsCodec.encode(operation, into: &writer)
        case .pauseKind, .resumeKind, .setRateLimit, .rateWindow:
            KindControlCodec.encode(operation, into: &writer)
        case .result, .prerequisiteResult, .tags:
            ResultsCodec.encode(operation, into: &writer)
        case .retrySchedule, .starts:
            RetriesCodec.encode(operation, into: &writer)
        case .setConstraints:
            ConstraintsCodec.encode(operation, into: &writer)
        case .inboxIngested(let file, let offset):
            writer.writeUInt8(Opcode.inboxIngested.rawValue)
            writer.writeString(file)
            writer.writeVarint(UInt64(offset))
        }
    }

    /// Why a body could not be decoded.
    enum Failure: Error, Equatable {
        /// Written by a newer Spool (a body version this build does not know).
        case newerBodyVersion(UInt8)
        case malformed(String)
    }

    /// Decodes a body. `fileSequence` and `bodyOffset` say where the body lies
    /// in the log, so that enqueues can record where their payload is.
    static func decode(
        _ body: UnsafeRawBufferPointer, fileSequence: UInt64,
        bodyOffset: Int64
    ) throws(Failure) -> [LogOperation] {
        var decoder = try BodyDecoder(body, fileSequence: fileSequence, bodyOffset: bodyOffset)
        var operations: [LogOperation] = []
        operations.reserveCapacity(decoder.count)
        while let operation = try decoder.next() { operations.append(operation) }
        return operations
    }

    /// Decodes a body one operation at a time, so that a caller may use each as it comes
    /// instead of building the whole list (replay applies a snapshot's 1 MiB records so).
    /// ``decode(_:fileSequence:bodyOffset:)`` is this decoder run to the end.
    struct BodyDecoder {
        private var reader: ByteReader
        /// The body version, known readable.
        let version: UInt8
        /// The operations the body says it holds.
        let count: Int
        private var decoded = 0
        private let fileSequence: UInt64
        private let bodyOffset: Int64

        /// Reads the body version and operation count.
        init(_ body: UnsafeRawBufferPointer, fileSequence: UInt64, bodyOffset: Int64) throws(Failure) {
            var reader = ByteReader(body)
            let (version, count) = try TransactionCodec.failures { () throws -> (UInt8, Int) in
                let version = try reader.readUInt8()
                guard (baseBodyVersion...bodyVersion).contains(version) else {
                    if version > bodyVersion { throw Failure.newerBodyVersion(version) }
                    throw Failure.malformed("body version \(version) is not readable")
                }
                // Every operation takes at least two bytes, which bounds the count.
                return (version, try reader.readCount(atMost: reader.remaining / 2))
            }
            self.reader = reader
            self.version = version
            self.count = count
            self.fileSequence = fileSequence
            self.bodyOffset = bodyOffset
        }

        /// The next operation; `nil` after the last one, once no byte is left after it.
        mutating func next() throws(Failure) -> LogOperation? {
            guard decoded < count else {
                guard reader.isAtEnd else {
                    throw Failure.malformed("\(reader.remaining) bytes after the last operation")
                }
                return nil
            }
            let version = self.version
            let fileSequence = self.fileSequence
            let bodyOffset = self.bodyOffset
            var reader = self.reader
            defer { self.reader = reader }
            let operation = try TransactionCodec.failures { () throws -> LogOperation in
                try decodeOperation(&reader, fileSequence: fileSequence, bodyOffset: bodyOffset)
            }
            let needed = minimumBodyVersion(of: operation)
            if version < needed {
                throw Failure.malformed("opcode of body version \(needed) in a version \(version) body")
            }
            decoded += 1
            return operation
        }
    }

    /// Runs `body`, turning what it throws into a ``Failure``.
    @inline(__always)
    static func failures<T>(_ body: () throws -> T) throws(Failure) -> T {
        do {
            return try body()
        } catch let failure as Failure {
            throw failure
        } catch let error as DecodingError {
            throw Failure.malformed("\(error.reason) at body byte \(error.position)")
        } catch {
            throw Failure.malformed("\(error)")
        }
    }
}
