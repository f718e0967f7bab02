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
}

/// The changes of the jobs a filter selects: first the current state of each (in enqueue
/// order), then each change as it is recorded, the job as it is then. Changes that come
/// faster than the reader are coalesced (it sees the latest state, never a backlog). The
/// sequence ends when the queue closes or the reading task is cancelled.
///
/// ```swift
/// for await change in queue.changes(.id(uploadID)) {
///     if case .updated(let job) = change, job.isPermanentlyFailed { showRetryButton(job) }
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

        init(engine: QueueEngine, filter: JobFilter) {
            self.engine = engine
            self.filter = filter
            subscription = engine.changes.subscribe()
            let current: [StoredJob]
            switch filter {
            case .all: current = (try? engine.jobs { _ in true }) ?? []
            case .kind(let kind): current = (try? engine.jobs { $0.kind == kind }) ?? []
            case .id(let id): current = ((try? engine.job(id)) ?? nil).map { [$0] } ?? []
            }
            buffer = current.map { .updated(Job($0)) }
            known = Set(current.map(\.id))
        }

        /// The next change, or `nil` once the queue closed or the task was cancelled.
        public mutating func next() async -> JobChange? {
            while bufferIndex >= buffer.count {
                buffer = []
                bufferIndex = 0
                guard let changes = await subscription.next() else { return nil }
                collect(changes.jobIDs)
            }
            defer { bufferIndex += 1 }
            return buffer[bufferIndex]
        }

        private mutating func collect(_ ids: Set<String>) {
            var updated: [StoredJob] = []
            var removed: [String] = []
            for id in ids {
                if case .id(let wanted) = filter, wanted.rawValue != id { continue }
                let lookup: StoredJob?
                do { lookup = try engine.job(JobID(id)) } catch { continue }   // closed: the sequence ends next
                if let job = lookup {
                    if case .kind(let kind) = filter, job.kind != kind { continue }
                    updated.append(job)
                    known.insert(id)
                } else if case .kind = filter {
                    if known.remove(id) != nil { removed.append(id) }
                } else {
                    removed.append(id)
                }
            }
            buffer = updated.sorted { $0.sequence < $1.sequence }.map { .updated(Job($0)) }
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
