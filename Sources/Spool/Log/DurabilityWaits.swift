import Dispatch

// How a caller waiting for a commit group is woken. Two primitives, because the two kinds of
// caller need different ones: a blocked thread can pass a wake-up on (a tree of semaphores), a
// suspended task cannot (it resumes on its own executor, perhaps late). Both carry one result.

extension LogWriter {
    /// A caller waiting for its record to be durable.
    enum Waiter {
        case async(lsn: UInt64, AsyncWait)
        case blocking(lsn: UInt64, BlockingWait)

        var lsn: UInt64 {
            switch self {
            case .async(let lsn, _), .blocking(let lsn, _): return lsn
            }
        }
    }

    /// Resumes `waiters` with `result`. Blocked threads are woken as a tree:
    /// the leader wakes the first, which passes the wake-up on when it runs
    /// (``BlockingWait``); waking each in turn would keep the leader off the
    /// disk for a futex wake per waiter, while the next group, appended during
    /// the sync, waits for its write. Suspended tasks are resumed here, each
    /// one: a resumed task runs on its own executor (one it prefers, at its own
    /// priority), which may be busy for long, so it cannot be trusted to pass a
    /// wake-up on to callers that share nothing with it but a sync.
    static func wake(_ waiters: [Waiter], with result: Result<Void, SpoolError>) {
        var blocked: [BlockingWait] = []
        for waiter in waiters {
            switch waiter {
            case .async(_, let continuation): continuation.resume(returning: result)
            case .blocking(_, let wait): blocked.append(wait)
            }
        }
        BlockingWait.resume(blocked[...], with: result)
    }
}

/// A suspended caller of ``LogWriter/waitUntilDurable(_:)-async``, resumed with its record's fate:
/// durable, or the writer failed. An async caller never leads (the flusher does), so that is all it
/// is ever told. Unlike a ``BlockingWait``, a resumed task passes no wake-up on: it runs on its own
/// executor, which may be busy, and the callers it would resume would wait for it.
typealias AsyncWait = CheckedContinuation<Result<Void, SpoolError>, Never>

/// A one-shot wait for a blocking caller.
///
/// A woken wait passes the wake-up on: before its thread returns it resumes
/// the waits it was handed (see ``resume(_:with:)``), so that a commit group's
/// blocked callers are woken as a binary tree rather than one by one by the
/// leader.
final class BlockingWait: @unchecked Sendable {
    // @unchecked: `result` and `others` are written once before the semaphore
    // is signalled and read once after it is waited on.
    private let semaphore = DispatchSemaphore(value: 0)
    private var result: Result<Void, SpoolError> = .success(())
    /// Waits this one resumes, with the same result, once its thread runs.
    private var others: ArraySlice<BlockingWait> = []

    /// Resumes the first of `waits` directly, and through it the others.
    static func resume(_ waits: ArraySlice<BlockingWait>, with result: Result<Void, SpoolError>) {
        guard let first = waits.first else { return }
        first.result = result
        first.others = waits.dropFirst()
        first.semaphore.signal()
    }

    func wait() -> Result<Void, SpoolError> {
        semaphore.wait()
        // Two subtrees: this thread wakes the first wait of each half.
        let middle = others.startIndex + (others.count + 1) / 2
        Self.resume(others[..<middle], with: result)
        Self.resume(others[middle...], with: result)
        others = []
        return result
    }
}
