/// Committing: a planned transaction encoded, appended and applied (the one path every change takes).
extension QueueEngine {
    /// Records `operations` as one transaction and applies it. Call with `lock` held.
    ///
    /// Every operation is judged by apply's own rules before anything is written, each in the state
    /// the ones before it leave (``QueueState/refusal(ofTransaction:)``): a refused request leaves no record.
    /// The change feed's subscriber `madeBy` is not told of the record's changes (see
    /// ``ChangeFeed/publish(jobIDs:madeBy:)``).
    func commit(_ operations: [PlannedOperation], madeBy: UInt64? = nil) throws -> UInt64 {
        if let failure = status.failure { throw failure }
        if let refusal = state.refusal(ofTransaction: operations) { throw refusal.error }
        return try append(operations, madeBy: madeBy)
    }

    /// Records operations that an ``EnqueuePlan`` judged by the same rules, as it planned them. Call with `lock` held.
    func commit(_ checked: CheckedOperations) throws -> UInt64 {
        try append(checked.operations)
    }

    /// Appends operations the rules take, as one record, and applies them.
    ///
    /// The operations applied are the planned ones, each enqueue pointing at
    /// where the encoder put its payload: exactly what decoding the record
    /// gives, which debug builds check on every commit.
    private func append(_ operations: [PlannedOperation], madeBy: UInt64? = nil) throws -> UInt64 {
        var payloadRanges: [Range<Int>] = []
        if let failure = status.failure { throw failure }
        // Encoded behind room for the frame header, so that the writer does not copy the body again.
        let frame = TransactionCodec.encode(
            operations, payloadRanges: &payloadRanges, headroom: LogFormat.frameHeaderSize)
        // The body as encoded, for the check below (debug builds only: the frame moves into the writer).
        var encodedBody: [UInt8] = []
        assert(
            {
                encodedBody = Array(frame[LogFormat.frameHeaderSize...])
                return true
            }())
        if self.writer.appendedEnd >= configuration.logFileSize { try rollOverWithoutWaiting() }
        let writer = self.writer
        let (lsn, bodyOffset) = try writer.append(frame: consume frame)
        compactionTrigger.recordAppended(enqueuesJob: operations.first?.operation.enqueuesJob ?? true)
        // Each operation is applied as planned, a payload's location put in; the list is kept for the debug check only.
        var recorded: [LogOperation] = []
        var payloads = 0
        // By index: a `for` over the array would copy each operation (and retain its strings) first.
        for index in operations.indices {
            var operation = operations[index].operation
            if let payload = operations[index].payload {
                let range = payloadRanges[payloads]
                payloads += 1
                operation = operation.locatingPayload(
                    at: PayloadLocation(
                        fileSequence: writer.fileSequence, offset: bodyOffset + Int64(range.lowerBound),
                        length: Int32(range.count), checksum: payload.withUnsafeBytes { CRC32C.checksum($0) }))
                if case .enqueue(let job) = operation {
                    // What its restore operation takes in a snapshot: the strings, the payload, ~30 bytes of fields.
                    compactionTrigger.jobEnqueued(
                        bytes: range.count + job.id.utf8.count + job.kind.utf8.count
                            + (job.uniqueKey?.utf8.count ?? 0) + 32)
                }
            }
            do {
                try state.apply(operation)
            } catch {
                // The last defence (the rules judged the whole transaction before the append, so this
                // means they and apply disagree): the record is appended and replay will refuse it. No trap:
                // the queue refuses every later write (the record must not become durable beside more),
                // and the caller gets the refusal.
                let failure = SpoolError(
                    .needsReopen,
                    "record \(lsn) was written but does not apply (\(error)): "
                        + "the queue refuses writes until it is reopened", path: path,
                    jobID: error.jobID.isEmpty ? nil : JobID(error.jobID))
                status.poison(with: failure)
                changes.publish(jobIDs: operations.map(\.jobID).filter { !$0.isEmpty } + state.takeCascadedIDs())
                throw failure
            }
            assert(
                {
                    recorded.append(operation)
                    return true
                }())
        }
        assert(
            Self.decodes(encodedBody, to: recorded, fileSequence: writer.fileSequence, bodyOffset: bodyOffset),
            "a record this build encoded does not decode to the operations it applies")
        // Jobs a cascade changed inside apply (dependents unblocked or cancelled) are published too.
        let cascaded = state.takeCascadedIDs()
        changes.publish(jobIDs: operations.map(\.jobID).filter { !$0.isEmpty } + cascaded, madeBy: madeBy)
        if progress.isTracking {
            // A job's progress is shown until it finishes or is removed.
            progress.forget(
                (operations.map(\.jobID) + cascaded).filter { state.jobs[$0].map { $0.state.isFinished } ?? true })
        }
        compactInBackgroundIfDue()
        return lsn
    }

    /// Whether `body` decodes to `operations` (the debug check of ``commit(_:)``).
    static func decodes(
        _ body: [UInt8], to operations: [LogOperation], fileSequence: UInt64,
        bodyOffset: Int64
    ) -> Bool {
        let decoded = try? body.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: fileSequence, bodyOffset: bodyOffset)
        }
        return decoded == operations
    }
}
