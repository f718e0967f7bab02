import Dispatch

/// What wakes a runner for producers' work: the watcher on the queue's `inbox/`
/// (``DirectoryWatcher``), and the ingestion each wake runs.
final class InboxWake: Sendable {
    /// Ingests the producers' inbox files into the log and returns the jobs ingested
    /// (`QueueEngine.ingestInbox()`, when the queue has an inbox, unless the runner was created with
    /// another). A pass of the runner calls it when the watcher saw the inbox change, at the first
    /// pass, and otherwise at most once per ``Configuration/inboxCheckInterval``
    /// (``JobRunner/ingestsInbox(at:for:lastIngestion:)``).
    ///
    /// It is fixed at creation and stored as a constant: a function kept as a `Locked` value (to be
    /// replaceable) was handed to the closure `inout` through a generic parameter, wrapped in a
    /// reabstraction thunk on the way in and another on the way back, so it grew by two thunks a pass
    /// (a runner slowed down with every job and would in the end overflow its stack).
    private let ingestion: @Sendable () throws -> Int
    fileprivate let watcher = Locked<DirectoryWatcher?>(nil)
    fileprivate let queue = DispatchQueue(label: "spool.inbox-watcher")

    /// - Parameter ingestion: What each ingestion runs; `nil` for the engine's.
    init(engine: QueueEngine, ingestion: (@Sendable () throws -> Int)? = nil) {
        self.ingestion = ingestion ?? { engine.hasInbox ? try engine.ingestInbox() : 0 }
    }

    /// Runs the ingestion once and returns the jobs it ingested.
    func ingest() throws -> Int {
        try ingestion()
    }

    /// Whether a watcher is running: without one, the runner also looks into the inbox on a timer.
    var isWatching: Bool { watcher.withLock { $0 != nil } }
}

extension JobRunner {
    /// Starts watching `inbox/` (created when missing): each event wakes the scheduling loop, whose
    /// pass ingests. Without a watcher (the system refused one) every pass ingests, and the loop
    /// wakes at least every ``Configuration/inboxCheckInterval``.
    func startWatchingInbox() {
        let directory = InboxFormat.directory(ofQueue: queue.directory)
        _ = try? InboxWriter.createInboxIfMissing(ofQueue: queue.directory, fileSystem: queue.configuration.fileSystem)
        let wake = inbox
        let watcher = DirectoryWatcher(
            directory: directory,
            notificationName: QueueDirectoryLayout.inboxNotificationName(directory: queue.directory),
            queue: wake.queue
        ) { [wakeup] in
            wakeup.post { $0.inboxChanged = true }
        }
        inbox.watcher.withLock { $0 = watcher }
    }

    /// Stops the watcher (the runner stopped).
    func stopWatchingInbox() {
        let watcher = inbox.watcher.withLock { watcher -> DirectoryWatcher? in
            defer { watcher = nil }
            return watcher
        }
        watcher?.cancel()
    }

    /// Whether the pass at monotonic instant `now`, woken for `reasons`, looks into the inbox: when
    /// the watcher saw it change, when there is no watcher, at the first pass (`lastIngestion` nil:
    /// none yet, or the last one failed), and when ``Configuration/inboxCheckInterval`` has passed
    /// since the last look, should the watcher have missed a write (no timer is set for that: only
    /// a pass made for other work looks). So a stream of jobs, a pass each, does not list the inbox per job.
    func ingestsInbox(at now: UInt64, for reasons: Wakeup.Reasons, lastIngestion: UInt64?) -> Bool {
        guard !reasons.inboxChanged, inbox.isWatching, let lastIngestion else { return true }
        // In seconds as a Double: an interval too long for nanoseconds in 64 bits (or infinite) never passes.
        return Double(now &- lastIngestion) / 1e9 >= queue.configuration.inboxCheckInterval
    }

    /// One ingestion, off the runner's task: the jobs it ingests are claimed in the same pass.
    /// Returns whether it went through; the loop tries a failed one again at its next pass. A file that
    /// cannot be ingested stays, and an explicit ``JobQueue/ingestInbox()`` reports it; the runner goes
    /// on (ingestion changes nothing it did not commit).
    func ingestInbox() async -> Bool {
        let wake = inbox
        return (try? await JobQueue.offload { try wake.ingest() }) != nil
    }
}
