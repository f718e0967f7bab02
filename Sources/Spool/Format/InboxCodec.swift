/// What a producer's enqueue asks of the owner besides the job: how its unique key is resolved, whether it
/// takes the owner's attempt budget, and whether it arrives parked.
struct InboxTerms: Equatable, Sendable {
    /// How the owner resolves the job's unique key (`unique_policy`, 41; keep without one).
    var policy: UniquePolicy = .keep
    /// The job named no attempt budget: the owner gives it its own configuration's (`owner_attempts`, 45).
    var ownerAttempts = false
    /// The job arrives parked, its work started by the producer (`park_on_ingest`, 46).
    var park: Park?

    /// A key and a deadline (ms) to park a job under as the owner ingests it.
    struct Park: Equatable, Sendable {
        var key: String
        var deadline: Int64
    }

    /// Whether the terms need body version 12 (``TransactionCodec/producerTermsBodyVersion``).
    var needsTermsVersion: Bool { ownerAttempts || park != nil }
}

/// One request a producer recorded in its inbox file, as the producer writes it.
enum InboxRequest: Sendable {
    /// A job to enqueue, with the terms the owner ingests it by.
    case enqueue(NewEnqueue, InboxTerms)
    /// A request to cancel a job.
    case cancel(id: String, at: Int64)
    /// A request to cancel every unfinished job carrying a tag when the owner ingests it.
    case cancelTagged(tag: String, at: Int64)
}

/// One request read back from an inbox file: an enqueue's payload is where it lies in that file.
enum InboxEntry: Equatable, Sendable {
    case enqueue(LogOperation.Enqueue, InboxTerms)
    case cancel(id: String, at: Int64)
    /// The tags of the job whose enqueue is the entry before.
    case tags(id: String, tags: [String])
    /// The own retry schedule of the job whose enqueue (or whose tags) is the entry before.
    case retrySchedule(id: String, RetryPolicy.Schedule)
    case cancelTagged(tag: String, at: Int64)
}

/// When a producer's record was acknowledged (`acknowledged`, opcode 42): read while the producer held
/// its file's lock, on a clock every process of the machine shares and that counts through sleep
/// (``Platform/monotonicNanoseconds()``). The owner merges the inbox files by it (``InboxMerge``).
struct InboxStamp: Equatable, Hashable, Sendable {
    /// The boot the monotonic reading belongs to (``SpoolClock/bootIdentifier()``).
    var bootID: String
    /// Nanoseconds on the boot's monotonic clock.
    var monotonic: UInt64
    /// The wall-clock time, in ms: what inspection shows as "acknowledged at"; orders boots, never records of one boot.
    var at: Int64
}

/// One inbox record's body read back: its stamp (absent in records of body versions 8 and 9, written by
/// builds before it) and its requests.
struct InboxBody: Equatable, Sendable {
    var stamp: InboxStamp?
    var entries: [InboxEntry]
}

/// The body of an inbox record (FORMAT.md, *Producer inbox files*): a transaction body of version 10
/// starting with `acknowledged` (42), then `enqueue` (1), `enqueue_with_options` (14), `cancel` (6),
/// `cancel_tagged` (43), `unique_policy` (41) and `tags` (38), each of the log's encoded exactly as in
/// the log (``TransactionCodec/encodeOperation(_:into:payloadRanges:headroom:)``); of version 12 when it
/// holds `owner_attempts` (45) or `park_on_ingest` (46). Bodies of versions 8 and 9 (builds before the
/// stamp) are read too.
///
/// ```
/// acknowledged   := opcode(42) boot_id:string monotonic:varint at:svarint   (first, in versions 10 to 13)
/// cancel_tagged  := opcode(43) tag:string at:svarint                        (versions 10 to 13)
/// unique_policy  := opcode(41) policy:u8     (1 replace, 2 append; right after the enqueue it qualifies)
/// owner_attempts := opcode(45)               (versions 12 and 13; after the enqueue and its unique_policy)
/// park_on_ingest := opcode(46) key:string deadline:svarint   (versions 12 and 13; after those, before the tags)
/// tags           := as in the log            (after the enqueue it qualifies and the operations above)
/// retry_table, retry_exponential := as in the log   (version 13; after the enqueue's tags, or the above)
/// ```
/// An enqueue without a `unique_policy` after it has policy keep.
enum InboxCodec {
    /// The byte of the `unique_policy` operation that follows `new`, or `nil` when none does: for
    /// policy keep, and for a job without a unique key (a policy qualifies a key; alone it means nothing).
    static func policyCode(of new: NewEnqueue, _ policy: UniquePolicy) -> UInt8? {
        new.job.uniqueKey == nil ? nil : code(of: policy)
    }

    /// The operations after an enqueue that its terms add (not counting its `unique_policy` and `tags`).
    private static func termOperations(_ terms: InboxTerms) -> Int {
        (terms.ownerAttempts ? 1 : 0) + (terms.park == nil ? 0 : 1)
    }

    /// The byte of each policy a `unique_policy` operation carries.
    static func code(of policy: UniquePolicy) -> UInt8? {
        switch policy {
        case .keep: return nil
        case .replace: return 1
        case .append: return 2
        }
    }

    /// Encodes `requests` stamped with `stamp` as one body, behind `headroom` zero bytes (room for the
    /// frame header). Without a stamp, as builds before it wrote (version 8, or 9 with tags): the
    /// tests write such records, this build's producers never do.
    static func encode(_ requests: [InboxRequest], stamp: InboxStamp?, headroom: Int = 0) -> [UInt8] {
        var capacity = headroom + 24 + (stamp?.bootID.utf8.count ?? 0)
        var count = stamp == nil ? 0 : 1
        var tagged = false
        var withTerms = false
        var withRetries = false
        for request in requests {
            count += 1
            switch request {
            case .enqueue(let new, let terms):
                capacity += 72 + new.job.id.utf8.count + new.payload.count + (terms.park?.key.utf8.count ?? 0)
                if policyCode(of: new, terms.policy) != nil { count += 1 }
                count += termOperations(terms)
                withTerms = withTerms || terms.needsTermsVersion
                if !new.tags.isEmpty {
                    count += 1
                    tagged = true
                }
                if new.retrySchedule != nil {
                    count += 1
                    withRetries = true
                    capacity += 16 + new.job.id.utf8.count + 10 * RetriesCodec.maxTableDelays
                }
            case .cancel(let id, _): capacity += 16 + id.utf8.count
            case .cancelTagged(let tag, _):
                precondition(stamp != nil, "cancel_tagged exists in stamped records only")
                capacity += 16 + tag.utf8.count
            }
        }
        var writer = ByteWriter(capacity: capacity)
        writer.writeRaw(repeatElement(0, count: headroom))
        if let stamp {
            writer.writeUInt8(
                withRetries
                    ? TransactionCodec.retriesBodyVersion
                    : withTerms ? TransactionCodec.producerTermsBodyVersion : TransactionCodec.producerOrderBodyVersion)
            writer.writeVarint(UInt64(count))
            writer.writeUInt8(TransactionCodec.Opcode.acknowledged.rawValue)
            writer.writeString(stamp.bootID)
            writer.writeVarint(stamp.monotonic)
            writer.writeSignedVarint(stamp.at)
        } else {
            precondition(!withTerms && !withRetries, "terms and retry schedules exist in stamped records only")
            writer.writeUInt8(tagged ? TransactionCodec.resultsBodyVersion : TransactionCodec.inboxBodyVersion)
            writer.writeVarint(UInt64(count))
        }
        var ranges: [Range<Int>] = []
        for request in requests {
            switch request {
            case .enqueue(let new, let terms):
                TransactionCodec.encodeOperation(
                    new.planned, into: &writer, payloadRanges: &ranges, headroom: headroom)
                if let code = policyCode(of: new, terms.policy) {
                    writer.writeUInt8(TransactionCodec.Opcode.uniquePolicy.rawValue)
                    writer.writeUInt8(code)
                }
                if terms.ownerAttempts { writer.writeUInt8(TransactionCodec.Opcode.ownerAttempts.rawValue) }
                if let park = terms.park {
                    writer.writeUInt8(TransactionCodec.Opcode.parkOnIngest.rawValue)
                    writer.writeString(park.key)
                    writer.writeSignedVarint(park.deadline)
                }
                if !new.tags.isEmpty {
                    TransactionCodec.encodeOperation(
                        PlannedOperation(.tags(id: new.job.id, tags: new.tags)), into: &writer, payloadRanges: &ranges,
                        headroom: headroom)
                }
                if let schedule = new.retrySchedule {
                    TransactionCodec.encodeOperation(
                        PlannedOperation(.retrySchedule(id: new.job.id, schedule)), into: &writer,
                        payloadRanges: &ranges,
                        headroom: headroom)
                }
            case .cancel(let id, let at):
                TransactionCodec.encodeOperation(
                    PlannedOperation(.cancel(id: id, at: at)), into: &writer, payloadRanges: &ranges, headroom: headroom
                )
            case .cancelTagged(let tag, let at):
                writer.writeUInt8(TransactionCodec.Opcode.cancelTagged.rawValue)
                writer.writeString(tag)
                writer.writeSignedVarint(at)
            }
        }
        return writer.bytes
    }

    /// Decodes a body that lies at `bodyOffset` in its inbox file; each enqueue's payload location
    /// names that offset in the file (file sequence 0).
    static func decode(_ body: UnsafeRawBufferPointer, bodyOffset: Int64) throws(TransactionCodec.Failure)
        -> InboxBody
    {
        try TransactionCodec.failures { () throws -> InboxBody in
            var reader = ByteReader(body)
            let version = try reader.readUInt8()
            let readable = TransactionCodec.inboxBodyVersion...TransactionCodec.retriesBodyVersion
            guard readable.contains(version) else {
                if version > readable.upperBound { throw TransactionCodec.Failure.newerBodyVersion(version) }
                throw TransactionCodec.Failure.malformed("inbox body version \(version)")
            }
            let stamped = version >= TransactionCodec.producerOrderBodyVersion
            let count = try reader.readCount(atMost: reader.remaining / 2)
            var decoded = InboxBody(stamp: nil, entries: [])
            for index in 0..<count {
                var probe = reader
                let opcode = try probe.readUInt8()
                let isStamp = opcode == TransactionCodec.Opcode.acknowledged.rawValue
                guard stamped ? (index == 0) == isStamp : !isStamp else {
                    throw TransactionCodec.Failure.malformed(
                        stamped
                            ? "an inbox record of version \(version) does not start with acknowledged"
                            : "acknowledged in an inbox record of version \(version)")
                }
                switch opcode {
                case TransactionCodec.Opcode.acknowledged.rawValue:
                    reader = probe
                    decoded.stamp = InboxStamp(
                        bootID: try reader.readString(), monotonic: try reader.readVarint(),
                        at: try reader.readSignedVarint())
                case TransactionCodec.Opcode.cancelTagged.rawValue:
                    guard stamped else {
                        throw TransactionCodec.Failure.malformed(
                            "cancel_tagged in an inbox record of version \(version)")
                    }
                    reader = probe
                    let tag = try reader.readString()
                    guard !tag.isEmpty, tag.utf8.count <= JobLimits.maxTagBytes else {
                        throw TransactionCodec.Failure.malformed(
                            "cancel_tagged with a tag of \(tag.utf8.count) bytes (1 to \(JobLimits.maxTagBytes))")
                    }
                    decoded.entries.append(.cancelTagged(tag: tag, at: try reader.readSignedVarint()))
                case TransactionCodec.Opcode.uniquePolicy.rawValue:
                    reader = probe
                    let code = try reader.readUInt8()
                    guard case .enqueue(let job, var terms)? = decoded.entries.last, job.uniqueKey != nil,
                        terms == InboxTerms(),
                        let policy: UniquePolicy = code == 1 ? .replace : code == 2 ? .append : nil
                    else {
                        throw TransactionCodec.Failure.malformed(
                            "unique_policy \(code) not after an enqueue with a key")
                    }
                    terms.policy = policy
                    decoded.entries[decoded.entries.count - 1] = .enqueue(job, terms)
                case TransactionCodec.Opcode.ownerAttempts.rawValue:
                    guard version >= TransactionCodec.producerTermsBodyVersion,
                        case .enqueue(let job, var terms)? = decoded.entries.last, !terms.ownerAttempts,
                        terms.park == nil
                    else {
                        throw TransactionCodec.Failure.malformed(
                            "owner_attempts not after an enqueue, or in version \(version)")
                    }
                    reader = probe
                    terms.ownerAttempts = true
                    decoded.entries[decoded.entries.count - 1] = .enqueue(job, terms)
                case TransactionCodec.Opcode.parkOnIngest.rawValue:
                    guard version >= TransactionCodec.producerTermsBodyVersion,
                        case .enqueue(let job, var terms)? = decoded.entries.last, terms.park == nil
                    else {
                        throw TransactionCodec.Failure.malformed(
                            "park_on_ingest not after an enqueue, or in version \(version)")
                    }
                    reader = probe
                    let key = try reader.readString()
                    guard !key.isEmpty, key.utf8.count <= JobLimits.maxParkKeyBytes else {
                        throw TransactionCodec.Failure.malformed(
                            "park_on_ingest with a key of \(key.utf8.count) bytes (1 to \(JobLimits.maxParkKeyBytes))")
                    }
                    terms.park = InboxTerms.Park(key: key, deadline: try reader.readSignedVarint())
                    decoded.entries[decoded.entries.count - 1] = .enqueue(job, terms)
                default:
                    try decodeShared(&reader, version: version, bodyOffset: bodyOffset, into: &decoded.entries)
                }
            }
            guard reader.isAtEnd else {
                throw TransactionCodec.Failure.malformed("\(reader.remaining) bytes after the last operation")
            }
            return decoded
        }
    }

    /// Decodes one of the operations an inbox record shares with the log (1, 14, 6, 38).
    private static func decodeShared(
        _ reader: inout ByteReader, version: UInt8, bodyOffset: Int64, into entries: inout [InboxEntry]
    ) throws {
        switch try TransactionCodec.decodeOperation(&reader, fileSequence: 0, bodyOffset: bodyOffset) {
        case .enqueue(let job): entries.append(.enqueue(job, InboxTerms()))
        case .cancel(let id, let at): entries.append(.cancel(id: id, at: at))
        case .tags(let id, let tags):
            guard version >= TransactionCodec.resultsBodyVersion, case .enqueue(let job, _)? = entries.last,
                job.id == id
            else {
                throw TransactionCodec.Failure.malformed("tags not after the enqueue of their job")
            }
            entries.append(.tags(id: id, tags: tags))
        case .retrySchedule(let id, let schedule):
            guard version >= TransactionCodec.retriesBodyVersion else {
                throw TransactionCodec.Failure.malformed("a retry schedule in an inbox record of version \(version)")
            }
            switch entries.last {
            case .enqueue(let job, _)? where job.id == id: break
            case .tags(let tagged, _)? where tagged == id: break
            default: throw TransactionCodec.Failure.malformed("a retry schedule not after the enqueue of its job")
            }
            entries.append(.retrySchedule(id: id, schedule))
        default: throw TransactionCodec.Failure.malformed("an operation a producer does not write")
        }
    }
}
