/// One request a producer recorded in its inbox file, as the producer writes it.
enum InboxRequest: Sendable {
    /// A job to enqueue, with the unique-key policy the owner resolves it by.
    case enqueue(NewEnqueue, policy: UniquePolicy)
    /// A request to cancel a job.
    case cancel(id: String, at: Int64)
}

/// One request read back from an inbox file: an enqueue's payload is where it lies in that file.
enum InboxEntry: Equatable, Sendable {
    case enqueue(LogOperation.Enqueue, policy: UniquePolicy)
    case cancel(id: String, at: Int64)
    /// The tags of the job whose enqueue is the entry before.
    case tags(id: String, tags: [String])
}

/// The body of an inbox record (FORMAT.md, *Producer inbox files*): a transaction body of version 8
/// holding only `enqueue` (1), `enqueue_with_options` (14), `cancel` (6) and `unique_policy` (41) —
/// of version 9 when it holds `tags` (38) too — each but `unique_policy` encoded exactly as in the log
/// (``TransactionCodec/encodeOperation(_:into:payloadRanges:headroom:)``).
///
/// ```
/// unique_policy := opcode(41) policy:u8     (1 replace, 2 append; right after the enqueue it qualifies)
/// tags          := as in the log            (after the enqueue it qualifies and its unique_policy)
/// ```
/// An enqueue without a `unique_policy` after it has policy keep.
enum InboxCodec {
    /// The byte of the `unique_policy` operation that follows `new`, or `nil` when none does: for
    /// policy keep, and for a job without a unique key (a policy qualifies a key; alone it means nothing).
    static func policyCode(of new: NewEnqueue, _ policy: UniquePolicy) -> UInt8? {
        new.uniqueKey == nil ? nil : code(of: policy)
    }

    /// The byte of each policy a `unique_policy` operation carries.
    static func code(of policy: UniquePolicy) -> UInt8? {
        switch policy {
        case .keep: return nil
        case .replace: return 1
        case .append: return 2
        }
    }

    /// Encodes `requests` as one body, behind `headroom` zero bytes (room for the frame header).
    static func encode(_ requests: [InboxRequest], headroom: Int = 0) -> [UInt8] {
        var capacity = headroom + 3
        for request in requests {
            if case .enqueue(let new, _) = request { capacity += 72 + new.id.utf8.count + new.payload.count }
        }
        var writer = ByteWriter(capacity: capacity)
        writer.writeRaw(repeatElement(0, count: headroom))
        var count = 0
        var tagged = false
        for request in requests {
            if case .enqueue(let new, let policy) = request {
                if policyCode(of: new, policy) != nil { count += 1 }
                if !new.tags.isEmpty {
                    count += 1
                    tagged = true
                }
            }
            count += 1
        }
        // The lowest version that holds the body's operations: 9 only with tags.
        writer.writeUInt8(tagged ? TransactionCodec.resultsBodyVersion : TransactionCodec.inboxBodyVersion)
        writer.writeVarint(UInt64(count))
        var ranges: [Range<Int>] = []
        for request in requests {
            switch request {
            case .enqueue(let new, let policy):
                TransactionCodec.encodeOperation(
                    .enqueue(new), into: &writer, payloadRanges: &ranges, headroom: headroom)
                if let code = policyCode(of: new, policy) {
                    writer.writeUInt8(TransactionCodec.Opcode.uniquePolicy.rawValue)
                    writer.writeUInt8(code)
                }
                if !new.tags.isEmpty {
                    TransactionCodec.encodeOperation(
                        .other(.tags(id: new.id, tags: new.tags)), into: &writer, payloadRanges: &ranges,
                        headroom: headroom)
                }
            case .cancel(let id, let at):
                TransactionCodec.encodeOperation(
                    .other(.cancel(id: id, at: at)), into: &writer, payloadRanges: &ranges, headroom: headroom)
            }
        }
        return writer.bytes
    }

    /// Decodes a body that lies at `bodyOffset` in its inbox file; each enqueue's payload location
    /// names that offset in the file (file sequence 0).
    static func decode(_ body: UnsafeRawBufferPointer, bodyOffset: Int64) throws(TransactionCodec.Failure)
        -> [InboxEntry]
    {
        try TransactionCodec.failures { () throws -> [InboxEntry] in
            var reader = ByteReader(body)
            let version = try reader.readUInt8()
            guard version == TransactionCodec.inboxBodyVersion || version == TransactionCodec.resultsBodyVersion else {
                if version > TransactionCodec.resultsBodyVersion {
                    throw TransactionCodec.Failure.newerBodyVersion(version)
                }
                throw TransactionCodec.Failure.malformed("inbox body version \(version)")
            }
            let count = try reader.readCount(atMost: reader.remaining / 2)
            var entries: [InboxEntry] = []
            for _ in 0..<count {
                var probe = reader
                if try probe.readUInt8() == TransactionCodec.Opcode.uniquePolicy.rawValue {
                    reader = probe
                    let code = try reader.readUInt8()
                    guard case .enqueue(let job, .keep)? = entries.last, job.uniqueKey != nil,
                        let policy: UniquePolicy = code == 1 ? .replace : code == 2 ? .append : nil
                    else {
                        throw TransactionCodec.Failure.malformed(
                            "unique_policy \(code) not after an enqueue with a key")
                    }
                    entries[entries.count - 1] = .enqueue(job, policy: policy)
                    continue
                }
                switch try TransactionCodec.decodeOperation(&reader, fileSequence: 0, bodyOffset: bodyOffset) {
                case .enqueue(let job): entries.append(.enqueue(job, policy: .keep))
                case .cancel(let id, let at): entries.append(.cancel(id: id, at: at))
                case .tags(let id, let tags):
                    guard version >= TransactionCodec.resultsBodyVersion, case .enqueue(let job, _)? = entries.last,
                        job.id == id
                    else {
                        throw TransactionCodec.Failure.malformed("tags not after the enqueue of their job")
                    }
                    entries.append(.tags(id: id, tags: tags))
                default: throw TransactionCodec.Failure.malformed("an operation a producer does not write")
                }
            }
            guard reader.isAtEnd else {
                throw TransactionCodec.Failure.malformed("\(reader.remaining) bytes after the last operation")
            }
            return entries
        }
    }
}
