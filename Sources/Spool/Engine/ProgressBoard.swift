/// The running jobs' progress, in memory: the last report of each job, and the observers following
/// them (``JobProgressUpdates``). Nothing here is durable, and nothing is written to the log.
///
/// A job's entry stays until the job finishes or is removed: the engine's commit calls
/// ``forget(_:)`` with the jobs a record finished or removed (only while the board holds an entry,
/// ``isTracking``). Delivery coalesces as the change feed does: a slow observer gets each job's
/// latest progress, never a backlog.
final class ProgressBoard: Sendable {
    /// One job's progress, as an observer receives it; `progress` `nil`: the job finished or is gone.
    struct Entry: Sendable, Equatable {
        var kind: String
        var progress: JobProgress?
        /// The job's tags, so that an observer may follow a tag.
        var tags: [String] = []
    }

    private struct Observer {
        /// Whether the observer follows a job, by id and entry (kind, tags).
        var filter: @Sendable (String, Entry) -> Bool
        /// Job id → its latest entry not read yet, and the order the ids first came in.
        var pending: [String: Entry] = [:]
        var order: [String] = []
        var waiter: CheckedContinuation<(String, Entry)?, Never>?
    }

    private struct Board {
        var entries: [String: Entry] = [:]
        var observers: [UInt64: Observer] = [:]
        var nextToken: UInt64 = 0
        var isFinished = false
    }

    private let board = Locked(Board())

    /// Whether any job has progress: the commit looks for finished jobs only then.
    var isTracking: Bool { board.withLock { !$0.entries.isEmpty } }

    /// The last progress job `id` reported, while it has not finished.
    func progress(of id: String) -> JobProgress? {
        board.withLock { $0.entries[id]?.progress }
    }

    /// Records job `id`'s progress and tells the observers that follow it.
    func report(_ id: String, kind: String, tags: [String], _ progress: JobProgress) {
        deliver([(id, Entry(kind: kind, progress: progress, tags: tags))], keep: true)
    }

    /// Drops the progress of the jobs with `ids` that have some (finished or removed jobs) and tells the observers.
    func forget(_ ids: [String]) {
        let gone = board.withLock { board in ids.compactMap { id in board.entries[id].map { (id, $0) } } }
        guard !gone.isEmpty else { return }
        deliver(gone.map { ($0.0, Entry(kind: $0.1.kind, progress: nil, tags: $0.1.tags)) }, keep: false)
    }

    private func deliver(_ updates: [(String, Entry)], keep: Bool) {
        let woken = board.withLock { board -> [(CheckedContinuation<(String, Entry)?, Never>, (String, Entry))] in
            guard !board.isFinished else { return [] }
            for (id, entry) in updates {
                if keep { board.entries[id] = entry } else { board.entries[id] = nil }
            }
            var woken: [(CheckedContinuation<(String, Entry)?, Never>, (String, Entry))] = []
            for token in board.observers.keys {
                for (id, entry) in updates where board.observers[token]!.filter(id, entry) {
                    if board.observers[token]!.pending.updateValue(entry, forKey: id) == nil {
                        board.observers[token]!.order.append(id)
                    }
                }
                if let waiter = board.observers[token]!.waiter, let next = Self.takeNext(&board.observers[token]!) {
                    board.observers[token]!.waiter = nil
                    woken.append((waiter, next))
                }
            }
            return woken
        }
        for (waiter, next) in woken { waiter.resume(returning: next) }
    }

    private static func takeNext(_ observer: inout Observer) -> (String, Entry)? {
        guard !observer.order.isEmpty else { return nil }
        let id = observer.order.removeFirst()
        return (id, observer.pending.removeValue(forKey: id)!)
    }

    /// Starts following the jobs `filter` selects (by id and entry): the current progress of each comes first.
    func observe(_ filter: @escaping @Sendable (String, Entry) -> Bool) -> UInt64 {
        board.withLock { board in
            board.nextToken += 1
            guard !board.isFinished else { return board.nextToken }
            var observer = Observer(filter: filter)
            for (id, entry) in board.entries.sorted(by: { $0.key < $1.key })
            where filter(id, entry) {
                observer.pending[id] = entry
                observer.order.append(id)
            }
            board.observers[board.nextToken] = observer
            return board.nextToken
        }
    }

    /// The next update for observer `token`, waiting for one; `nil` once the board finished (the
    /// queue closed) or the observer was cancelled.
    func next(_ token: UInt64) async -> (String, Entry)? {
        if Task.isCancelled {
            cancel(token)
            return nil
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = board.withLock { board -> (String, Entry)?? in
                    guard board.observers[token] != nil else { return .some(nil) }
                    if let next = Self.takeNext(&board.observers[token]!) { return .some(next) }
                    board.observers[token]!.waiter = continuation
                    return .none
                }
                if case .some(let value) = ready { continuation.resume(returning: value) }
            }
        } onCancel: {
            cancel(token)
        }
    }

    /// Ends observer `token`; a waiting ``next(_:)`` returns `nil`.
    func cancel(_ token: UInt64) {
        let waiter = board.withLock { $0.observers.removeValue(forKey: token)?.waiter }
        waiter?.resume(returning: nil)
    }

    /// Ends every observer and forgets every entry: the queue closed.
    func finish() {
        let waiters = board.withLock { board -> [CheckedContinuation<(String, Entry)?, Never>] in
            board.isFinished = true
            board.entries = [:]
            defer { board.observers = [:] }
            return board.observers.values.compactMap(\.waiter)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}

extension QueueEngine {
    /// Records the progress of job `id` while it runs under `token`, under the engine lock: a commit
    /// that finishes the job (and drops its progress) comes wholly before or after, so a late report
    /// never outlives the job. Ignored otherwise (and when the queue is closed).
    func reportProgress(id: String, token: LeaseToken, _ progress: JobProgress) {
        _ = try? withOpenState {
            guard let job = state.jobs[id], job.state == .running, job.lease?.token == token.rawValue else { return }
            self.progress.report(id, kind: job.kind, tags: job.tags, progress)
        }
    }
}
