import Dispatch

/// Appends records to the active log file and makes them durable with group
/// commit.
///
/// Callers ``append(_:)`` a record (cheap: it goes to an in-memory buffer and
/// gets its LSN), then wait until it is durable. The first waiter to find no
/// write in progress becomes the leader: it takes everything buffered, writes
/// it with one `pwrite` and syncs it with one `fdatasync`, then wakes every
/// waiter that sync covered. A lone writer so pays no delay and no thread
/// hand-off. Records appended during the sync form the next group: if anyone
/// waits when the leader's own record is durable, it hands the role to the
/// *flusher*, a thread of the writer's own (a serial dispatch queue), and
/// returns to its caller; the flusher writes group after group until no one
/// waits. So many writers share syncs, no caller waits for syncs that are not
/// its own, and an async caller holds a thread of Swift's cooperative pool for
/// at most one sync. Blocked callers are woken as a tree (``BlockingWait``),
/// suspended tasks each by the leader (``AsyncWakeUp``), and a leader takes
/// the waiters a sync covered and the next group in one critical section.
/// A large record (a batch) goes to the flusher as soon as it is appended, when
/// no one leads, so that its write and sync overlap with its caller's work
/// before the caller waits.
///
/// The file grows in preallocated chunks (``FileReservation``), so that most
/// groups need only a data sync. Close cuts the file back to the last record.
///
/// The frame of each record is sealed by ``RecordFrame``; the counts of the work
/// done are ``WriterStatistics``; the waits are ``BlockingWait`` and ``AsyncWait``
/// (DurabilityWaits.swift).
///
/// Any failed write or sync poisons the writer: every waiter it covered and
/// every later call gets the error, since what reached the disk is unknown and
/// a retried fsync cannot be trusted. The queue must be reopened.
final class LogWriter: @unchecked Sendable {
    // @unchecked: every mutable property below is guarded by `lock`, except
    // `file`, which is immutable and safe for concurrent positional I/O, and
    // the leader-owned ones, which only the current leader touches (the role
    // passes from a caller to the flusher under `lock`).

    let file: any StorageFile
    /// The sync each commit group gets (``Durability``): a data sync, or an ordered one.
    let durability: Durability
    let fileSequence: UInt64
    /// The checksum seed of the file's frames.
    let seed: UInt32
    /// A ``ProcessSharing/shared`` owner's fence: every write and sync of a commit group, and every
    /// cut of the file, runs inside it; `nil` for an ``ProcessSharing/exclusive`` owner.
    let fence: OwnershipFence?
    private let lock = Lock()
    /// Where the flusher runs: a thread of its own, outside Swift's cooperative pool.
    private let flusher = DispatchQueue(label: "spool.log-flusher", qos: .userInitiated)

    // Leader-owned:
    /// The file's preallocated space.
    private var reservation: FileReservation

    // Guarded by `lock`:
    /// Full commit groups waiting for a leader (a group holds at most
    /// ``LogFormat/maximumGroupRecords`` records), oldest first.
    private var sealedGroups: [[UInt8]] = []
    /// Framed records of the group being filled.
    private var pending: [UInt8] = []
    private var pendingRecords = 0
    /// Bytes a leader is writing now, starting at `writtenEnd`.
    private var inFlight: [UInt8] = []
    /// Everything before this offset has been written (and, unless a leader is
    /// between its write and its sync, synced).
    private var writtenEnd: Int64
    private var nextLSN: UInt64
    private var durableLSN: UInt64
    private var leaderActive = false
    private var waiters: [Waiter] = []
    /// A ``waitForWaiters(_:until:)`` in progress: how many waiters it waits for, and its signal.
    private var waiterWatch: (count: Int, semaphore: DispatchSemaphore)?
    private var failure: SpoolError?
    private var isClosed = false
    private var statistics = WriterStatistics()

    /// - Parameters:
    ///   - end: The offset after the last intact record: where the next record goes.
    ///   - lastLSN: The LSN of the last record in the log, 0 for an empty log.
    ///   - preallocationChunk: Bytes to reserve ahead of the write position at a time; 0 for none.
    ///   - durability: The sync of each commit group that fits the reserved space (the others,
    ///     and the reservations, get full syncs whatever it says).
    init(
        file: any StorageFile, fileSequence: UInt64, seed: UInt32, end: Int64, lastLSN: UInt64,
        preallocationChunk: Int64 = LogWriter.defaultPreallocationChunk, durability: Durability = .full,
        fence: OwnershipFence? = nil
    ) {
        self.fence = fence
        self.file = file
        self.durability = durability
        self.fileSequence = fileSequence
        self.seed = seed
        self.writtenEnd = end
        self.nextLSN = lastLSN + 1
        self.durableLSN = lastLSN
        self.reservation = FileReservation(end: end, chunk: preallocationChunk)
    }

    /// Counts of the work done so far.
    var currentStatistics: WriterStatistics { lock.withLock { statistics } }

    /// Blocks until at least `count` callers wait for a sync (the leader not counted), or until
    /// `deadline`; returns whether they do. For tests that hold a sync open and must know who
    /// waits behind it: each caller that starts waiting signals the watch, so nothing polls.
    func waitForWaiters(_ count: Int, until deadline: DispatchTime) -> Bool {
        let watch = DispatchSemaphore(value: 0)
        let already = lock.withLock { () -> Bool in
            if waiters.count >= count { return true }
            waiterWatch = (count, watch)
            return false
        }
        if already { return true }
        let reached = watch.wait(timeout: deadline) == .success
        lock.withLock { waiterWatch = nil }
        return reached
    }

    /// Registers `waiter` and signals a ``waitForWaiters(_:until:)`` it satisfies. Call with `lock` held.
    private func addWaiter(_ waiter: Waiter) {
        waiters.append(waiter)
        if let watch = waiterWatch, waiters.count >= watch.count {
            watch.semaphore.signal()
            waiterWatch = nil
        }
    }

    /// The LSN of the most recently appended record.
    var lastAppendedLSN: UInt64 { lock.withLock { nextLSN - 1 } }

    /// Where the next appended record would start: the written bytes plus everything buffered.
    var appendedEnd: Int64 { lock.withLock { bufferedEnd } }

    /// Where the next appended record would start. Call with `lock` held.
    private var bufferedEnd: Int64 {
        writtenEnd + Int64(inFlight.count) + Int64(sealedGroups.reduce(0) { $0 + $1.count }) + Int64(pending.count)
    }

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
        let (appended, flushNow) = try lock.withLock { () -> ((lsn: UInt64, bodyOffset: Int64), Bool) in
            try checkUsable()
            guard nextLSN <= LogFormat.maximumLSN else {
                throw SpoolError(.invalidArgument, "the log sequence number space is exhausted")
            }
            if pendingRecords == LogFormat.maximumGroupRecords {
                sealedGroups.append(pending)
                pending = []
                pendingRecords = 0
            }
            let lsn = nextLSN
            let frameOffset = bufferedEnd
            RecordFrame.seal(&frame, type: type, lsn: lsn, groupIndex: UInt16(pendingRecords), seed: seed)
            if pending.isEmpty { pending = frame } else { pending.append(contentsOf: frame) }
            nextLSN += 1
            pendingRecords += 1
            // A large record (a batch) is handed to the flusher at once: its write and sync then
            // overlap with what its caller does before it waits (applying the batch), for ~1 ms
            // of a 1 MB record's sync. A small one waits for its caller to lead, as a lone writer
            // pays no thread hand-off that way.
            let flushNow = large && !leaderActive
            if flushNow { leaderActive = true }
            return ((lsn, RecordFrame.bodyStart(ofFrameAt: frameOffset)), flushNow)
        }
        if flushNow { flusher.async { [self] in try? lead(asFlusher: true) } }
        return appended
    }

    /// Refuses a wait for a record this writer was never given (one appended
    /// to another file's writer): it would otherwise return at once. Call with `lock` held.
    private func checkHolds(_ lsn: UInt64) throws(SpoolError) {
        guard lsn < nextLSN else {
            assertionFailure("waiting for record \(lsn), past the last appended \(nextLSN - 1)")
            throw SpoolError(
                .ioFailure, "waiting for record \(lsn), which this log file's writer never held",
                path: file.path)
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

    /// Blocks until the record `lsn` is on stable storage.
    func waitUntilDurable(_ lsn: UInt64) throws {
        enum Next {
            case done, lead
            case wait(BlockingWait)
        }
        let next: Next = try lock.withLock {
            if lsn <= durableLSN { return .done }
            if let failure { throw failure }
            try checkHolds(lsn)
            if !leaderActive {
                leaderActive = true
                return .lead
            }
            let wait = BlockingWait()
            addWaiter(.blocking(lsn: lsn, wait))
            return .wait(wait)
        }
        switch next {
        case .done: return
        case .lead: try lead()
        case .wait(let wait): try wait.wait().get()
        }
    }

    /// Suspends until the record `lsn` is on stable storage.
    func waitUntilDurable(_ lsn: UInt64) async throws {
        let wakeUp = await withCheckedContinuation { (continuation: AsyncWait) in
            let immediate: AsyncWakeUp? = lock.withLock {
                if lsn <= durableLSN { return .done(.success(())) }
                if let failure { return .done(.failure(failure)) }
                do throws(SpoolError) { try checkHolds(lsn) } catch { return .done(.failure(error)) }
                if !leaderActive {
                    leaderActive = true
                    return .lead
                }
                addWaiter(.async(lsn: lsn, continuation))
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        switch wakeUp {
        case .lead:
            // The leader blocks this thread for one write and one sync.
            try lead()
        case .done(let result):
            try result.get()
        }
    }

    /// Writes and syncs commit groups. A caller leads until its own record is
    /// durable; if others are still waiting then, it hands the role to the
    /// flusher and returns to its caller. The flusher leads until no waiter is
    /// left uncovered. A failure poisons the writer, which fails every waiter.
    private func lead(asFlusher: Bool = false) throws {
        var work = lock.withLock { takeBuffered() }
        while true {
            var failed: SpoolError?
            var written: Int64 = 0
            var syncNanoseconds: UInt64 = 0
            do {
                // Inside the fence (a `.shared` owner): the check that this process still owns the
                // queue, the writes and syncs, and the cut after a failed one, under one hold of `LOCK`.
                try fenced {
                    for group in work.groups where failed == nil {
                        // One write and one sync per group: the scanner's torn-tail rule depends on it.
                        do {
                            syncNanoseconds += try writeAndSync(group, at: work.offset + written)
                            written += Int64(group.count)
                        } catch let error as SpoolError {
                            failed = error
                        } catch {
                            failed = SpoolError(.ioFailure, "\(error)", path: file.path, offset: work.offset + written)
                        }
                    }
                    if failed != nil { cutBack(to: work.offset + written) }
                }
            } catch {
                // The fence refused (ownership lost, `LOCK` busy): nothing of the work was written, and
                // nothing of the file may be touched (another owner may be writing it).
                failed = error as? SpoolError ?? SpoolError(.ioFailure, "\(error)", path: file.path)
            }
            if let failed {
                poison(with: failed)
                throw failed
            }
            // One critical section per sync: the waiters it covers are taken out and, when the
            // flusher carries on, the next group with them. They are woken after the lock is
            // released, so that they do not block on it at once.
            let (covered, next) = lock.withLock { () -> ([Waiter], AfterSync) in
                statistics.dataSyncs += work.groups.count
                statistics.dataSyncNanoseconds += syncNanoseconds
                statistics.records += Int(work.lastLSN - durableLSN)
                writtenEnd += Int64(inFlight.count)
                inFlight = []
                durableLSN = work.lastLSN
                let covered = takeWaiters(through: durableLSN)
                if waiters.isEmpty {
                    leaderActive = false
                    return (covered, .done)
                }
                // Others wait: the flusher carries on; a caller, whose record is durable, hands
                // the role over (`leaderActive` stays true) rather than make its caller wait for
                // other callers' syncs, and rather than hold a thread of Swift's cooperative pool
                // (an async caller's) in one sync after another.
                return (covered, asFlusher ? .write(takeBuffered()) : .handOff)
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
        case write(Buffered)
    }

    /// Buffered records taken for writing: one or more commit groups.
    private struct Buffered {
        var groups: [[UInt8]]
        /// Where the first group goes.
        var offset: Int64
        var lastLSN: UInt64
    }

    /// Takes every buffered group for writing and marks it in flight. Call with `lock` held.
    private func takeBuffered() -> Buffered {
        var groups = sealedGroups
        if !pending.isEmpty { groups.append(pending) }
        sealedGroups = []
        pending = []
        pendingRecords = 0
        inFlight = groups.count == 1 ? groups[0] : groups.flatMap { $0 }
        return Buffered(groups: groups, offset: writtenEnd, lastLSN: nextLSN - 1)
    }

    /// Removes and returns the waiters whose records are at or before `lsn`,
    /// keeping the others in order. Call with `lock` held.
    private func takeWaiters(through lsn: UInt64) -> [Waiter] {
        var covered: [Waiter] = []
        covered.reserveCapacity(waiters.count)
        var kept = 0
        for index in waiters.indices {
            if waiters[index].lsn <= lsn {
                covered.append(waiters[index])
            } else {
                waiters.swapAt(kept, index)
                kept += 1
            }
        }
        waiters.removeLast(waiters.count - kept)
        return covered
    }

    /// Writes one commit group at `offset` and makes it durable. Leader only.
    ///
    /// A group that fits the reserved space, or is small, is written inside a
    /// durable reservation (reserving first if needed) and needs only a data
    /// sync. A large group that would end past the reserved space is written
    /// there as it is, extending the file, and made durable with one full sync
    /// (``FileReservation/extends(groupOf:endingAt:)``).
    ///
    /// - Returns: The nanoseconds the group's sync took (not the reservation's).
    private func writeAndSync(_ group: [UInt8], at offset: Int64) throws -> UInt64 {
        let end = offset + Int64(group.count)
        let extending = reservation.extends(groupOf: group.count, endingAt: end)
        if !extending {
            let reserved = try reservation.reserve(through: end, in: file)
            if reserved > 0 {
                lock.withLock {
                    statistics.fullSyncs += 1
                    statistics.reservedBytes += reserved
                }
            }
        }
        try file.write(group, at: offset)
        let syncStart = Platform.monotonicNanoseconds()
        if extending {
            try file.fullSync()
            reservation.extended(to: end)
            lock.withLock { statistics.extendingWrites += 1 }
        } else {
            switch durability {
            case .full: try file.syncData()
            case .ordered: try file.orderedSync()
            }
        }
        return Platform.monotonicNanoseconds() &- syncStart
    }

    /// Runs `body` inside the fence, or as it is without one.
    private func fenced<T>(_ body: () throws -> T) throws -> T {
        guard let fence else { return try body() }
        return try fence.fenced(body)
    }

    /// What a failed write or sync left in the file is unknown, so it is cut back, best effort, to
    /// what was synced; replay treats whatever remains after a crash as a torn tail. Leader only,
    /// inside the fence.
    private func cutBack(to end: Int64) {
        try? file.truncate(to: end)
        // Orders the cut before anything a reopen writes; nothing is acknowledged on the strength of it.
        try? file.syncData()
    }

    /// Fails every waiter and every later call.
    private func poison(with error: SpoolError) {
        lock.withLock {
            failure = error
            let covered = waiters
            waiters = []
            leaderActive = false
            inFlight = []
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
            guard offset + Int64(count) > writtenEnd else { return nil }
            if failure != nil { try checkUsable() }
            let start = Int(offset - writtenEnd)
            let combined = inFlight + sealedGroups.flatMap { $0 } + pending
            guard start >= 0, start + count <= combined.count else { return [] }
            return Array(combined[start..<(start + count)])
        }
        if let buffered { return buffered }
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
        let end = lock.withLock { () -> Int64 in
            isClosed = true
            return writtenEnd
        }
        try? fenced { if let size = try? file.size(), size > end { try? file.truncate(to: end) } }
        return last
    }

    /// Waits for every appended record to be durable, then refuses further
    /// appends and cuts the reserved space after the last record off the file.
    func close() throws {
        let last = lastAppendedLSN
        defer {
            lock.withLock { isClosed = true }
            file.close()
        }
        guard lock.withLock({ failure == nil }) else { return }
        try waitUntilDurable(last)
        // No leader is left: every record is durable and appends are about to be refused.
        let end = lock.withLock { () -> Int64 in
            isClosed = true
            return writtenEnd
        }
        // Best effort and not synced: zeroes after the last record are a clean end, so
        // a cut that fails or is lost in a crash loses nothing and fails no call.
        try? fenced { if let size = try? file.size(), size > end { try? file.truncate(to: end) } }
    }
}
