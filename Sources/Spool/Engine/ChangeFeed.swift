/// Tells subscribers which jobs changed, as the live path applies records.
///
/// The engine publishes the ids a committed transaction touched, under its
/// lock, right after applying it — before its sync completes. So a change here
/// is a hint to look again, not a durable fact: the worker runtime only wakes
/// on it (what it then does is recorded after that record), and the public
/// observation sequences (``JobChanges``) read the state with the LSN it
/// reflects and wait for that record to be durable before showing it.
/// Delivery coalesces: a subscriber that reads slowly gets the union of
/// everything changed since its last read, never a backlog, so a stalled
/// subscriber costs memory proportional to the distinct jobs changed meanwhile,
/// not to the number of changes.
///
/// The worker runtime waits on it instead of polling, and the public
/// observation sequences are built on it.
final class ChangeFeed: Sendable {
    /// What changed since a subscriber's previous read.
    struct Changes: Sendable, Equatable {
        /// The ids of the jobs whose record changed (including deleted and expired jobs).
        var jobIDs: Set<String> = []
        /// Set when something other than a job changed that may make work runnable or
        /// not — the device conditions, for example — so subscribers should re-read.
        var environmentChanged = false

        var isEmpty: Bool { jobIDs.isEmpty && !environmentChanged }
    }

    private struct Subscriber {
        var pending = Changes()
        var waiter: CheckedContinuation<Changes?, Never>?
    }

    private struct Registry {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextToken: UInt64 = 0
        var isFinished = false
    }

    private let registry = Locked(Registry())

    /// Starts receiving changes published from now on.
    func subscribe() -> ChangeSubscription {
        let token = registry.withLock { registry -> UInt64 in
            registry.nextToken += 1
            if !registry.isFinished { registry.subscribers[registry.nextToken] = Subscriber() }
            return registry.nextToken
        }
        return ChangeSubscription(feed: self, token: token)
    }

    /// Records that the jobs with `ids` changed and wakes waiting subscribers. `ids` is
    /// evaluated only when there is a subscriber: a commit with nobody listening builds nothing.
    /// The subscriber whose token is `madeBy`, which made the change itself and knows it, is
    /// neither told nor woken (a runner's handover,
    /// ``QueueEngine/end(id:token:issued:ending:claimingNext:leaseDuration:madeBy:)``).
    func publish(jobIDs ids: @autoclosure () -> [String], madeBy: UInt64? = nil) {
        var evaluated: [String]?
        deliver(skipping: madeBy) { changes in
            if evaluated == nil { evaluated = ids() }
            changes.jobIDs.formUnion(evaluated!)
        }
    }

    /// Records that something outside the jobs changed (see ``Changes/environmentChanged``).
    func publishEnvironmentChange() {
        deliver { $0.environmentChanged = true }
    }

    /// Ends every subscription: their ``ChangeSubscription/next()`` returns `nil`
    /// once pending changes are read. Called when the queue closes.
    func finish() {
        let waiters = registry.withLock { registry -> [CheckedContinuation<Changes?, Never>] in
            registry.isFinished = true
            var waiters: [CheckedContinuation<Changes?, Never>] = []
            for (token, subscriber) in registry.subscribers {
                if let waiter = subscriber.waiter {
                    waiters.append(waiter)
                    // A waiting subscriber has nothing pending: it gets `nil` now.
                    registry.subscribers[token] = nil
                }
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    private func deliver(skipping skipped: UInt64? = nil, _ change: (inout Changes) -> Void) {
        let woken = registry.withLock { registry -> [(CheckedContinuation<Changes?, Never>, Changes)] in
            guard !registry.subscribers.isEmpty else { return [] }
            var woken: [(CheckedContinuation<Changes?, Never>, Changes)] = []
            for token in registry.subscribers.keys where token != skipped {
                change(&registry.subscribers[token]!.pending)
                if let waiter = registry.subscribers[token]!.waiter {
                    woken.append((waiter, registry.subscribers[token]!.pending))
                    registry.subscribers[token]!.pending = Changes()
                    registry.subscribers[token]!.waiter = nil
                }
            }
            return woken
        }
        for (waiter, changes) in woken { waiter.resume(returning: changes) }
    }

    fileprivate enum Take {
        case ready(Changes?)
        case waiting
    }

    /// Takes the pending changes, or registers `waiter` when there are none.
    fileprivate func take(_ token: UInt64, orWait waiter: CheckedContinuation<Changes?, Never>?) -> Take {
        registry.withLock { registry in
            guard var subscriber = registry.subscribers[token] else { return .ready(nil) }
            if !subscriber.pending.isEmpty {
                let changes = subscriber.pending
                subscriber.pending = Changes()
                registry.subscribers[token] = subscriber
                return .ready(changes)
            }
            if registry.isFinished {
                registry.subscribers[token] = nil
                return .ready(nil)
            }
            guard let waiter else { return .waiting }
            precondition(subscriber.waiter == nil, "one ChangeSubscription read at a time")
            subscriber.waiter = waiter
            registry.subscribers[token] = subscriber
            return .waiting
        }
    }

    /// Stops a subscription; a read waiting on it returns `nil`.
    fileprivate func cancel(_ token: UInt64) {
        let waiter = registry.withLock { registry in
            registry.subscribers.removeValue(forKey: token)?.waiter
        }
        waiter?.resume(returning: nil)
    }
}

/// One subscriber's view of a ``ChangeFeed``. Read it from one task at a time.
final class ChangeSubscription: Sendable {
    private let feed: ChangeFeed
    /// Names the subscriber to ``ChangeFeed/publish(jobIDs:madeBy:)``.
    let token: UInt64

    fileprivate init(feed: ChangeFeed, token: UInt64) {
        self.feed = feed
        self.token = token
    }

    deinit { feed.cancel(token) }

    /// The changes since the previous read, without waiting; empty when there are none.
    /// `nil` once the subscription has ended.
    func poll() -> ChangeFeed.Changes? {
        switch feed.take(token, orWait: nil) {
        case .ready(let changes): return changes
        case .waiting: return ChangeFeed.Changes()
        }
    }

    /// Waits for the next changes. Returns `nil` when the feed finished (the queue
    /// closed), the subscription was cancelled, or the calling task was cancelled
    /// (which ends the subscription, even with changes pending).
    func next() async -> ChangeFeed.Changes? {
        if Task.isCancelled {
            feed.cancel(token)
            return nil
        }
        if case .ready(let changes) = feed.take(token, orWait: nil) { return changes }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if case .ready(let changes) = feed.take(token, orWait: continuation) {
                    continuation.resume(returning: changes)
                }
            }
        } onCancel: {
            feed.cancel(token)
        }
    }

    /// Ends the subscription; a waiting ``next()`` returns `nil`.
    func cancel() { feed.cancel(token) }
}
