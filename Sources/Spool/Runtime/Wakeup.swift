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
        /// Whether the loop found nothing to run at its last look and nothing was posted since.
        var isIdle = false
    }

    /// What ``JobRunner/idle()`` waits on: the loop's idleness, and whether the loop runs at all.
    struct Activity: Sendable {
        /// The loop found nothing to run at its last look, and nothing was posted since.
        var isIdle = false
        /// The loop is running (from ``JobRunner/start()`` until it has ended).
        var loopRuns = false
        /// Whether nothing runs nor will without a change: idle, or no loop at all.
        var isQuiet: Bool { isIdle || !loopRuns }
    }

    private let state = Locked(State())
    /// The loop's activity, for ``JobRunner/idle()`` to wait on. Changed under `state`'s lock, so a
    /// post and the loop's settling are ordered.
    let activity = Awaitable(Activity())

    /// Adds to the pending reasons and wakes the loop if it waits.
    func post(_ change: (inout Reasons) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            change(&state.pending)
            guard !state.pending.isEmpty else { return nil }
            if state.isIdle {
                state.isIdle = false
                activity.update { $0.isIdle = false }
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The loop found nothing to run: it is idle unless something was posted since it took the
    /// reasons. Returns whether it became idle just now (it was not before).
    func settleIdle() -> Bool {
        state.withLock { state in
            guard state.pending.isEmpty, !state.isIdle else { return false }
            state.isIdle = true
            activity.update { $0.isIdle = true }
            return true
        }
    }

    /// The loop starts (`true`) or has ended (`false`). Not idle at its start, until it has looked.
    func loopRuns(_ runs: Bool) {
        state.withLock { state in
            state.isIdle = false
            activity.update {
                $0.isIdle = false
                $0.loopRuns = runs
            }
        }
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
