/// The encoding of a change of an unfinished job's constraints (opcode 50, body version 14; FORMAT.md,
/// *Changing a job's constraints*):
///
/// ```
/// 50 set_constraints  id: string, constraints: opt<constraints>
/// ```
/// `constraints` is encoded exactly as an enqueue's (``OptionsCodec``): absent when the job requires
/// nothing, present and not empty otherwise.
enum ConstraintsCodec {
    static func encode(_ operation: LogOperation, into writer: inout ByteWriter) {
        guard case .setConstraints(let id, let constraints) = operation else {
            preconditionFailure("not a set_constraints operation: \(operation)")
        }
        writer.writeUInt8(TransactionCodec.Opcode.setConstraints.rawValue)
        writer.writeString(id)
        OptionsCodec.encodeOptional(constraints, into: &writer)
    }

    static func decode(_ reader: inout ByteReader) throws -> LogOperation {
        let id = try reader.readString()
        return .setConstraints(id: id, constraints: try OptionsCodec.decodeOptionalConstraints(&reader))
    }
}
