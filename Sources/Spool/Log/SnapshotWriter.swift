/// Writes a snapshot file: the queue's live jobs as `restore` operations after
/// one `snapshot` record, under a temporary name, synced, then renamed into
/// the log as `wal-<sequence>.log` and the directory synced.
///
/// Records are numbered from LSN 1 and each is its own commit group; none is
/// read before the whole file is durable under its final name, so no torn-tail
/// rule applies to it.
struct SnapshotWriter {
    let directory: String
    let fileSystem: any FileSystem
    let instanceID: [UInt8]
    let sequence: UInt64
    /// Runs the steps that change the directory (removing a leftover temporary file and creating it,
    /// the rename into the log) inside a ``ProcessSharing/shared`` owner's fence; the writing and
    /// syncing of the temporary file runs outside it (no other name than its own is touched).
    var fenced: (() throws -> Void) throws -> Void = { try $0() }

    /// A record's body is cut after this many bytes of operations (far below the maximum).
    static let recordTarget = 1 << 20
    /// Bytes gathered before a write.
    static let writeTarget = 4 << 20

    struct Outcome {
        /// Job id → where its payload was, and where it is in the snapshot.
        var moves: [String: (from: PayloadLocation, to: PayloadLocation)] = [:]
        var bytes: Int64 = 0
        var records = 0
    }

    /// Writes `jobs` (in sequence order) and `summary`, then, when the queue has applied a job
    /// migration, its number in a record of its own, then the `kindControls` operations (pauses, rate
    /// limits and windows) in a record of their own, then `inboxOffsets` (one `inbox_ingested` each) in
    /// one; `payload` reads a job's bytes (verified: a
    /// snapshot must not copy changed bytes under a fresh checksum).
    /// `beforeRename` runs once the file is synced, before it goes into the log; if it
    /// throws, the file is deleted instead.
    func write(
        summary: SnapshotSummary, appliedMigration: UInt64 = 0, kindControls: [LogOperation] = [],
        inboxOffsets: [String: Int64] = [:], jobs: [StoredJob],
        payload: (StoredJob) throws -> [UInt8], beforeRename: () throws -> Void = {}
    ) throws -> Outcome {
        let temporary = directory + "/" + QueueDirectoryLayout.snapshotTempName(sequence: sequence)
        var created: (any StorageFile)?
        try fenced {
            if try fileSystem.entryKind(at: temporary) != nil { try fileSystem.removeFile(at: temporary) }
            created = try fileSystem.openFile(at: temporary, mode: .createNew)
        }
        guard let file = created else { throw SpoolError(.ioFailure, "no snapshot file", path: temporary) }
        var outcome = Outcome()
        do {
            defer { file.close() }
            let seed = RecordFrame.checksumSeed(instanceID: instanceID)
            var pending = FileHeader(instanceID: instanceID, sequence: sequence, firstLSN: 1).encoded()
            var written: Int64 = 0
            var lsn: UInt64 = 0
            func flush() throws {
                guard !pending.isEmpty else { return }
                try file.write(pending, at: written)
                written += Int64(pending.count)
                pending = []
            }
            func appendRecord(_ operations: ByteWriter, count: Int, version: UInt8) -> Int64 {
                var body = ByteWriter(capacity: operations.count + 12)
                body.writeUInt8(version)
                body.writeVarint(UInt64(count))
                let prefix = body.count
                body.writeRaw(operations.bytes)
                lsn += 1
                let bodyOffset = RecordFrame.bodyStart(ofFrameAt: written + Int64(pending.count)) + Int64(prefix)
                body.bytes.withUnsafeBytes { raw in
                    _ = RecordFrame.append(
                        body: raw, type: .transaction, lsn: lsn, groupIndex: 0, seed: seed, to: &pending)
                }
                outcome.records += 1
                return bodyOffset
            }
            // The first record says how many records the snapshot holds (`snapshot_extent`), so that one cut
            // short reads as damage: written with 0 here, and again, the same size, once the count is known.
            func firstRecord(records: UInt64) -> ByteWriter {
                var first = ByteWriter()
                SnapshotCodec.encode(summary, into: &first)
                SnapshotCodec.encodeExtent(records: records, into: &first)
                return first
            }
            let firstRecordOffset = written + Int64(pending.count)
            _ = appendRecord(firstRecord(records: 0), count: 2, version: TransactionCodec.snapshotExtentBodyVersion)
            if appliedMigration > 0 {
                var applied = ByteWriter()
                MigrationCodec.encode(.migrationsApplied(number: appliedMigration), into: &applied)
                _ = appendRecord(applied, count: 1, version: TransactionCodec.migrationBodyVersion)
            }
            if !kindControls.isEmpty {
                // Paused kinds and rate limits with their windows, in a record of their own before the jobs.
                var controls = ByteWriter()
                for operation in kindControls { KindControlCodec.encode(operation, into: &controls) }
                _ = appendRecord(controls, count: kindControls.count, version: TransactionCodec.tagsBodyVersion)
            }
            if !inboxOffsets.isEmpty {
                // How far each producer inbox file that still exists was ingested, in one record.
                var ingested = ByteWriter()
                var ranges: [Range<Int>] = []
                for (file, offset) in inboxOffsets.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    TransactionCodec.encodeOperation(
                        PlannedOperation(.inboxIngested(file: file, offset: offset)), into: &ingested,
                        payloadRanges: &ranges,
                        headroom: 0)
                }
                _ = appendRecord(ingested, count: inboxOffsets.count, version: TransactionCodec.inboxBodyVersion)
            }

            var operations = ByteWriter(capacity: Self.recordTarget + 4096)
            var batch: [(job: StoredJob, range: Range<Int>)] = []
            // The batch's operations: its restores and the annexes that follow them.
            var operationCount = 0
            var version = TransactionCodec.compactionBodyVersion
            func sealBatch() throws {
                guard !batch.isEmpty else { return }
                let base = appendRecord(operations, count: operationCount, version: version)
                for (job, range) in batch {
                    // The bytes copied are the ones `payload` read and verified against the checksum.
                    outcome.moves[job.id] = (
                        job.payload,
                        PayloadLocation(
                            fileSequence: sequence,
                            offset: base + Int64(range.lowerBound),
                            length: Int32(range.count),
                            checksum: job.payload.checksum)
                    )
                }
                batch = []
                operationCount = 0
                version = TransactionCodec.compactionBodyVersion
                operations = ByteWriter(capacity: Self.recordTarget + 4096)
                if pending.count >= Self.writeTarget { try flush() }
            }
            for job in jobs {
                let range = SnapshotCodec.encodeRestore(job, payload: try payload(job), into: &operations)
                batch.append((job, range))
                operationCount += 1
                // The lowest body version that holds the batch: 3 when a job has options.
                if job.hasOptions { version = max(version, TransactionCodec.optionsBodyVersion) }
                // The parking annexes follow its job's restore (FORMAT.md, "Parked jobs and checkpoints").
                let annexes = ParkingCodec.encodeAnnexes(of: job, into: &operations)
                if annexes > 0 {
                    operationCount += annexes
                    version = max(version, TransactionCodec.parkingBodyVersion)
                }
                // The stop reason follows its job's restore (FORMAT.md, "Stops").
                if let reason = job.lastStopReason {
                    StopsCodec.encode(.stopReason(id: job.id, reason: reason), into: &operations)
                    operationCount += 1
                    version = max(version, TransactionCodec.stopsBodyVersion)
                }
                // Its tags, result and prerequisites' results follow its restore (FORMAT.md, "Results and tags").
                let kept = ResultsCodec.encodeAnnexes(of: job, into: &operations)
                if kept > 0 {
                    operationCount += kept
                    version = max(version, TransactionCodec.resultsBodyVersion)
                }
                // Its own retry schedule and its starts follow its restore (FORMAT.md, "Retry policies and starts").
                let retries = RetriesCodec.encodeAnnexes(of: job, into: &operations)
                if retries > 0 {
                    operationCount += retries
                    version = max(version, TransactionCodec.retriesBodyVersion)
                }
                if operations.count >= Self.recordTarget { try sealBatch() }
            }
            try sealBatch()
            try flush()
            var counted: [UInt8] = []
            var body = ByteWriter()
            body.writeUInt8(TransactionCodec.snapshotExtentBodyVersion)
            body.writeVarint(2)
            body.writeRaw(firstRecord(records: UInt64(outcome.records)).bytes)
            body.bytes.withUnsafeBytes { raw in
                _ = RecordFrame.append(body: raw, type: .transaction, lsn: 1, groupIndex: 0, seed: seed, to: &counted)
            }
            try file.write(counted, at: firstRecordOffset)
            try file.fullSync()
            outcome.bytes = written
            try beforeRename()
        } catch {
            try? fileSystem.removeFile(at: temporary)
            throw error
        }
        let final = directory + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)
        // Refused by the fence, the file stays a leftover `snap-*.tmp`, which the next owner's open removes.
        try fenced {
            try fileSystem.rename(from: temporary, to: final)
            try fileSystem.syncDirectory(at: directory)
        }
        return outcome
    }
}
