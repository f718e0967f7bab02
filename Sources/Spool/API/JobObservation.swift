/// A change to a job, as ``JobQueue/changes(_:)`` delivers it.
public enum JobChange: Sendable, Equatable {
    /// The job as it is now (also how the sequence starts: one per existing job).
    case updated(Job)
    /// The job no longer exists (deleted, or dropped by retention).
    case removed(JobID)
}

/// Which jobs a ``JobChanges`` sequence follows.
public enum JobFilter: Sendable, Equatable {
    /// Every job.
    case all
    /// The job with this id.
    case id(JobID)
    /// The jobs of this kind.
    case kind(String)
    /// The jobs carrying this tag (``NewJob/tags``).
    case tag(String)
}

extension JobFilter {
    /// Whether the filter selects jobs by a field (kind or tag), so that a removal is reported only
    /// for a job it selected.
    fileprivate var selectsByField: Bool {
        switch self {
        case .kind, .tag: return true
        case .all, .id: return false
        }
    }
}

/// The changes of the jobs a filter selects: first the current state of each (in enqueue
/// order), then each change as it is recorded, the job as it is then. Nothing is shown before
/// it is durable: each state is delivered once the records it reflects are synced, so an
/// observer never sees what a crash could undo. Changes that come faster than the reader are
/// coalesced (it sees the latest state, never a backlog; what waits for a slow reader is the
/// set of changed ids, not a history). The sequence ends when the queue closes, when a failed
/// write leaves what is durable unknown (``SpoolError/Code/needsReopen``), or when the reading
/// task is cancelled (at once, dropping what was not read yet).
///
/// ```swift
/// for await change in queue.changes(.id(uploadID)) {
///     if case .updated(let job) = change, job.isFailed { showRetryButton(job) }
/// }
/// ```
public struct JobChanges: AsyncSequence, Sendable {
    /// The sequence's element.
    public typealias Element = JobChange
    let engine: QueueEngine
    let filter: JobFilter

    /// Starts following: the current state is read after subscribing, so no change is missed.
    public func makeAsyncIterator() -> Iterator {
        Iterator(engine: engine, filter: filter)
    }

    /// Reads a ``JobChanges`` sequence. Use it from one task.
    public struct Iterator: AsyncIteratorProtocol {
        private let engine: QueueEngine
        private let filter: JobFilter
        private let subscription: ChangeSubscription
        private var buffer: [JobChange] = []
        private var bufferIndex = 0
        /// Ids of the jobs of the filtered kind seen so far, so that their removal is reported.
        private var known: Set<String> = []
        /// The last record the state in `buffer` reflects: `buffer` is shown only once it is durable.
        private var awaitedLSN: UInt64?
        /// Set when a read of the state failed (closed, or ``SpoolError/Code/needsReopen``): the sequence ends.
        private var readFailed = false

        init(engine: QueueEngine, filter: JobFilter) {
            self.engine = engine
            self.filter = filter
            subscription = engine.changes.subscribe()
            // Read after subscribing (no change is missed), and in one look at the state.
            let read = try? engine.readWithLastLSN { state -> [StoredJob] in
                switch filter {
                case .all: return state.jobs.values
                case .kind(let kind): return state.jobs.values.filter { $0.kind == kind }
                case .tag(let tag): return state.jobs.values.filter { $0.tags.contains(tag) }
                case .id(let id): return state.jobs[id.rawValue].map { [$0] } ?? []
                }
            }
            readFailed = read == nil
            let current = (read?.0 ?? []).inEnqueueOrder()
            buffer = current.map { .updated(Job($0)) }
            known = Set(current.map(\.id))
            if !buffer.isEmpty { awaitedLSN = read?.lsn }
        }

        /// The next change, or `nil` once the queue closed or the task was cancelled.
        public mutating func next() async -> JobChange? {
            if Task.isCancelled || readFailed { return end() }
            while bufferIndex >= buffer.count {
                buffer = []
                bufferIndex = 0
                guard let changes = await subscription.next() else { return end() }
                collect(changes.jobIDs)
                if readFailed { return end() }
            }
            if let lsn = awaitedLSN {
                // The state was read as the live path applied it, possibly before its sync completed.
                awaitedLSN = nil
                do { try await engine.waitUntilDurable(lsn) } catch { return end() }
                if Task.isCancelled { return end() }
            }
            defer { bufferIndex += 1 }
            return buffer[bufferIndex]
        }

        /// Ends the sequence: every later ``next()`` returns `nil`.
        private mutating func end() -> JobChange? {
            subscription.cancel()
            buffer = []
            bufferIndex = 0
            awaitedLSN = nil
            return nil
        }

        private mutating func collect(_ ids: Set<String>) {
            let wanted: [String]
            if case .id(let id) = filter {
                wanted = ids.contains(id.rawValue) ? [id.rawValue] : []
            } else {
                wanted = Array(ids)
            }
            guard !wanted.isEmpty else { return }
            // One look at the state for all of them: the buffer shows one state of the queue.
            guard let (lookups, lsn) = try? engine.readWithLastLSN({ state in wanted.map { ($0, state.jobs[$0]) } })
            else {
                readFailed = true  // closed, or a write failed: the sequence ends
                return
            }
            var updated: [StoredJob] = []
            var removed: [String] = []
            for (id, lookup) in lookups {
                if let job = lookup {
                    if case .kind(let kind) = filter, job.kind != kind { continue }
                    if case .tag(let tag) = filter, !job.tags.contains(tag) { continue }
                    updated.append(job)
                    known.insert(id)
                } else if filter.selectsByField {
                    if known.remove(id) != nil { removed.append(id) }
                } else {
                    removed.append(id)
                }
            }
            if !updated.isEmpty || !removed.isEmpty { awaitedLSN = lsn }
            buffer =
                updated.inEnqueueOrder().map { .updated(Job($0)) }
                + removed.sorted().map { .removed(JobID($0)) }
        }
    }
}

extension JobQueue {
    /// Follows the jobs `filter` selects: the current state of each, then every change as it is
    /// recorded — including jobs cancelled or unblocked by a chain's cascade. See ``JobChanges``.
    public func changes(_ filter: JobFilter = .all) -> JobChanges {
        JobChanges(engine: engine, filter: filter)
    }
}
