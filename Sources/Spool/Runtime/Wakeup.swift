/// Why a runner's scheduling loop should look again, gathered until it does.
///
/// Posts coalesce: the loop reads the union of everything posted since its
/// last read, so a burst of changes costs one pass, and nothing is lost
/// between reading and waiting.
final class Wakeup: Sendable {
    /// What was posted since the loop last read.
    struct Reasons: Sendable, Equatable {
        /// Jobs whose record changed (from the queue's change feed).
        var changedJobIDs: Set<String> = []
        /// Something outside the jobs changed (device conditions): re-read what is runnable.
        var environmentChanged = false
        /// The change feed ended: the queue closed.
        var queueClosed = false
        /// Something in the runner changed: a handler finished, a kind was registered,
        /// a stop was asked for, a lease was renewed by hand.
        var runnerChanged = false
        /// The watcher saw the queue's `inbox/` change: a producer wrote (``InboxWake``).
        var inboxChanged = false

        var isEmpty: Bool {
            changedJobIDs.isEmpty && !environmentChanged && !queueClosed && !runnerChanged && !inboxChanged
        }
    }

    private struct State {
        var pending = Reasons()
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Adds to the pending reasons and wakes the loop if it waits.
    func post(_ change: (inout Reasons) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            change(&state.pending)
            guard !state.pending.isEmpty else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Takes the pending reasons (empty when there are none).
    func take() -> Reasons {
        state.withLock { state in
            defer { state.pending = Reasons() }
            return state.pending
        }
    }

    /// Returns once something is pending, or when the calling task is cancelled.
    /// One task waits at a time (the loop).
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if !state.pending.isEmpty || Task.isCancelled { return true }
                    precondition(state.waiter == nil, "one task waits on a Wakeup at a time")
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
