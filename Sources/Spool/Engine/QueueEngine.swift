#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch

/// The live path: checks a request against the state, records it, applies it.
///
/// Each mutating method, under `lock`, validates the request, encodes its
/// operations as one record, appends it to the ``LogWriter``, then decodes that
/// same record and applies it with ``QueueState/apply(_:)`` — the function
/// replay uses — so the live state is exactly what a replay of the log gives.
/// It returns the record's LSN; the public API waits for that LSN to be
/// durable before it returns to the caller. Queries read the state under the
/// lock; they may see a change whose sync is still in progress.
final class QueueEngine: @unchecked Sendable {
    // @unchecked: `state` and `isClosed` are guarded by `lock`, `activeWriter`
    // by `writerLock` (and changed only with `lock` held too); the other stored
    // properties are immutable or thread-safe themselves.

    let path: String
    let configuration: Configuration
    /// The writer of the active log file. A roll-over replaces it; callers
    /// waiting for an LSN of the previous file may use either, since the
    /// previous file's records are all durable before the new writer exists.
    var writer: LogWriter { writerLock.withLock { activeWriter } }
    private var activeWriter: LogWriter
    private let writerLock = Lock()
    private let directory: QueueDirectory
    private let instanceID: [UInt8]
    /// Handles of the files before the active one, for payload reads.
    let segmentReaders: SegmentReaders
    /// Set during init only; immutable afterwards.
    private(set) var recoveryReport: RecoveryReport
    private let directoryLock: any DirectoryLock
    /// Publishes the ids of the jobs each committed transaction changed.
    let changes = ChangeFeed()
    private let lock = Lock()
    private var state: QueueState
    private var isClosed = false
    /// One compaction at a time.
    private let compactionLock = Lock()
    /// True until init returns: no background compaction starts while open migrates and reclaims jobs.
    private var isOpening = true
    /// Set when a roll-over or a compaction failed half way; every later write fails with it until a reopen.
    private var writeFailure: SpoolError?

    // Automatic compaction (see ``AutoCompaction``); guarded by `lock`.
    /// Bytes (up to the end of the last record) of each log file before the active one.
    private var retiredFileBytes: [UInt64: Int64] = [:]
    /// The sum of `retiredFileBytes`.
    private var retiredBytes: Int64 = 0
    /// The log's bytes just after the last compaction finished.
    private var bytesAfterCompaction: Int64 = 0
    /// The estimated bytes one live job takes in a snapshot: measured by the last
    /// compaction, moved towards the size of each new job's enqueue meanwhile.
    private var averageJobBytes: Double = 128
    /// Whether a background compaction is scheduled or running.
    private var backgroundCompactionScheduled = false
    /// The error of the last background compaction that failed (the queue refuses writes after it).
    private var lastBackgroundCompactionError: SpoolError?
    /// Background compactions that wrote a snapshot since open.
    private var completedBackgroundCompactions = 0
    var backgroundCompactionCount: Int { lock.withLock { completedBackgroundCompactions } }
    private let backgroundCompactions = DispatchGroup()
    private let backgroundQueue = DispatchQueue(label: "spool.compaction")

    private var clock: any SpoolClock { configuration.clock }

    init(path: String, configuration: Configuration) throws {
        guard (1...JobLimits.maxPayloadBytes).contains(configuration.maximumPayloadSize) else {
            throw SpoolError.invalidArgument("maximumPayloadSize must be from 1 to \(JobLimits.maxPayloadBytes)")
        }
        guard configuration.leaseDuration > 0, configuration.leaseDuration.isFinite else {
            throw SpoolError.invalidArgument("leaseDuration must be positive")
        }
        guard configuration.segmentSize > Int64(LogFormat.fileHeaderSize) else {
            throw SpoolError.invalidArgument("segmentSize must be larger than a file header")
        }
        self.path = path
        self.configuration = configuration
        directory = QueueDirectory(path: path, fileSystem: configuration.fileSystem)
        segmentReaders = SegmentReaders(directory: path, fileSystem: configuration.fileSystem)
        // Migration settings need no state: invalid ones are refused before the directory is touched,
        // and a queue migrated further than this build knows before anything in it is repaired.
        let highestMigration = try Self.checkMigrationNumbers(configuration.migrations)
        let opened = try directory
            .openForWriting(mode: configuration.recoveryMode, createIfMissing: configuration.createIfMissing,
                            preallocationChunk: configuration.preallocationChunk) { replayed in
                try Self.refuseNewerMigrations(applied: replayed.appliedMigration, highest: highestMigration, path: path)
            }
        activeWriter = opened.writer
        instanceID = opened.replay.instanceID ?? []
        directoryLock = opened.lock
        state = opened.replay.state
        recoveryReport = opened.replay.report
        do {
            let activeSequence = opened.writer.fileSequence
            for file in try LogReplay.logFiles(in: path, fileSystem: configuration.fileSystem)
                where file.sequence < activeSequence {
                let handle = try configuration.fileSystem.openFile(at: file.path, mode: .readOnly)
                defer { handle.close() }
                let size = try handle.size()
                retiredFileBytes[file.sequence] = size
                retiredBytes += size
            }
            recoveryReport.abandonedMigrations = opened.replay.abandonedMigrations
            // Migrations first: the jobs then are as this build expects them, for the steps after.
            let (migrated, migrationLSN) = try runMigrations()
            if let migrationLSN { try writer.waitUntilDurable(migrationLSN) }
            recoveryReport.appliedMigrations = migrated
            let (unrunnable, unrunnableLSN) = try abandonUnrunnableJobs()
            if let unrunnableLSN { try writer.waitUntilDurable(unrunnableLSN) }
            recoveryReport.unrunnableJobs = unrunnable
            let (reclaimed, lsn) = try reclaimRunningJobsAtOpen()
            if let lsn { try writer.waitUntilDurable(lsn) }
            recoveryReport.reclaimedJobs = reclaimed
            lock.withLock { isOpening = false }
        } catch {
            isClosed = true
            try? writer.close()
            directoryLock.release()
            throw error
        }
    }

    // MARK: Committing

    /// Records `operations` as one transaction and applies it. Call with `lock` held.
    ///
    /// The operations applied are the planned ones, each enqueue pointing at
    /// where the encoder put its payload: exactly what decoding the record
    /// gives, which debug builds check on every commit.
    private func commit(_ operations: [PlannedOperation]) throws -> UInt64 {
        var payloadRanges: [Range<Int>] = []
        if let writeFailure { throw writeFailure }
        let body = TransactionCodec.encode(operations, payloadRanges: &payloadRanges)
        if activeWriter.appendedEnd >= configuration.segmentSize { try rollOver() }
        let writer = activeWriter
        let (lsn, bodyOffset) = try writer.append(body)
        var recorded: [Operation] = []
        recorded.reserveCapacity(operations.count)
        var enqueues = 0
        for planned in operations {
            switch planned {
            case .enqueue(let new):
                let range = payloadRanges[enqueues]
                enqueues += 1
                // What its restore operation takes in a snapshot: the strings, the payload, ~30 bytes of fields.
                let jobBytes = Double(range.count + new.id.utf8.count + new.kind.utf8.count
                                      + (new.uniqueKey?.utf8.count ?? 0) + 32)
                averageJobBytes += (jobBytes - averageJobBytes) / 64
                recorded.append(.enqueue(.init(
                    id: new.id, kind: new.kind,
                    payload: PayloadLocation(fileSequence: writer.fileSequence, offset: bodyOffset + Int64(range.lowerBound),
                                             length: Int32(range.count)),
                    priority: new.priority, createdAt: new.createdAt, runAt: new.runAt, maxAttempts: new.maxAttempts,
                    uniqueKey: new.uniqueKey, options: new.options)))
            case .migrateJob(var job, let payload):
                if payload != nil {
                    let range = payloadRanges[enqueues]
                    enqueues += 1
                    job.payload = PayloadLocation(fileSequence: writer.fileSequence,
                                                  offset: bodyOffset + Int64(range.lowerBound), length: Int32(range.count))
                }
                recorded.append(.migrateJob(job))
            case .other(let operation):
                recorded.append(operation)
            }
        }
        assert(Self.decodes(body, to: recorded, fileSequence: writer.fileSequence, bodyOffset: bodyOffset),
               "a record this build encoded does not decode to the operations it applies")
        for operation in recorded {
            do {
                try state.apply(operation)
            } catch {
                preconditionFailure("the live path validated an operation that apply refuses: \(error)")
            }
        }
        // Jobs a cascade changed inside apply (dependents unblocked or cancelled) are published too.
        changes.publish(jobIDs: recorded.lazy.map(\.jobID).filter { !$0.isEmpty } + state.takeCascadedIDs())
        if !backgroundCompactionScheduled, writeFailure == nil, needsCompaction() {
            startBackgroundCompaction()
        }
        return lsn
    }

    // MARK: Automatic compaction

    /// The bytes of the log files, up to the end of the last record of the active one. Call with `lock` held.
    private var logBytes: Int64 { retiredBytes + activeWriter.appendedEnd }

    /// Whether the log is due for a compaction by ``Configuration/autoCompaction``. O(1); call with `lock` held.
    private func needsCompaction() -> Bool {
        // A snapshot cannot hold a migration half written: none starts until its commit is applied.
        guard state.pendingMigration == nil, !isOpening, let limit = compactionLimit else { return false }
        return logBytes > limit
    }

    /// The log's bytes past which automatic compaction starts (`nil`: off). O(1); call with `lock` held.
    private var compactionLimit: Int64? {
        guard let auto = configuration.autoCompaction else { return nil }
        let liveJobs = state.enqueuedCount + state.runningCount + state.failedCount
        let live = Double(liveJobs) * averageJobBytes
        let limit = (1 + max(0, auto.obsoleteRatio)) * max(live, Double(bytesAfterCompaction))
        return max(auto.minimumLogBytes - 1, Int64(min(limit, Double(Int64.max / 2))))
    }

    /// How many more bytes the log may take before automatic compaction starts
    /// (`nil`: off, or a compaction is under way), for the benchmark's worst case.
    var bytesBeforeAutoCompaction: Int64? {
        lock.withLock {
            guard !backgroundCompactionScheduled, let limit = compactionLimit else { return nil }
            return limit - logBytes
        }
    }

    /// Starts one compaction on the background queue. Call with `lock` held.
    private func startBackgroundCompaction() {
        backgroundCompactionScheduled = true
        backgroundCompactions.enter()
        backgroundQueue.async { [self] in
            defer { backgroundCompactions.leave() }
            var failure: SpoolError?
            var compacted = false
            do {
                compacted = try compact(onlyIfNeeded: true) != nil
            } catch let error as SpoolError {
                if error.code != .closed { failure = error }
            } catch {
                failure = SpoolError(.ioFailure, "a background compaction failed: \(error)", path: path)
            }
            lock.withLock {
                if let failure { lastBackgroundCompactionError = failure }
                if compacted { completedBackgroundCompactions += 1 }
                backgroundCompactionScheduled = false
            }
        }
    }

    /// Waits until no background compaction is scheduled or running (for tests and close);
    /// returns the error of the last one that failed, if any.
    @discardableResult
    func waitForBackgroundCompaction() -> SpoolError? {
        backgroundCompactions.wait()
        return lock.withLock { lastBackgroundCompactionError }
    }

    /// The log's bytes as automatic compaction counts them (up to the end of each file's last record).
    var currentLogBytes: Int64 { lock.withLock { logBytes } }

    /// Moves the log to a new file, `wal-<n+1>.log`. Call with `lock` held.
    ///
    /// It happens here, between two records and under the engine lock that
    /// every append holds, so no commit group can span two files and no record
    /// can be appended meanwhile. The old file's records are all made durable
    /// first, so that only the new (last) file can ever end in a torn group;
    /// then the new file is created with its header synced and the directory
    /// synced, before any record goes into it. A crash before that leaves a
    /// file shorter than its header (or zeroed), which open removes.
    ///
    /// - Returns: The sequence number of the new file.
    /// - Parameter skipping: File numbers left free between the old file and the new one (1 for a snapshot).
    /// - Returns: The LSN of the last record in the old file.
    @discardableResult
    func rollOver(skipping: UInt64 = 0) throws -> UInt64 {
        if let writeFailure { throw writeFailure }
        let old = activeWriter
        let lastLSN = try old.retire()
        let sequence = old.fileSequence + 1 + skipping
        let file: any StorageFile
        do {
            file = try directory.openNewLogFile(sequence: sequence, instanceID: instanceID)
        } catch let error as SpoolError {
            // The old writer refuses appends now and the new file may be half made: only a reopen repairs it.
            writeFailure = SpoolError(.needsReopen, "creating the next log file failed (\(error)); reopen the queue",
                                         path: error.path, errno: error.errno, operation: error.operation)
            throw error
        }
        let next = LogWriter(file: file, fileSequence: sequence, seed: old.seed, end: Int64(LogFormat.fileHeaderSize),
                             lastLSN: lastLSN, preallocationChunk: configuration.preallocationChunk)
        writerLock.withLock { activeWriter = next }
        retiredFileBytes[old.fileSequence] = old.appendedEnd
        retiredBytes += old.appendedEnd
        return lastLSN
    }

    /// Blocks until record `lsn` is durable. The writer is looked up after
    /// `lsn` was returned, so a roll-over in between cannot send the wait to a
    /// writer that never held the record.
    func waitUntilDurable(_ lsn: UInt64) throws {
        try writer.waitUntilDurable(lsn)
    }

    /// Suspends until record `lsn` is durable (see the blocking variant).
    func waitUntilDurable(_ lsn: UInt64) async throws {
        try await writer.waitUntilDurable(lsn)
    }

    // MARK: Compaction

    /// Writes the live jobs into a snapshot file and deletes the log files it replaces.
    ///
    /// 1. Under the engine lock: succeeded and cancelled jobs past the retention
    ///    are expired by a record in the active file (n); the writer rolls over to
    ///    file n+2, leaving n+1 for the snapshot (every record of file n is durable
    ///    by then); the state is copied (a copy-on-write value) with the last LSN.
    /// 2. Without the lock, while records go to n+2: the snapshot is written to
    ///    `snap-<n+1>.tmp`, synced, renamed to `wal-<n+1>.log`, and the directory synced.
    /// 3. Under the lock: jobs whose payload is unchanged point into the snapshot.
    /// 4. Files before n+1 are deleted, then the directory synced.
    ///
    /// A crash before the rename leaves files up to n and n+2 (one number free),
    /// which replay reads as before; after it, replay starts at the snapshot, and
    /// open deletes the older files.
    ///
    /// - Parameter onlyIfNeeded: Do nothing (and return `nil`) unless ``Configuration/autoCompaction``
    ///   says the log is due, checked under the lock (a background compaction).
    @discardableResult
    func compact(onlyIfNeeded: Bool = false) throws -> CompactionReport? {
        try compactionLock.withLock {
            let now = nowMillis
            let cutoff = now - Millis.from(seconds: configuration.retention)
            let planned = try withOpenState { () -> (QueueState, SnapshotSummary, UInt64, Int)? in
                if onlyIfNeeded, !needsCompaction() { return nil }
                let expiredIDs = state.jobs.values
                    .filter { ($0.state == .succeeded || $0.state == .cancelled) && ($0.finishedAt ?? .max) <= cutoff }
                    .sorted { $0.sequence < $1.sequence }.map(\.id)
                if !expiredIDs.isEmpty { _ = try commit(expiredIDs.map { .other(.expire(id: $0)) }) }
                let snapshotSequence = activeWriter.fileSequence + 1
                let lastLSN = try rollOver(skipping: 1)
                let createdAt = min(state.summary?.createdAt ?? now, state.jobs.values.map(\.createdAt).min() ?? now)
                let summary = SnapshotSummary(lastLSN: lastLSN, nextSequence: state.nextSequence, createdAt: createdAt,
                                              expiredJobs: state.expiredJobs)
                return (state, summary, snapshotSequence, expiredIDs.count)
            }
            guard let (copy, summary, sequence, expired) = planned else { return nil }
            do {
                return try finishCompaction(copy: copy, summary: summary, sequence: sequence, expired: expired)
            } catch let error as SpoolError {
                // What reached the disk is unknown (a failed sync cannot be retried), as after a failed
                // write of the log: the queue refuses changes until it is reopened, and open sorts it out.
                lock.withLock {
                    writeFailure = writeFailure ?? SpoolError(.needsReopen, "a compaction failed (\(error)); reopen the queue",
                                                              path: error.path, errno: error.errno, operation: error.operation)
                }
                throw error
            }
        }
    }

    /// Steps 2 to 4 of ``compact()``: the snapshot, the payloads moved into it, the old files deleted.
    private func finishCompaction(copy: QueueState, summary: SnapshotSummary, sequence: UInt64,
                                  expired: Int) throws -> CompactionReport {
        let replaced = try LogReplay.logFiles(in: path, fileSystem: configuration.fileSystem)
            .filter { $0.sequence < sequence }
        var bytesBefore: Int64 = 0
        for file in replaced {
            let handle = try configuration.fileSystem.openFile(at: file.path, mode: .readOnly)
            bytesBefore += try handle.size()
            handle.close()
        }
        let jobs = copy.jobs.values.sorted { $0.sequence < $1.sequence }
        let writer = SnapshotWriter(directory: path, fileSystem: configuration.fileSystem, instanceID: instanceID,
                                    sequence: sequence)
        let outcome = try writer.write(summary: summary, appliedMigration: copy.appliedMigration, jobs: jobs) { try self.payload(at: $0.payload) }
        try withOpenState {
            state.relocatePayloads(outcome.moves)
            state.adoptSummary(summary)
            for (fileSequence, bytes) in retiredFileBytes where fileSequence < sequence {
                retiredFileBytes[fileSequence] = nil
                retiredBytes -= bytes
            }
            retiredFileBytes[sequence] = outcome.bytes
            retiredBytes += outcome.bytes
            bytesAfterCompaction = logBytes
            if !jobs.isEmpty { averageJobBytes = max(32, Double(outcome.bytes) / Double(jobs.count)) }
        }
        for file in replaced { try configuration.fileSystem.removeFile(at: file.path) }
        if !replaced.isEmpty { try configuration.fileSystem.syncDirectory(at: path) }
        segmentReaders.forget(below: sequence)
        return CompactionReport(bytesBefore: bytesBefore, bytesAfter: outcome.bytes, recordsWritten: outcome.records,
                                jobsWritten: jobs.count, jobsExpired: expired, snapshotFile: sequence)
    }

    /// What the snapshots remember of the queue's past.
    var history: QueueHistory {
        lock.withLock {
            QueueHistory(createdAt: state.summary.map { Millis.date($0.createdAt) },
                         expiredJobs: Int(clamping: state.expiredJobs))
        }
    }

    /// Rolls the log over now, whatever the size of the active file (for tests and compaction).
    func lockedRollOver() throws {
        try withOpenState { _ = try rollOver() }
    }

    /// Whether `body` decodes to `operations` (the debug check of ``commit(_:)``).
    private static func decodes(_ body: [UInt8], to operations: [Operation], fileSequence: UInt64,
                                bodyOffset: Int64) -> Bool {
        let decoded = try? body.withUnsafeBytes {
            try TransactionCodec.decode($0, fileSequence: fileSequence, bodyOffset: bodyOffset)
        }
        return decoded == operations
    }

    private func withOpenState<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            guard !isClosed else { throw SpoolError(.closed, "the queue is closed", path: path) }
            return try body()
        }
    }

    private var nowMillis: Int64 { Millis.from(clock.now()) }

    // MARK: Enqueue

    func enqueue(_ request: NewJob) throws -> (JobID, UInt64) {
        let planned = try validate(request, now: nowMillis)
        return try withOpenState {
            var plan = EnqueuePlan()
            let id = try plan.add(request, planned, to: state)
            guard !plan.operations.isEmpty else { return (id, writer.lastAppendedLSN) }
            return (id, try commit(plan.operations))
        }
    }

    /// Enqueues every job of `requests` in one record: all of them or none.
    ///
    /// Every job is validated before anything is written. Unique keys are
    /// resolved in order, as if the jobs were enqueued one by one: a job whose
    /// key is held — by an unfinished job or by an earlier job of the batch —
    /// keeps the holder (its id is returned, nothing is written for it),
    /// replaces it (cancels of the key's unfinished jobs go into the same record)
    /// or is chained after it (append).
    ///
    /// - Returns: One id per request, in order, and the record's LSN.
    func enqueue(contentsOf requests: [NewJob]) throws -> ([JobID], UInt64) {
        let now = nowMillis
        var planned: [NewEnqueue] = []
        planned.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            do {
                planned.append(try validate(request, now: now))
            } catch let error as SpoolError {
                throw SpoolError(error.code, "job \(index) of the batch: \(error.message)", jobID: error.jobID)
            }
        }
        return try withOpenState {
            var plan = EnqueuePlan()
            plan.operations.reserveCapacity(planned.count)
            var ids: [JobID] = []
            ids.reserveCapacity(planned.count)
            for (request, job) in zip(requests, planned) {
                ids.append(try plan.add(request, job, to: state))
            }
            guard !plan.operations.isEmpty else { return (ids, writer.lastAppendedLSN) }
            return (ids, try commit(plan.operations))
        }
    }

    private func validate(_ request: NewJob, now: Int64) throws -> NewEnqueue {
        try Self.checkText(request.kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
        try checkKnown(kind: request.kind, jobID: request.id)
        if let key = request.uniqueKey { try Self.checkText(key, name: "unique key", maxBytes: JobLimits.maxUniqueKeyBytes) }
        if let id = request.id { try Self.checkText(id.rawValue, name: "job id", maxBytes: JobLimits.maxIDBytes) }
        guard request.payload.count <= configuration.maximumPayloadSize else {
            throw SpoolError.invalidArgument("the payload of \(request.payload.count) bytes is over the limit of \(configuration.maximumPayloadSize)")
        }
        guard request.delay >= 0, request.delay.isFinite, request.delay < 1e11 else {
            throw SpoolError.invalidArgument("the delay must be a finite number of seconds, not negative")
        }
        guard let priority = Int32(exactly: request.priority) else {
            throw SpoolError.invalidArgument("priority must fit in 32 bits")
        }
        let maxAttempts = request.maxAttempts ?? configuration.retryPolicy.maxAttempts
        guard (1...JobLimits.maxAttempts).contains(maxAttempts) else {
            throw SpoolError.invalidArgument("maxAttempts must be from 1 to \(JobLimits.maxAttempts)")
        }
        if let runAt = request.runAt {
            guard Millis.isRepresentable(runAt) else {
                throw SpoolError.invalidArgument("runAt must be a finite date between the years 1 and 9999")
            }
        }
        var options = EnqueueOptions()
        for name in request.constraints.requiredConditions {
            try Self.checkText(name, name: "condition name", maxBytes: JobLimits.maxKindBytes)
        }
        options.constraints = request.constraints.isEmpty ? nil : request.constraints
        var seen = Set<String>()
        for dependency in request.dependencies {
            try Self.checkText(dependency.rawValue, name: "prerequisite id", maxBytes: JobLimits.maxIDBytes)
            if seen.insert(dependency.rawValue).inserted { options.dependencies.append(dependency.rawValue) }
        }
        if let periodic = request.periodic {
            guard periodic.interval.isFinite, periodic.interval >= PeriodicSchedule.minimumInterval,
                  periodic.interval < 1e9 else {
                throw SpoolError.invalidArgument("a periodic interval must be at least \(Int(PeriodicSchedule.minimumInterval)) seconds")
            }
            guard periodic.flex == 0 || (periodic.flex >= PeriodicSchedule.minimumFlex && periodic.flex <= periodic.interval) else {
                throw SpoolError.invalidArgument("a periodic flex must be 0 or from \(Int(PeriodicSchedule.minimumFlex)) seconds to the interval")
            }
            guard request.dependencies.isEmpty, request.uniquePolicy != .append else {
                throw SpoolError.invalidArgument("a periodic job cannot have prerequisites nor be appended to a chain")
            }
            options.periodic = (Millis.from(seconds: periodic.interval), Millis.from(seconds: periodic.flex))
        }
        let base = request.runAt.map(Millis.from) ?? now
        return NewEnqueue(id: request.id?.rawValue ?? RandomPool.shared.nextUUIDString(), kind: request.kind,
                          payload: Array(request.payload), priority: Int64(priority), createdAt: now,
                          runAt: base + Millis.from(seconds: request.delay), maxAttempts: Int64(maxAttempts),
                          uniqueKey: request.uniqueKey, options: options)
    }

    static func checkText(_ text: String, name: String, maxBytes: Int) throws {
        let count = text.utf8.count
        guard count > 0 else { throw SpoolError.invalidArgument("the \(name) is empty") }
        guard count <= maxBytes else {
            throw SpoolError.invalidArgument("the \(name) is \(count) bytes, over the limit of \(maxBytes)")
        }
    }

    // MARK: Leases

    struct Claimed {
        var job: StoredJob
        var lease: StoredLease
    }

    func claim(kind: String?, leaseDuration: TimeInterval?) throws -> (Claimed?, UInt64?) {
        if let kind { try Self.checkText(kind, name: "kind", maxBytes: JobLimits.maxKindBytes) }
        return try claim(kinds: KindSet(kind), leaseDuration: leaseDuration)
    }

    /// Claims the best due job among the jobs of `kinds` — higher priority, then
    /// earlier due, then earlier enqueued, across all of them — after reclaiming
    /// expired leases. The worker runtime claims through this with the kinds it
    /// has a handler and a free slot for.
    func claim(kinds: KindSet, leaseDuration: TimeInterval?) throws -> (Claimed?, UInt64?) {
        let duration = leaseDuration ?? configuration.leaseDuration
        guard duration > 0, duration.isFinite, duration < 1e9 else {
            throw SpoolError.invalidArgument("the lease duration must be a positive number of seconds")
        }
        return try withOpenState {
            let now = nowMillis
            var operations = expiredLeaseReclaims(now: now)
            // Reclaims change what is ready only by putting jobs back with a deadline in the future
            // (or now, for a zero delay), so choose after applying them.
            var reclaimLSN: UInt64?
            if !operations.isEmpty {
                reclaimLSN = try commit(operations)
                operations = []
            }
            guard let job = state.bestReadyJob(at: now, kinds: kinds) else { return (nil, reclaimLSN) }
            let monotonic = clock.monotonicNanoseconds()
            let claim = Operation.Claim(id: job.id, token: RandomPool.shared.nextToken(), claimedAt: now,
                                        expiresAt: now + Millis.from(seconds: duration),
                                        monotonicExpiry: monotonic + UInt64(duration * 1e9),
                                        bootID: clock.bootIdentifier())
            let lsn = try commit([.other(.claim(claim))])
            let claimed = state.jobs[job.id]!
            return (Claimed(job: claimed, lease: claimed.lease!), lsn)
        }
    }

    func renew(id: JobID, token: LeaseToken, duration: TimeInterval?) throws -> (StoredJob, UInt64) {
        let duration = duration ?? configuration.leaseDuration
        guard duration > 0, duration.isFinite, duration < 1e9 else {
            throw SpoolError.invalidArgument("the lease duration must be a positive number of seconds")
        }
        return try withOpenState {
            _ = try leasedJob(id, token: token)
            let lsn = try commit([.other(.renewLease(id: id.rawValue, token: token.rawValue,
                                                     expiresAt: nowMillis + Millis.from(seconds: duration),
                                                     monotonicExpiry: clock.monotonicNanoseconds() + UInt64(duration * 1e9)))])
            return (state.jobs[id.rawValue]!, lsn)
        }
    }

    func complete(id: JobID, token: LeaseToken) throws -> (StoredJob, UInt64) {
        try withOpenState {
            let job = try leasedJob(id, token: token)
            let now = nowMillis
            let lsn = try commit([.other(.complete(id: id.rawValue, token: token.rawValue, at: now))]
                                 + nextOccurrence(of: job, endingWith: nil, at: now))
            return (state.jobs[id.rawValue]!, lsn)
        }
    }

    func fail(id: JobID, token: LeaseToken, error: String, terminal: Bool) throws -> (StoredJob, UInt64) {
        try withOpenState {
            let job = try leasedJob(id, token: token)
            let now = nowMillis
            let nextRetryAt = terminal ? nil : nextRetry(after: job, now: now)
            let lsn = try commit([.other(.fail(id: id.rawValue, token: token.rawValue, at: now,
                                               error: Self.truncated(error), nextRetryAt: nextRetryAt))]
                                 + nextOccurrence(of: job, endingWith: nextRetryAt, at: now))
            return (state.jobs[id.rawValue]!, lsn)
        }
    }

    /// For a periodic job whose occurrence ends now — it succeeded, or failed with no retry
    /// left (`nextRetryAt == nil` after a failure) — the operation that schedules the next
    /// occurrence, to go into the same record. Empty for a one-off job or a retry.
    private func nextOccurrence(of job: StoredJob, endingWith nextRetryAt: Int64?, at now: Int64) -> [PlannedOperation] {
        guard let periodic = job.periodic, nextRetryAt == nil else { return [] }
        return [.other(.nextOccurrence(id: job.id, at: now, runAt: periodic.nextRunAt(after: now)))]
    }

    /// A reclaim of `job`, followed by its next occurrence when it is periodic and out of attempts.
    private func reclaim(_ job: StoredJob, reason: String, now: Int64) -> [PlannedOperation] {
        let nextRetryAt = nextRetry(after: job, now: now)
        return [.other(.reclaim(id: job.id, at: now, reason: reason, nextRetryAt: nextRetryAt))]
            + nextOccurrence(of: job, endingWith: nextRetryAt, at: now)
    }

    /// The deadline after the job's current attempt failed, or `nil` when its attempts are spent.
    private func nextRetry(after job: StoredJob, now: Int64) -> Int64? {
        guard job.attempts < job.maxAttempts else { return nil }
        let delay = configuration.retryPolicy.delay(afterFailedAttempt: Int(job.attempts),
                                                    unitRandom: Double.random(in: 0..<1))
        return now + Millis.from(seconds: delay)
    }

    private func leasedJob(_ id: JobID, token: LeaseToken) throws -> StoredJob {
        guard let job = state.jobs[id.rawValue] else {
            throw SpoolError(.jobNotFound, "no such job", jobID: id)
        }
        guard job.state == .running, job.lease?.token == token.rawValue else {
            let why = job.state == .running ? "the job was claimed again under another lease"
                                            : "the job is \(job.state.rawValue) now"
            throw SpoolError(.leaseLost, "the lease is no longer valid: \(why)", jobID: id)
        }
        return job
    }

    private static func truncated(_ text: String) -> String {
        guard text.utf8.count > JobLimits.maxErrorBytes else { return text }
        var cut = String(decoding: text.utf8.prefix(JobLimits.maxErrorBytes), as: UTF8.self)
        while cut.utf8.count > JobLimits.maxErrorBytes { cut.removeLast() }
        return cut
    }

    /// Reclaims for every running job whose lease has expired.
    private func expiredLeaseReclaims(now: Int64) -> [PlannedOperation] {
        guard state.runningCount > 0 else { return [] }
        let monotonic = clock.monotonicNanoseconds()
        let boot = clock.bootIdentifier()
        return state.runningJobs
            .filter { $0.lease?.isExpired(wallNow: now, monotonicNow: monotonic, bootID: boot) ?? true }
            .sorted { $0.sequence < $1.sequence }
            .flatMap { reclaim($0, reason: "lease expired", now: now) }
    }

    func reclaimExpiredLeases() throws -> ([JobID], UInt64?) {
        try withOpenState {
            let operations = expiredLeaseReclaims(now: nowMillis)
            return try commitReclaims(operations)
        }
    }

    /// Records reclaims as one transaction; returns the reclaimed ids and the LSN, or none when there is nothing to reclaim.
    /// Call with `lock` held.
    private func commitReclaims(_ operations: [PlannedOperation]) throws -> ([JobID], UInt64?) {
        guard !operations.isEmpty else { return ([], nil) }
        let ids = operations.compactMap { planned -> JobID? in
            if case .other(.reclaim(let id, _, _, _)) = planned { return JobID(id) }
            return nil
        }
        return (ids, try commit(operations))
    }

    private func reclaimRunningJobsAtOpen() throws -> ([JobID], UInt64?) {
        try lock.withLock {
            let now = nowMillis
            let operations: [PlannedOperation]
            switch configuration.runningJobsAtOpen {
            case .reclaim:
                operations = state.runningJobs.sorted { $0.sequence < $1.sequence }.flatMap {
                    reclaim($0, reason: "orphaned: the process ended while the job was running", now: now)
                }
            case .keepUnexpiredLeases:
                operations = expiredLeaseReclaims(now: now)
            }
            return try commitReclaims(operations)
        }
    }

    // MARK: Job migrations

    /// Checks the registered migrations' numbers (each at least 1, none twice).
    ///
    /// - Returns: The highest number, or `nil` when none is registered.
    static func checkMigrationNumbers(_ migrations: [JobMigration]) throws -> Int? {
        let registered = migrations.map(\.number).sorted()
        for (index, number) in registered.enumerated() {
            guard number >= 1 else {
                throw SpoolError.invalidArgument("job migration numbers start at 1; found \(number)")
            }
            if index > 0, registered[index - 1] == number {
                throw SpoolError.invalidArgument("job migration \(number) is registered twice")
            }
        }
        return registered.last
    }

    /// Refuses a queue whose jobs were migrated further than the highest registered migration
    /// (a build that registers none opens it, as a tool does).
    static func refuseNewerMigrations(applied: UInt64, highest: Int?, path: String) throws {
        guard let highest, applied > UInt64(highest) else { return }
        throw SpoolError(.newerMigrations,
                         "the queue's jobs were migrated up to job migration \(applied); this build registers migrations up to \(highest)",
                         path: path)
    }

    /// Applies every registered migration above the queue's applied number, in order. Call during init only.
    ///
    /// Each is planned in full from the state (nothing is written when the app's transform gives an
    /// answer that does not fit), then recorded as `migration_begin`, its steps in records of about
    /// ``Configuration/migrationRecordBytes``, and `migration_commit` in the last record: replay applies
    /// the steps only when it reads the commit, so a crash anywhere leaves the jobs as before or as after.
    ///
    /// - Returns: The numbers applied, and the LSN of the last commit.
    private func runMigrations() throws -> ([Int], UInt64?) {
        let registered = configuration.migrations.sorted { $0.number < $1.number }
        // The numbers were checked, and the applied number against them, before open repaired anything.
        let applied = lock.withLock { state.appliedMigration }
        var done: [Int] = []
        var lastLSN: UInt64?
        for migration in registered where UInt64(migration.number) > applied {
            lastLSN = try apply(migration)
            done.append(migration.number)
        }
        return (done, lastLSN)
    }

    /// Plans, checks and records one migration; returns the LSN of its commit. Nothing else runs
    /// meanwhile (open has not returned, background compaction waits for it), so the plan is made
    /// from a copy of the state outside the lock (payload reads take it) and stays true.
    private func apply(_ migration: JobMigration) throws -> UInt64 {
        let now = nowMillis
        let planner = MigrationPlanner(migration: migration, now: now,
                                       maximumPayloadSize: configuration.maximumPayloadSize)
        let steps = try planner.plan(lock.withLock { state }) { try self.payload(at: $0.payload) }
        return try lock.withLock {
            let number = UInt64(migration.number)
            // The live path must never write what apply refuses: try the whole migration on a copy first.
            var scratch = state
            do {
                try scratch.apply(.migrationBegin(number: number, at: now))
                for step in steps {
                    switch step {
                    case .migrateJob(var job, let payload):
                        if payload != nil { job.payload = PayloadLocation(fileSequence: 0, offset: 0, length: 0) }
                        try scratch.apply(.migrateJob(job))
                    case .other(let operation): try scratch.apply(operation)
                    case .enqueue: preconditionFailure("a migration step is never an enqueue")
                    }
                }
                try scratch.apply(.migrationCommit(number: number))
            } catch {
                throw planner.failure("\(error)")
            }
            var record: [PlannedOperation] = [.other(.migrationBegin(number: number, at: now))]
            var recordBytes = 0
            for step in steps {
                let bytes = Self.estimatedBytes(step)
                if recordBytes + bytes > configuration.migrationRecordBytes, !record.isEmpty {
                    _ = try commit(record)
                    record = []
                    recordBytes = 0
                }
                record.append(step)
                recordBytes += bytes
            }
            record.append(.other(.migrationCommit(number: number)))
            return try commit(record)
        }
    }

    private static func estimatedBytes(_ step: PlannedOperation) -> Int {
        guard case .migrateJob(let job, let payload) = step else { return 64 }
        return 96 + job.id.utf8.count + job.kind.utf8.count + (job.uniqueKey?.utf8.count ?? 0)
            + (job.lastError?.utf8.count ?? 0) + (payload?.count ?? 0)
    }

    /// Ends failed every enqueued or running job whose kind is not in ``Configuration/knownKinds``. Call during init only.
    private func abandonUnrunnableJobs() throws -> ([JobID], UInt64?) {
        guard let known = configuration.knownKinds else { return ([], nil) }
        return try lock.withLock {
            let now = nowMillis
            let unrunnable = state.jobs.values
                .filter { !$0.state.isFinished && !known.contains($0.kind) }
                .sorted { $0.sequence < $1.sequence }
            var lastLSN: UInt64?
            var start = 0
            while start < unrunnable.count {
                // Each operation is at most a few hundred bytes: far below the record limit in groups of 10 000.
                let batch = unrunnable[start..<min(start + 10_000, unrunnable.count)]
                lastLSN = try commit(batch.map {
                    .other(.abandon(id: $0.id, at: now, reason: "this build cannot run jobs of kind \($0.kind)"))
                })
                start += batch.count
            }
            return (unrunnable.map { JobID($0.id) }, lastLSN)
        }
    }

    /// Refuses a kind the build does not run, when ``Configuration/knownKinds`` is set.
    private func checkKnown(kind: String, jobID: JobID? = nil) throws {
        guard let known = configuration.knownKinds, !known.contains(kind) else { return }
        throw SpoolError(.invalidArgument, "this build cannot run jobs of kind \(kind) (not in knownKinds)", jobID: jobID)
    }

    /// The number of the last job migration the queue applied; 0 before the first.
    var appliedMigration: Int { lock.withLock { Int(clamping: state.appliedMigration) } }

    // MARK: Other transitions

    func cancel(_ id: JobID) throws -> (StoredJob, UInt64) {
        try withOpenState {
            let job = try existingJob(id)
            switch job.state {
            case .cancelled:
                return (job, writer.lastAppendedLSN)
            case .succeeded, .failed:
                throw SpoolError(.invalidState, "a \(job.state.rawValue) job cannot be cancelled", jobID: id)
            case .enqueued, .running:
                let lsn = try commit([.other(.cancel(id: id.rawValue, at: nowMillis))])
                return (state.jobs[id.rawValue]!, lsn)
            }
        }
    }

    func retry(_ id: JobID) throws -> (StoredJob, UInt64) {
        try withOpenState {
            let job = try existingJob(id)
            guard job.state != .running && job.state != .succeeded else {
                throw SpoolError(.invalidState, "a \(job.state.rawValue) job cannot be retried", jobID: id)
            }
            try checkKnown(kind: job.kind, jobID: id)
            if job.state.isFinished, let key = job.uniqueKey, let holder = state.uniqueKeys[key], holder != job.id {
                throw SpoolError(.uniqueKeyConflict, "unfinished job \(holder) holds the unique key \(key)", jobID: id)
            }
            if let blocker = job.waitingFor.first(where: { !(state.jobs[$0]?.state.isFinished == false) }) {
                throw SpoolError(.invalidState, "prerequisite \(blocker) did not succeed: retry it first", jobID: id)
            }
            let lsn = try commit([.other(.retry(id: id.rawValue, at: nowMillis))])
            return (state.jobs[id.rawValue]!, lsn)
        }
    }

    func reschedule(_ id: JobID, runAt: Date) throws -> (StoredJob, UInt64) {
        try withOpenState {
            let job = try existingJob(id)
            guard job.state == .enqueued else {
                throw SpoolError(.invalidState, "only an enqueued job can be rescheduled; this one is \(job.state.rawValue)", jobID: id)
            }
            guard Millis.isRepresentable(runAt) else {
                throw SpoolError.invalidArgument("runAt must be a finite date between the years 1 and 9999")
            }
            let lsn = try commit([.other(.reschedule(id: id.rawValue, runAt: Millis.from(runAt), at: nowMillis))])
            return (state.jobs[id.rawValue]!, lsn)
        }
    }

    /// Deletes a job. The unfinished jobs waiting for it are cancelled by the chain rule in the
    /// same record: the delete operation carries no time, so their cancels are written before it
    /// (their own dependents then follow by the cascade inside apply).
    func delete(_ id: JobID) throws -> UInt64 {
        try withOpenState {
            _ = try existingJob(id)
            let now = nowMillis
            let waiting = (state.dependents[id.rawValue] ?? []).filter { state.jobs[$0]?.state.isFinished == false }
            return try commit(cancels(of: waiting, at: now) + [.other(.delete(id: id.rawValue))])
        }
    }

    /// Cancels of the unfinished jobs `ids`, in enqueue order, leaving out those that the cascade
    /// of another one's cancel reaches (apply cancels them; an explicit cancel would not apply).
    private func cancels(of ids: [String], at now: Int64) -> [PlannedOperation] {
        let reached = state.unfinishedDependents(of: ids)
        return ids.filter { !reached.contains($0) }
            .sorted { state.jobs[$0]!.sequence < state.jobs[$1]!.sequence }
            .map { .other(.cancel(id: $0, at: now)) }
    }

    /// Cancels every unfinished job `select` picks, and what the chain rule cancels with them, in one record.
    /// - Returns: The jobs this cancelled, in enqueue order, and the LSN (`nil` when nothing was unfinished).
    func cancel(where select: (StoredJob) -> Bool) throws -> ([StoredJob], UInt64?) {
        try withOpenState {
            let targets = state.jobs.values.filter { !$0.state.isFinished && select($0) }.map(\.id)
            guard !targets.isEmpty else { return ([], nil) }
            let all = Set(targets).union(state.unfinishedDependents(of: targets))
            let lsn = try commit(cancels(of: targets, at: nowMillis))
            return (all.compactMap { state.jobs[$0] }.sorted { $0.sequence < $1.sequence }, lsn)
        }
    }

    /// Cancels every unfinished job carrying unique key `key` (a chain built with policy append carries one key).
    func cancel(uniqueKey key: String) throws -> ([StoredJob], UInt64?) {
        try withOpenState {
            let targets = state.unfinishedCarriers(of: key)
            guard !targets.isEmpty else { return ([], nil) }
            let all = Set(targets).union(state.unfinishedDependents(of: targets))
            let lsn = try commit(cancels(of: targets, at: nowMillis))
            return (all.compactMap { state.jobs[$0] }.sorted { $0.sequence < $1.sequence }, lsn)
        }
    }

    private func existingJob(_ id: JobID) throws -> StoredJob {
        guard let job = state.jobs[id.rawValue] else { throw SpoolError(.jobNotFound, "no such job", jobID: id) }
        return job
    }

    // MARK: Queries

    func job(_ id: JobID) throws -> StoredJob? {
        try withOpenState { state.jobs[id.rawValue] }
    }

    func jobs(where predicate: (StoredJob) -> Bool) throws -> [StoredJob] {
        try withOpenState { state.jobs.values.filter(predicate) }.sorted { $0.sequence < $1.sequence }
    }

    func readyJobs(at instant: Date, kind: String?) throws -> [StoredJob] {
        let now = Millis.from(instant)
        let conditions = try withOpenState { state.deviceConditions }
        return try jobs {
            $0.state == .enqueued && !$0.isBlocked && $0.dueAt <= now && (kind == nil || $0.kind == kind)
                && ($0.constraints.map(conditions.satisfies) ?? true)
        }
            .sorted { a, b in
                if a.priority != b.priority { return a.priority > b.priority }
                if a.dueAt != b.dueAt { return a.dueAt < b.dueAt }
                return a.sequence < b.sequence
            }
    }

    func earliestDue(kind: String?) throws -> Int64? {
        try earliestDue(kinds: KindSet(kind))
    }

    /// The earliest due time of an enqueued job of `kinds`.
    func earliestDue(kinds: KindSet) throws -> Int64? {
        try withOpenState { state.earliestDue(kinds: kinds) }
    }

    func earliestDue(kind: String?, constraints: JobConstraints) throws -> Int64? {
        try withOpenState { state.earliestDue(kind: kind, constraints: constraints) }
    }

    func earliestDueByConstraints() throws -> [JobConstraints: Int64] {
        try withOpenState { state.earliestDueByConstraints() }
    }

    // MARK: Device conditions

    /// What holds on the device now, as the app last reported it (memory only).
    var deviceConditions: DeviceConditions { lock.withLock { state.deviceConditions } }

    /// Takes the app's report of the device's state; subscribers of ``changes`` are told, since
    /// jobs may have become runnable (or stopped being so).
    func updateDeviceConditions(_ conditions: DeviceConditions) throws {
        let changed = try withOpenState { () -> Bool in
            guard state.deviceConditions != conditions else { return false }
            state.deviceConditions = conditions
            return true
        }
        if changed { changes.publishEnvironmentChange() }
    }

    func counts() throws -> [JobState: Int] {
        try withOpenState {
            var counts: [JobState: Int] = [:]
            for job in state.jobs.values { counts[job.state, default: 0] += 1 }
            return counts
        }
    }

    /// Reads the payload of `job` (as the state held it a moment ago). A
    /// compaction may have moved it into a snapshot and deleted the file it was
    /// in since: the read then follows the job's current location, as long as
    /// it is the same job (same enqueue sequence).
    func payload(of job: StoredJob) throws -> [UInt8] {
        var location = job.payload
        while true {
            do {
                return try payload(at: location)
            } catch let error as SpoolError {
                let current = try withOpenState { () -> PayloadLocation? in
                    guard let now = state.jobs[job.id], now.sequence == job.sequence else { return nil }
                    return now.payload
                }
                guard let current, current != location else { throw error }
                location = current
            }
        }
    }

    /// Reads a payload from the log (or from the write buffer when it is not written yet).
    func payload(at location: PayloadLocation) throws -> [UInt8] {
        let writer = try withOpenState { activeWriter }
        let bytes: [UInt8]
        if location.fileSequence == writer.fileSequence {
            bytes = try writer.read(at: location.offset, count: Int(location.length))
        } else if location.fileSequence < writer.fileSequence {
            bytes = try segmentReaders.read(sequence: location.fileSequence, at: location.offset,
                                            count: Int(location.length))
        } else {
            throw SpoolError(.ioFailure, "the payload lies in log file \(location.fileSequence), after the active one",
                             path: path, offset: location.offset)
        }
        guard bytes.count == Int(location.length) else {
            throw SpoolError(.ioFailure, "the payload is shorter on disk than recorded",
                             path: path + "/" + QueueDirectoryLayout.logFileName(sequence: location.fileSequence),
                             offset: location.offset)
        }
        return bytes
    }

    /// A copy of the whole in-memory state, for invariant checks and tests.
    var stateSnapshot: QueueState { lock.withLock { state } }

    // MARK: Closing

    func close() throws {
        let alreadyClosed = lock.withLock { () -> Bool in
            defer { isClosed = true }
            return isClosed
        }
        guard !alreadyClosed else { return }
        changes.finish()
        // A background compaction still writing its snapshot stops at its next step; the
        // directory lock is kept until it has.
        backgroundCompactions.wait()
        defer { directoryLock.release() }
        try writer.close()
    }

    deinit {
        if !isClosed {
            try? writer.close()
            directoryLock.release()
        }
    }
}
