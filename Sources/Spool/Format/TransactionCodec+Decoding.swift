extension TransactionCodec {
    /// Decodes one operation at the reader's position (the log's bodies and the inbox files', ``InboxCodec``).
    static func decodeOperation(
        _ reader: inout ByteReader, fileSequence: UInt64,
        bodyOffset: Int64
    ) throws -> LogOperation {
        let rawOpcode = try reader.readUInt8()
        guard let opcode = Opcode(rawValue: rawOpcode) else { throw Failure.malformed("unknown opcode \(rawOpcode)") }
        switch opcode {
        case .enqueue, .enqueueWithOptions:
            let id = try reader.readString()
            let kind = try reader.readString()
            let priority = try Int64(reader.readPriority())
            let createdAt = try reader.readSignedVarint()
            let runAt = try reader.readSignedVarint()
            let maxAttempts = try Int64(reader.readMaxAttempts())
            let uniqueKey = try reader.readOptionalString()
            var options = EnqueueOptions()
            if opcode == .enqueueWithOptions {
                options.constraints = try OptionsCodec.decodeOptionalConstraints(&reader)
                options.dependencies = try OptionsCodec.decodeIDs(&reader)
                options.periodic = try OptionsCodec.decodeOptionalSchedule(&reader)
                guard !options.isEmpty else { throw Failure.malformed("an enqueue with options has none") }
            }
            let location = try reader.readPayload(fileSequence: fileSequence, bodyOffset: bodyOffset)
            return .enqueue(
                .init(
                    id: id, kind: kind, payload: location, priority: priority, createdAt: createdAt,
                    runAt: runAt, maxAttempts: maxAttempts, uniqueKey: uniqueKey, options: options))
        case .claim:
            return .claim(
                .init(
                    id: try reader.readString(), token: try reader.readUInt64(),
                    claimedAt: try reader.readSignedVarint(), expiresAt: try reader.readSignedVarint(),
                    monotonicExpiry: try reader.readVarint(), bootID: try reader.readString()))
        case .renewLease:
            return .renewLease(
                id: try reader.readString(), token: try reader.readUInt64(),
                expiresAt: try reader.readSignedVarint(), monotonicExpiry: try reader.readVarint())
        case .complete:
            return .complete(
                id: try reader.readString(), token: try reader.readUInt64(), at: try reader.readSignedVarint())
        case .fail:
            return .fail(
                id: try reader.readString(), token: try reader.readUInt64(), at: try reader.readSignedVarint(),
                error: try reader.readString(), nextRetryAt: try reader.readOptionalSignedVarint())
        case .cancel:
            return .cancel(id: try reader.readString(), at: try reader.readSignedVarint())
        case .retry:
            return .retry(id: try reader.readString(), at: try reader.readSignedVarint())
        case .reschedule:
            return .reschedule(
                id: try reader.readString(), runAt: try reader.readSignedVarint(),
                at: try reader.readSignedVarint())
        case .delete:
            return .delete(id: try reader.readString())
        case .reclaim:
            return .reclaim(
                id: try reader.readString(), at: try reader.readSignedVarint(),
                reason: try reader.readString(), nextRetryAt: try reader.readOptionalSignedVarint())
        case .restore, .restoreWithOptions:
            return .restore(
                try SnapshotCodec.decodeRestore(
                    &reader, withOptions: opcode == .restoreWithOptions,
                    fileSequence: fileSequence, bodyOffset: bodyOffset))
        case .snapshot:
            return .snapshot(try SnapshotCodec.decodeSummary(&reader))
        case .snapshotExtent:
            return .snapshotExtent(records: try reader.readUInt64())
        case .expire:
            return .expire(id: try reader.readString())
        case .migrationBegin, .migrateJob, .migrationRemove, .migrationCommit, .migrationsApplied, .abandon:
            return try MigrationCodec.decode(opcode, &reader, fileSequence: fileSequence, bodyOffset: bodyOffset)
        case .nextOccurrence:
            return .nextOccurrence(
                id: try reader.readString(), at: try reader.readSignedVarint(),
                runAt: try reader.readSignedVarint())
        case .park, .checkpoint, .restoreCheckpoint:
            return try ParkingCodec.decode(opcode, &reader)
        case .release, .snooze, .stopReason:
            return try StopsCodec.decode(opcode, &reader)
        case .pauseKind, .resumeKind, .setRateLimit, .rateWindow:
            return try KindControlCodec.decode(opcode, &reader)
        case .retryTable, .retryExponential, .starts:
            return try RetriesCodec.decode(opcode, &reader)
        case .setConstraints:
            return try ConstraintsCodec.decode(&reader)
        case .result, .prerequisiteResult, .tags:
            return try ResultsCodec.decode(opcode, &reader)
        case .inboxIngested:
            let file = try reader.readString()
            let offset = try reader.readVarint()
            guard offset <= UInt64(Int64.max) else { throw Failure.malformed("inbox offset \(offset) out of range") }
            return .inboxIngested(file: file, offset: Int64(offset))
        case .uniquePolicy, .acknowledged, .cancelTagged, .ownerAttempts, .parkOnIngest:
            // Read by the inbox decoder (InboxCodec) only: a log record never holds one.
            throw Failure.malformed("an operation of inbox files only (opcode \(rawOpcode)) outside one")
        }
    }
}
