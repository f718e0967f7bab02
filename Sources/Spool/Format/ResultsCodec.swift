/// The encoding of job results and tags (opcodes 33, 38 and 39, body version 9; FORMAT.md, *Results and tags*):
///
/// ```
/// 33 prerequisite_result  id: string, prerequisite: string, data: bytes
/// 38 tags                 id: string, count: varint, then count × tag: string
/// 39 result               id: string, data: bytes
/// ```
/// A `result` precedes the `complete` of its job in the same record (the success carries it to the
/// dependents); `tags` follows the enqueue of its job in the same record. A snapshot writes a job's
/// `result`, `tags` and `prerequisite_result`s right after its restore.
enum ResultsCodec {
    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        switch operation {
        case .result(let id, let data):
            writer.writeUInt8(TransactionCodec.Opcode.result.rawValue)
            writer.writeString(id)
            writer.writeBytes(data)
        case .prerequisiteResult(let id, let prerequisite, let data):
            writer.writeUInt8(TransactionCodec.Opcode.prerequisiteResult.rawValue)
            writer.writeString(id)
            writer.writeString(prerequisite)
            writer.writeBytes(data)
        case .tags(let id, let tags):
            writer.writeUInt8(TransactionCodec.Opcode.tags.rawValue)
            writer.writeString(id)
            writer.writeVarint(UInt64(tags.count))
            for tag in tags { writer.writeString(tag) }
        default:
            preconditionFailure("not a result or tags operation: \(operation)")
        }
    }

    /// The operations a snapshot writes after the restore of `job`: its tags, its result, the results
    /// of its prerequisites (in the order of their ids' UTF-8 bytes).
    /// - Returns: How many it wrote.
    static func encodeAnnexes(of job: StoredJob, into writer: inout ByteWriter) -> Int {
        var count = 0
        let tags = job.tags
        if !tags.isEmpty {
            encode(.tags(id: job.id, tags: tags), into: &writer)
            count += 1
        }
        if let result = job.result {
            encode(.result(id: job.id, data: result), into: &writer)
            count += 1
        }
        let fromPrerequisites = job.prerequisiteResults.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (prerequisite, data) in fromPrerequisites {
            encode(.prerequisiteResult(id: job.id, prerequisite: prerequisite, data: data), into: &writer)
            count += 1
        }
        return count
    }

    static func decode(_ opcode: TransactionCodec.Opcode, _ reader: inout ByteReader) throws(DecodingError)
        -> LogOperation
    {
        switch opcode {
        case .result:
            let id = try reader.readString()
            return .result(id: id, data: try readResult(&reader))
        case .prerequisiteResult:
            let id = try reader.readString()
            let prerequisite = try reader.readString()
            return .prerequisiteResult(id: id, prerequisite: prerequisite, data: try readResult(&reader))
        case .tags:
            let id = try reader.readString()
            let start = reader.position
            let count = try reader.readCount(atMost: JobLimits.maxTags)
            guard count > 0 else { throw DecodingError(reason: "a tags operation with no tag", position: start) }
            var tags: [String] = []
            tags.reserveCapacity(count)
            for _ in 0..<count {
                let tagStart = reader.position
                let tag = try reader.readString()
                guard !tag.isEmpty, tag.utf8.count <= JobLimits.maxTagBytes else {
                    throw DecodingError(
                        reason: "tag of \(tag.utf8.count) bytes is out of range (1 to \(JobLimits.maxTagBytes))",
                        position: tagStart)
                }
                if let last = tags.last, !last.utf8.lexicographicallyPrecedes(tag.utf8) {
                    throw DecodingError(reason: "tags not in ascending order of their bytes", position: tagStart)
                }
                tags.append(tag)
            }
            return .tags(id: id, tags: tags)
        default:
            preconditionFailure("not a result or tags opcode: \(opcode)")
        }
    }

    /// Result bytes: at most ``JobLimits/maxResultBytes``.
    private static func readResult(_ reader: inout ByteReader) throws(DecodingError) -> [UInt8] {
        let start = reader.position
        let data = try reader.readBytes()
        guard data.count <= JobLimits.maxResultBytes else {
            throw DecodingError(
                reason: "result of \(data.count) bytes is over \(JobLimits.maxResultBytes)", position: start)
        }
        return data
    }
}
