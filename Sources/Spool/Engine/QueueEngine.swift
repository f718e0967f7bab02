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
        let opened = try directory
            .openForWriting(mode: configuration.recoveryMode, createIfMissing: configuration.createIfMissing,
                            preallocationChunk: configuration.preallocationChunk)
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
            let (reclaimed, lsn) = try reclaimRunningJobsAtOpen()
            if let lsn { try writer.waitUntilDurable(lsn) }
            recoveryReport.reclaimedJobs = reclaimed
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
                let jobBytes = Double(range.count + new.id.utf8.count + new.kind.utf8.count + 64)
                averageJobBytes += (jobBytes - averageJobBytes) / 64
                recorded.append(.enqueue(.init(
                    id: new.id, kind: new.kind,
                    payload: PayloadLocation(fileSequence: writer.fileSequence, offset: bodyOffset + Int64(range.lowerBound),
                                             length: Int32(range.count)),
                    priority: new.priority, createdAt: new.createdAt, runAt: new.runAt, maxAttempts: new.maxAttempts,
                    uniqueKey: new.uniqueKey)))
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
        changes.publish(jobIDs: recorded.lazy.map(\.jobID).filter { !$0.isEmpty })
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
        guard let auto = configuration.autoCompaction else { return false }
        let bytes = logBytes
        guard bytes >= auto.minimumLogBytes else { return false }
        let liveJobs = state.enqueuedCount + state.runningCount + state.failedCount
        let live = Double(liveJobs) * averageJobBytes
        let limit = (1 + max(0, auto.obsoleteRatio)) * max(live, Double(bytesAfterCompaction))
        return Double(bytes) > limit
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
        let outcome = try writer.write(summary: summary, jobs: jobs) { try self.payload(at: $0.payload) }
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
            var operations: [PlannedOperation] = []
            if let key = planned.uniqueKey, let holderID = state.uniqueKeys[key] {
                switch request.uniquePolicy {
                case .keep:
                    return (JobID(holderID), writer.lastAppendedLSN)
                case .replace:
                    operations.append(.other(.cancel(id: holderID, at: planned.createdAt)))
                }
            }
            guard state.jobs[planned.id] == nil else {
                throw SpoolError(.invalidArgument, "a job with this id exists", jobID: JobID(planned.id))
            }
            operations.append(.enqueue(planned))
            return (JobID(planned.id), try commit(operations))
        }
    }

    /// Enqueues every job of `requests` in one record: all of them or none.
    ///
    /// Every job is validated before anything is written. Unique keys are
    /// resolved in order, as if the jobs were enqueued one by one: a job whose
    /// key is held — by an unfinished job or by an earlier job of the batch —
    /// keeps the holder (its id is returned, nothing is written for it) or
    /// replaces it (a cancel of the holder goes into the same record).
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
            var operations: [PlannedOperation] = []
            operations.reserveCapacity(planned.count)
            var ids: [JobID] = []
            ids.reserveCapacity(planned.count)
            /// Unique keys taken by jobs of this batch, and by whom.
            var batchKeyHolders: [String: String] = [:]
            var batchIDs = Set<String>(minimumCapacity: planned.count)
            for (request, job) in zip(requests, planned) {
                if let key = job.uniqueKey, let holderID = batchKeyHolders[key] ?? state.uniqueKeys[key] {
                    switch request.uniquePolicy {
                    case .keep:
                        ids.append(JobID(holderID))
                        continue
                    case .replace:
                        operations.append(.other(.cancel(id: holderID, at: job.createdAt)))
                    }
                }
                guard state.jobs[job.id] == nil, batchIDs.insert(job.id).inserted else {
                    throw SpoolError(.invalidArgument, "a job with this id exists", jobID: JobID(job.id))
                }
                if let key = job.uniqueKey { batchKeyHolders[key] = job.id }
                operations.append(.enqueue(job))
                ids.append(JobID(job.id))
            }
            guard !operations.isEmpty else { return (ids, writer.lastAppendedLSN) }
            return (ids, try commit(operations))
        }
    }

    private func validate(_ request: NewJob, now: Int64) throws -> NewEnqueue {
        try Self.checkText(request.kind, name: "kind", maxBytes: JobLimits.maxKindBytes)
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
        let base = request.runAt.map(Millis.from) ?? now
        return NewEnqueue(id: request.id?.rawValue ?? RandomPool.shared.nextUUIDString(), kind: request.kind,
                          payload: Array(request.payload), priority: Int64(priority), createdAt: now,
                          runAt: base + Millis.from(seconds: request.delay), maxAttempts: Int64(maxAttempts),
                          uniqueKey: request.uniqueKey)
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
            _ = try leasedJob(id, token: token)
            let lsn = try commit([.other(.complete(id: id.rawValue, token: token.rawValue, at: nowMillis))])
            return (state.jobs[id.rawValue]!, lsn)
        }
    }

    func fail(id: JobID, token: LeaseToken, error: String, terminal: Bool) throws -> (StoredJob, UInt64) {
        try withOpenState {
            let job = try leasedJob(id, token: token)
            let now = nowMillis
            let nextRetryAt = terminal ? nil : nextRetry(after: job, now: now)
            let lsn = try commit([.other(.fail(id: id.rawValue, token: token.rawValue, at: now,
                                               error: Self.truncated(error), nextRetryAt: nextRetryAt))])
            return (state.jobs[id.rawValue]!, lsn)
        }
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
            .map { .other(.reclaim(id: $0.id, at: now, reason: "lease expired", nextRetryAt: nextRetry(after: $0, now: now))) }
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
            if case .other(let op) = planned { return JobID(op.jobID) }
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
                operations = state.runningJobs.sorted { $0.sequence < $1.sequence }.map {
                    .other(.reclaim(id: $0.id, at: now, reason: "orphaned: the process ended while the job was running",
                                    nextRetryAt: nextRetry(after: $0, now: now)))
                }
            case .keepUnexpiredLeases:
                operations = expiredLeaseReclaims(now: now)
            }
            return try commitReclaims(operations)
        }
    }

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
            if let key = job.uniqueKey, let holder = state.uniqueKeys[key], holder != job.id {
                throw SpoolError(.uniqueKeyConflict, "unfinished job \(holder) holds the unique key \(key)", jobID: id)
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

    func delete(_ id: JobID) throws -> UInt64 {
        try withOpenState {
            _ = try existingJob(id)
            return try commit([.other(.delete(id: id.rawValue))])
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
        return try jobs { $0.state == .enqueued && $0.dueAt <= now && (kind == nil || $0.kind == kind) }
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
