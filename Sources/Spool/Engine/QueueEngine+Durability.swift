/// What a mutator of the engine returns: the change is applied and its record appended, but the
/// record may not be durable yet. Its value is reachable only through ``QueueEngine/durably(_:)``
/// (blocking or async), which waits for the record first: a mutator of the public API that skips
/// the wait has no value to return, so it does not compile (one that returns nothing has to
/// discard the pending change with `_ =`, in plain sight).
struct Pending<Value> {
    /// Private to this file: nothing else can read the value without the wait.
    fileprivate let value: Value
    /// The record to wait for; `nil` when the change wrote none (and depends on none unwritten).
    let lsn: UInt64?

    init(_ value: Value, _ lsn: UInt64?) {
        self.value = value
        self.lsn = lsn
    }

    /// The same change, its value paired with its record's LSN (0 when it wrote none: no record
    /// has LSN 0), for a caller that orders changes by their records (the runtime's renewals).
    func withLSN() -> Pending<(value: Value, lsn: UInt64)> {
        Pending<(value: Value, lsn: UInt64)>((value, lsn ?? 0), lsn)
    }

    /// The value *without* waiting: the change may still be lost in a crash. Only for the
    /// benchmarks' log building (``JobQueue/enqueueWithoutWaiting(_:)``).
    var valueBeforeDurable: Value { value }
}

/// Durable before return: the one path from a mutator's ``Pending`` change to its value, and the
/// refusal of every later call once a write or sync failed.
extension QueueEngine {
    /// Runs `change` — a mutator, which commits under `lock` — and returns its value once its record
    /// is durable. Every mutator of the public API, the worker runtime, open (migrations, unrunnable
    /// jobs, reclaims) and compaction go through here or its async twin.
    func durably<Value>(_ change: (QueueEngine) throws -> Pending<Value>) throws -> Value {
        let pending = try noting { try change(self) }
        if let lsn = pending.lsn {
            do {
                try writer.waitUntilDurable(lsn)
            } catch {
                noteWriteFailure(error, fromWait: true)
                throw error
            }
        }
        return pending.value
    }

    /// Runs `change` and suspends until its record is durable (see the blocking variant).
    func durably<Value>(_ change: (QueueEngine) throws -> Pending<Value>) async throws -> Value {
        let pending = try noting { try change(self) }
        if let lsn = pending.lsn {
            do {
                try await writer.waitUntilDurable(lsn)
            } catch {
                noteWriteFailure(error, fromWait: true)
                throw error
            }
        }
        return pending.value
    }

    /// Blocks until record `lsn` is durable, for a read that shows nothing before it is
    /// (observation). The writer is looked up after `lsn` was returned, so a roll-over in
    /// between cannot send the wait to a writer that never held the record.
    func waitUntilDurable(_ lsn: UInt64) async throws {
        do {
            try await writer.waitUntilDurable(lsn)
        } catch {
            noteWriteFailure(error, fromWait: true)
            throw error
        }
    }

    /// Runs `body`, recording a write failure it reports (see ``noteWriteFailure(_:fromWait:)``).
    private func noting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            noteWriteFailure(error, fromWait: false)
            throw error
        }
    }

    /// Once the log's writer has failed, poisons the engine (``EngineStatus/poisoned(_:)``), so that every later call — reads
    /// included — throws ``SpoolError/Code/needsReopen``: the state in memory holds changes that
    /// may never have reached the disk, and no read may show them. A failed wait is always the
    /// writer's failure; a change refused with `needsReopen` met a writer failed already.
    private func noteWriteFailure(_ error: any Error, fromWait: Bool) {
        let spoolError = error as? SpoolError
        guard fromWait || spoolError?.code == .needsReopen else { return }
        let failure = spoolError ?? SpoolError(.ioFailure, "\(error)", path: path)
        lock.withLock { status.poison(with: Self.needsReopen(after: failure, "a write or sync of the log failed")) }
    }

    /// The error every call throws after `failure`: `what` failed, reopen the queue.
    static func needsReopen(after failure: SpoolError, _ what: String) -> SpoolError {
        // Ownership lost is kept as it is: reopening is the remedy there too, but the code says why.
        guard failure.code != .needsReopen, failure.code != .ownershipLost else { return failure }
        return SpoolError(
            .needsReopen, "\(what) (\(failure)); reopen the queue",
            path: failure.path, offset: failure.offset, errno: failure.errno, operation: failure.operation)
    }

    /// Runs `body` under `lock`, refusing with ``SpoolError/Code/closed`` once the queue is closed,
    /// and with ``SpoolError/Code/needsReopen`` once a write, a sync, a roll-over or a compaction
    /// failed (the engine is poisoned): reads too, since the state may show changes that never reached the disk.
    func withOpenState<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            switch status {
            case .closed: throw SpoolError(.closed, "the queue is closed", path: path)
            case .poisoned(let failure): throw failure
            case .opening, .open: return try body()
            }
        }
    }
}
