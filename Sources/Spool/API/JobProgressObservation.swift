/// One job's progress as ``JobQueue/progressUpdates(_:)`` delivers it.
public struct JobProgressUpdate: Sendable, Equatable {
    /// The job.
    public var id: JobID
    /// The job's kind.
    public var kind: String
    /// The job's last reported progress; `nil` once the job finished or was removed (its progress is gone).
    public var progress: JobProgress?
}

/// The progress of the running jobs a filter selects, as their handlers report it
/// (``JobContext/reportProgress(_:)``): first the last progress of each job that has some, then each
/// report as it comes, and a `nil` progress when a job finishes. Memory only, never recorded: a
/// report costs no write, and nothing of it survives a crash or restart.
///
/// Reports that come faster than the reader are coalesced: it sees each job's latest progress, never
/// a backlog. The sequence ends when the queue closes or the reading task is cancelled.
///
/// <!-- sample: skip -->
/// ```swift
/// for await update in queue.progressUpdates(.kind(UploadPhoto.kind)) {
///     label.text = update.progress.map { "\($0.completed ?? 0) of \($0.total ?? 0) photos" } ?? "done"
/// }
/// ```
public struct JobProgressUpdates: AsyncSequence, Sendable {
    /// The sequence's element.
    public typealias Element = JobProgressUpdate
    let board: ProgressBoard
    let filter: JobFilter

    /// Starts following: the current progress of each selected job comes first.
    public func makeAsyncIterator() -> Iterator {
        let filter = self.filter
        return Iterator(
            board: board,
            token: board.observe { id, entry in
                switch filter {
                case .all: return true
                case .id(let wanted): return wanted.rawValue == id
                case .kind(let wanted): return wanted == entry.kind
                case .tag(let wanted): return entry.tags.contains(wanted)
                }
            })
    }

    /// Reads a ``JobProgressUpdates`` sequence. Use it from one task.
    public struct Iterator: AsyncIteratorProtocol {
        private let board: ProgressBoard
        private let token: UInt64

        init(board: ProgressBoard, token: UInt64) {
            self.board = board
            self.token = token
        }

        /// The next update, or `nil` once the queue closed or the task was cancelled.
        public mutating func next() async -> JobProgressUpdate? {
            guard let (id, entry) = await board.next(token) else { return nil }
            return JobProgressUpdate(id: JobID(id), kind: entry.kind, progress: entry.progress)
        }
    }
}

extension JobQueue {
    /// The last progress job `id`'s handler reported (``JobContext/reportProgress(_:)``), until the
    /// job finishes or is removed; `nil` when there is none. Memory only: a fresh open shows none.
    public func progress(of id: JobID) -> JobProgress? {
        engine.progress.progress(of: id.rawValue)
    }

    /// Follows the progress of the jobs `filter` selects. See ``JobProgressUpdates``.
    public func progressUpdates(_ filter: JobFilter = .all) -> JobProgressUpdates {
        JobProgressUpdates(board: engine.progress, filter: filter)
    }
}
