import Dispatch

/// Appends records to the active log file and makes them durable with group
/// commit.
///
/// Callers ``append(_:)`` a record (cheap: it goes to an in-memory buffer and
/// gets its LSN), then wait until it is durable. A blocking caller that finds
/// no write in progress becomes the leader: it takes everything buffered,
/// writes it with one `pwrite` and syncs it with one `fdatasync`, then wakes
/// every waiter that sync covered. A lone blocking writer so pays no delay and
/// no thread hand-off. Records appended during the sync form the next group:
/// if anyone waits when the leader's own record is durable, it hands the role
/// to the *flusher*, a thread of the writer's own (a serial dispatch queue),
/// and returns to its caller; the flusher writes group after group until no
/// one waits. An async caller never leads: it suspends, and when no one leads
/// it starts the flusher, so no write or sync of the log runs on a thread of
/// Swift's cooperative pool (one thread hop per lone async write is the cost).
/// So many writers share syncs, and no caller waits for syncs that are not its
/// own. Blocked callers are woken as a tree (``BlockingWait``), suspended tasks
/// each by the leader (``AsyncWait``), and a leader takes the waiters a sync
/// covered and the next group in one critical section.
/// A large record (a batch) goes to the flusher as soon as it is appended, when
/// no one leads, so that its write and sync overlap with its caller's work
/// before the caller waits.
///
/// The file grows in preallocated chunks (``FileReservation``), so that most
/// groups need only a data sync. Close cuts the file back to the last record.
///
/// A writer made at a roll-over starts without its file (``init(following:fileSequence:path:create:)``):
/// its first leader retires the writer before it, then creates the file (header, syncs) and writes
/// its groups, all on the leader's thread; so a roll-over does no I/O under the engine's lock, and
/// an async caller's roll-over runs on the flusher (LogWriter+NextFile.swift).
///
/// The records not written yet are a ``CommitBuffer``; the callers waiting,
/// ``CommitWaiters``; the leader's writes and syncs, ``CommitFile``. The frame
/// of each record is sealed by ``RecordFrame``; the counts of the work done
/// are ``WriterStatistics``; the waits are ``BlockingWait`` and ``AsyncWait``
/// (DurabilityWaits.swift).
///
/// Any failed write or sync poisons the writer: every waiter it covered and
/// every later call gets the error, since what reached the disk is unknown and
/// a retried fsync cannot be trusted. The queue must be reopened.
final class LogWriter: @unchecked Sendable {
    // @unchecked: every mutable property below is guarded by `lock`, except
    // `output`, which only the current leader touches (the role passes from a
    // caller to the flusher under `lock`), and `retire()` and `close()` once every
    // appended record is durable (no leader is left, and the engine's lock keeps
    // new appends out). `opened`, once set, is safe for concurrent positional I/O.

    /// The log file's path (its file may not exist yet: see ``nextFile``).
    let path: String
    let fileSequence: UInt64
    /// The checksum seed of the file's frames.
    let seed: UInt32
    /// Guards the buffer, the waiters, the leader's role and the writer's status. Internal (not
    /// private) for the watch in LogWriter+Testing.swift only.
    let lock = Lock()
    /// Where the flusher runs: a thread of its own, outside Swift's cooperative pool.
    let flusher = DispatchQueue(label: "spool.log-flusher", qos: .userInitiated)
    /// How the file is written (made at the first lead for a writer that starts without its file).
    let settings: CommitFile.Settings

    // Leader-owned: `nil` until the file of a writer made at a roll-over exists.
    var output: CommitFile?

    // Guarded by `lock`:
    /// The active log file (the one `output` writes): read here concurrently with the leader's writes;
    /// `nil` until a writer made at a roll-over has made it.
    var opened: (any StorageFile)?
    /// How a writer made at a roll-over makes its file; `nil` once it exists (or for a writer given one).
    var nextFile: NextFile?
    /// What the writers before this one did, once they retired (see ``currentStatistics``).
    var inherited = WriterStatistics()
    private var buffer: CommitBuffer
    private var durableLSN: UInt64
    var leaderActive = false
    /// Internal (not private) for the watch in LogWriter+Testing.swift only.
    var waiters = CommitWaiters()
    var failure: SpoolError?
    private var isClosed = false
    private var statistics = WriterStatistics()

    /// - Parameters:
    ///   - end: The offset after the last intact record: where the next record goes.
    ///   - lastLSN: The LSN of the last record in the log, 0 for an empty log.
    ///   - preallocationChunk: Bytes to reserve ahead of the write position at a time; 0 for none.
    ///   - durability: The sync of each commit group that fits the reserved space (the others,
    ///     and the reservations, get full syncs whatever it says).
    ///   - fence: A ``ProcessSharing/shared`` owner's fence, which every write, sync and cut runs
    ///     inside; `nil` for an ``ProcessSharing/exclusive`` owner.
    ///   - rollOverSize: The size at which the engine moves the log to a new file: no reservation
    ///     is made past it (``Configuration/logFileSize``).
    init(
        file: any StorageFile, fileSequence: UInt64, seed: UInt32, end: Int64, lastLSN: UInt64,
        preallocationChunk: Int64 = LogWriter.defaultPreallocationChunk, durability: Durability = .full,
        fence: OwnershipFence? = nil, rollOverSize: Int64 = .max
    ) {
        self.path = file.path
        self.fileSequence = fileSequence
        self.seed = seed
        self.settings = CommitFile.Settings(
            preallocationChunk: preallocationChunk, durability: durability, fence: fence, rollOverSize: rollOverSize)
        self.output = CommitFile(file: file, end: end, settings: settings)
        self.opened = file
        self.buffer = CommitBuffer(end: end, lastLSN: lastLSN)
        self.durableLSN = lastLSN
    }

    /// A writer for the file after `predecessor`'s, made at a roll-over without touching the disk:
    /// its first leader retires `predecessor` and makes the file with `create` (which writes the
    /// header and syncs the file and the directory) before it writes a record. Until then, a wait
    /// for one of the earlier records is a wait on `predecessor`.
    init(
        following predecessor: LogWriter, fileSequence: UInt64, path: String,
        create: @escaping @Sendable () throws -> any StorageFile
    ) {
        self.path = path
        self.fileSequence = fileSequence
        self.seed = predecessor.seed
        self.settings = predecessor.settings
        self.output = nil
        self.opened = nil
        self.nextFile = NextFile(predecessor: predecessor, create: create)
        let lastLSN = predecessor.lastAppendedLSN
        self.buffer = CommitBuffer(end: Int64(LogFormat.fileHeaderSize), lastLSN: lastLSN)
        self.durableLSN = lastLSN
    }

    /// Counts of the work done so far, with those of the writers before it that retired on its
    /// first lead (or are still to: a writer made at a roll-over counts its predecessor's too).
    var currentStatistics: WriterStatistics {
        let (own, predecessor) = lock.withLock { (statistics.adding(inherited), nextFile?.predecessor) }
        return predecessor.map { own.adding($0.currentStatistics) } ?? own
    }

    /// The LSN of the most recently appended record.
    var lastAppendedLSN: UInt64 { lock.withLock { buffer.lastAppendedLSN } }

    /// Where the next appended record would start: the written bytes plus everything buffered.
    var appendedEnd: Int64 { lock.withLock { buffer.end } }

    /// Buffers `frame` as the next record: ``LogFormat/frameHeaderSize`` bytes of room
    /// for the header, which this fills in, then the body. The first record of a commit
    /// group becomes the group's buffer as it is, so that a large body (a batch) is not
    /// copied again.
    ///
    /// - Returns: Its LSN and the file offset where its body will lie.
    func append(frame: consuming [UInt8], type: RecordType = .transaction) throws -> (lsn: UInt64, bodyOffset: Int64) {
        let bodyCount = frame.count - LogFormat.frameHeaderSize
        precondition(bodyCount >= 0, "a frame without room for its header")
        guard bodyCount <= LogFormat.maximumBodySize else {
            throw SpoolError.invalidArgument(
                "a record of \(bodyCount) bytes is over the maximum of \(LogFormat.maximumBodySize)")
        }
        var frame = frame
        let large = frame.count >= Self.directWriteMinimum
        let (appended, flushNow) = try lock.withLock { () -> ((lsn: UInt64, frameOffset: Int64), Bool) in
            try checkUsable()
            let appended = try buffer.append(&frame, type: type, seed: seed)
            // A large record (a batch) is handed to the flusher at once: its write and sync then
            // overlap with what its caller does before it waits (applying the batch), for ~1 ms
            // of a 1 MB record's sync. A small one waits for its caller to lead, as a lone writer
            // pays no thread hand-off that way.
            let flushNow = large && !leaderActive
            if flushNow { leaderActive = true }
            return (appended, flushNow)
        }
        if flushNow { flusher.async { [self] in try? lead(asFlusher: true) } }
        return (appended.lsn, RecordFrame.bodyStart(ofFrameAt: appended.frameOffset))
    }

    /// Refuses a wait for a record this writer was never given (one appended
    /// to another file's writer): it would otherwise return at once. Call with `lock` held.
    private func checkHolds(_ lsn: UInt64) throws(SpoolError) {
        guard buffer.holds(lsn) else {
            assertionFailure("waiting for record \(lsn), past the last appended \(buffer.lastAppendedLSN)")
            throw SpoolError(
                .ioFailure, "waiting for record \(lsn), which this log file's writer never held",
                path: path)
        }
    }

    private func checkUsable() throws {
        if isClosed { throw SpoolError(.closed, "the queue is closed") }
        // Another owner took over: that is the error every later call gets, as it is.
        if let failure, failure.code == .ownershipLost { throw failure }
        if let failure {
            throw SpoolError(
                .needsReopen, "an earlier write or sync failed (\(failure)); reopen the queue",
                path: failure.path, offset: failure.offset, errno: failure.errno,
                operation: failure.operation)
        }
    }

    // MARK: Waiting for durability

    /// Blocks until the record `lsn` is on stable storage. A caller that finds no leader leads on
    /// its own thread (a blocking caller chose to wait there).
    func waitUntilDurable(_ lsn: UInt64) throws {
        enum Next {
            case done, lead
            case wait(BlockingWait)
            case earlier(LogWriter)
        }
        let next: Next = try lock.withLock {
            if lsn <= durableLSN { return nextFile.map { .earlier($0.predecessor) } ?? .done }
            if let failure { throw failure }
            try checkHolds(lsn)
            if !leaderActive {
                leaderActive = true
                return .lead
            }
            let wait = BlockingWait()
            waiters.add(.blocking(lsn: lsn, wait))
            return .wait(wait)
        }
        switch next {
        case .done: return
        case .lead: try lead()
        case .wait(let wait): try wait.wait().get()
        case .earlier(let predecessor): try predecessor.waitUntilDurable(lsn)
        }
    }

    /// Suspends until the record `lsn` is on stable storage. It never leads: when no one does, it
    /// starts the flusher, so that its thread, one of Swift's cooperative pool, never waits on the disk.
    func waitUntilDurable(_ lsn: UInt64) async throws {
        if let predecessor = lock.withLock({ lsn <= durableLSN ? nextFile?.predecessor : nil }) {
            // A record of the file before this one, whose writer has not retired yet.
            return try await predecessor.waitUntilDurable(lsn)
        }
        let result = await withCheckedContinuation { (continuation: AsyncWait) in
            let (immediate, startFlusher) = lock.withLock { () -> (Result<Void, SpoolError>?, Bool) in
                if lsn <= durableLSN { return (.success(()), false) }
                if let failure { return (.failure(failure), false) }
                do throws(SpoolError) { try checkHolds(lsn) } catch { return (.failure(error), false) }
                waiters.add(.async(lsn: lsn, continuation))
                guard !leaderActive else { return (nil, false) }
                leaderActive = true
                return (nil, true)
            }
            if let immediate { continuation.resume(returning: immediate) }
            if startFlusher { flusher.async { [self] in try? lead(asFlusher: true) } }
        }
        try result.get()
    }

    /// Writes and syncs commit groups. A caller leads until its own record is
    /// durable; if others are still waiting then, it hands the role to the
    /// flusher and returns to its caller. The flusher leads until no waiter is
    /// left uncovered. A failure poisons the writer, which fails every waiter.
    func lead(asFlusher: Bool = false) throws {
        if output == nil { try openNextFile() }
        var work = lock.withLock { buffer.takeForWriting() }
        while true {
            let outcome = output!.write(work.groups, at: work.offset)
            if let failed = outcome.failure {
                // The groups' syncs are counted only when all of the work is durable (a failed cycle made
                // no group durable); the reservations and extending writes made on the way are counted in any case.
                var spent = outcome.statistics
                spent.dataSyncs = 0
                spent.dataSyncNanoseconds = 0
                poison(with: failed, counting: spent)
                throw failed
            }
            // One critical section per sync: the waiters it covers are taken out and, when the
            // flusher carries on, the next group with them. They are woken after the lock is
            // released, so that they do not block on it at once.
            let (covered, next) = lock.withLock { () -> ([Waiter], AfterSync) in
                statistics = statistics.adding(outcome.statistics)
                statistics.records += Int(work.lastLSN - durableLSN)
                buffer.markWritten()
                durableLSN = work.lastLSN
                let covered = waiters.take(through: durableLSN)
                if waiters.isEmpty {
                    leaderActive = false
                    return (covered, .done)
                }
                // Others wait: the flusher carries on; a caller, whose record is durable, hands
                // the role over (`leaderActive` stays true) rather than make its caller wait for
                // other callers' syncs, and rather than hold a thread of Swift's cooperative pool
                // (an async caller's) in one sync after another.
                return (covered, asFlusher ? .write(buffer.takeForWriting()) : .handOff)
            }
            if case .handOff = next { flusher.async { [self] in try? lead(asFlusher: true) } }
            Self.wake(covered, with: .success(()))
            guard case .write(let buffered) = next else { return }
            work = buffered
        }
    }

    /// What a leader does after a sync.
    private enum AfterSync {
        /// No one waits: the role is given up.
        case done
        /// A caller hands the role to the flusher.
        case handOff
        /// The flusher writes these next.
        case write(CommitBuffer.Groups)
    }

    /// Fails every waiter and every later call.
    func poison(with error: SpoolError, counting work: WriterStatistics) {
        lock.withLock {
            statistics = statistics.adding(work)
            failure = error
            let covered = waiters.takeAll()
            leaderActive = false
            buffer.dropInFlight()
            Self.wake(covered, with: .failure(error))
        }
    }

    // MARK: Reading back

    /// Reads `count` bytes at `offset`, from the buffers if they are not written yet.
    ///
    /// After a failed write or sync, bytes past what was written are refused with the
    /// writer's failure: the failed group's bytes are gone from the buffers, so the
    /// records buffered after it no longer lie where their offsets were counted, and
    /// none of them is in the file.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let buffered: [UInt8]? = try lock.withLock {
            guard offset + Int64(count) > buffer.writtenEnd else { return nil }
            if failure != nil { try checkUsable() }
            return buffer.unwritten(at: offset, count: count)
        }
        if let buffered { return buffered }
        guard let file = lock.withLock({ opened }) else {
            throw SpoolError(.ioFailure, "reading before log file \(fileSequence) was made", path: path, offset: offset)
        }
        return try file.read(at: offset, count: count)
    }

    /// Ends this file's part of the log at a roll-over: waits for every
    /// appended record to be durable, refuses further appends and cuts the
    /// reserved space after the last record off (best effort, not synced:
    /// zeroes after the last record are a clean end in any file). Unlike
    /// ``close()`` it leaves the handle open: readers that still hold this
    /// writer can read payloads until they let it go.
    ///
    /// - Returns: The LSN of the last record in the file.
    func retire() throws -> UInt64 {
        let last = lastAppendedLSN
        try waitUntilDurable(last)
        // A writer made at a roll-over and given no record makes its file all the same: the numbers
        // of the files after it must follow without a gap.
        try openNextFileWithoutRecords()
        let end = lock.withLock { () -> Int64 in
            isClosed = true
            return buffer.writtenEnd
        }
        output?.cutReservedSpace(after: end)
        return last
    }

    /// Waits for every appended record to be durable, then refuses further
    /// appends and cuts the reserved space after the last record off the file.
    func close() throws {
        let last = lastAppendedLSN
        if let unmade = closeWithoutFile() {
            // Made at a roll-over and given no record: the log ends in the file before, which closes instead.
            try unmade.close()
            return
        }
        defer {
            let file = lock.withLock { () -> (any StorageFile)? in
                isClosed = true
                return opened
            }
            file?.close()
        }
        guard lock.withLock({ failure == nil }) else { return }
        try waitUntilDurable(last)
        // No leader is left: every record is durable and appends are about to be refused.
        let end = lock.withLock { () -> Int64 in
            isClosed = true
            return buffer.writtenEnd
        }
        output?.cutReservedSpace(after: end)
    }

    /// Closes this writer for appends when it was made at a roll-over, its file is not made and it
    /// was given no record; returns the writer before it then, `nil` otherwise.
    private func closeWithoutFile() -> LogWriter? {
        lock.withLock {
            guard let nextFile, !buffer.holds(durableLSN + 1), !leaderActive else { return nil }
            isClosed = true
            return nextFile.predecessor
        }
    }
}
