import Dispatch

/// What wakes a runner for producers' work: the watcher on the queue's `inbox/`
/// (``DirectoryWatcher``), and the ingestion each wake runs.
final class InboxWake: Sendable {
    /// Ingests the producers' inbox files into the log and returns the jobs ingested
    /// (`QueueEngine.ingestInbox()`, when the queue has an inbox). Every pass of the runner calls
    /// it (the bounded fallback check), and the watcher makes a pass; tests replace it to watch the passes.
    let ingestion: Locked<@Sendable () throws -> Int>
    /// Called with the watcher's event time (monotonic nanoseconds) when it fires, for tests and figures.
    let onEvent = Locked<(@Sendable (UInt64) -> Void)?>(nil)
    fileprivate let watcher = Locked<DirectoryWatcher?>(nil)
    fileprivate let queue = DispatchQueue(label: "spool.inbox-watcher")

    init(engine: QueueEngine) {
        ingestion = Locked({ engine.hasInbox ? try engine.ingestInbox() : 0 })
    }

    /// Whether a watcher is running: without one, the runner also looks into the inbox on a timer.
    var isWatching: Bool { watcher.withLock { $0 != nil } }
}

extension JobRunner {
    /// Starts watching `inbox/` (created when missing): each event wakes the scheduling loop, whose
    /// pass ingests. Without a watcher (the system refused one) the passes still ingest.
    func startWatchingInbox() {
        let directory = queue.directory + "/" + QueueDirectoryLayout.inboxDirectoryName
        let fileSystem = queue.configuration.fileSystem
        if (try? fileSystem.entryKind(at: directory)) == nil {
            try? fileSystem.createDirectory(at: directory)
            try? fileSystem.syncDirectory(at: queue.directory)
        }
        let wake = inbox
        let watcher = DirectoryWatcher(
            directory: directory,
            notificationName: QueueDirectoryLayout.inboxNotificationName(directory: queue.directory),
            queue: wake.queue
        ) { [wakeup] in
            let now = Platform.monotonicNanoseconds()
            wake.onEvent.withLock { $0 }?(now)
            wakeup.post { $0.runnerChanged = true }
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

    /// One ingestion (each pass), off the runner's task: the jobs it ingests are claimed in the same
    /// pass. A file that cannot be ingested stays, and an explicit ``JobQueue/ingestInbox()`` reports
    /// it; the runner goes on (ingestion changes nothing it did not commit).
    func ingestInbox() async {
        let ingestion = inbox.ingestion.withLock { $0 }
        _ = try? await JobQueue.offload { try ingestion() }
    }
}
