/// A value under a lock that tasks wait on: ``wait(until:)`` returns once a condition over the value
/// holds, or once the waiting task is cancelled (so a wait for something that never comes ends with
/// its task, never holding it forever).
///
/// Waiters suspend; none blocks a thread. Conditions run under the lock, on the thread that changed
/// the value: keep them short and call nothing from them.
///
/// `package`: the Apple product (SpoolApp) waits on it too.
package final class Awaitable<Value>: @unchecked Sendable {
    // @unchecked: `Value` is only touched under `state`'s lock, and values given out are copies.
    private struct Waiter {
        let id: UInt64
        let condition: (Value) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var lastWaiter: UInt64 = 0
    }

    private let state: Locked<State>

    package init(_ value: Value) { state = Locked(State(value: value)) }

    /// Reads the value under the lock.
    package func read<T>(_ body: (Value) -> T) -> T { state.withLock { body($0.value) } }

    /// Changes the value under the lock, then resumes every waiter whose condition now holds; returns what
    /// `change` returns.
    @discardableResult
    package func update<T>(_ change: (inout Value) -> T) -> T {
        let (result, ready) = state.withLock { state -> (T, [CheckedContinuation<Void, Never>]) in
            let result = change(&state.value)
            let value = state.value
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(value) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Returns once `condition` holds for the value (at once if it does already), or once the calling
    /// task is cancelled: check `Task.isCancelled` where the difference matters.
    package func wait(until condition: @escaping @Sendable (Value) -> Bool) async {
        let id = state.withLock { state -> UInt64 in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if condition(state.value) || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
