/// The writer of the log's active file, and what the writers before it did.
///
/// A roll-over replaces the writer (``replace(with:following:)``); callers waiting for an LSN of the previous file
/// may use either: a writer made at a roll-over sends a wait for an earlier record to the writer before
/// it until that one has retired (``LogWriter/init(following:fileSequence:path:create:)``).
final class ActiveWriter: Sendable {
    private let slot: Locked<Slot>

    private struct Slot {
        var writer: LogWriter
        /// What the writers of the files before the active one did.
        var retiredStatistics = WriterStatistics()
    }

    init(_ writer: LogWriter) {
        slot = Locked(Slot(writer: writer))
    }

    /// The writer of the active file.
    var current: LogWriter { slot.withLock { $0.writer } }

    /// Makes `next` the active file's writer. The one it replaces has retired, or `next` follows it
    /// and counts what it does (``LogWriter/currentStatistics``).
    func replace(with next: LogWriter, following: Bool = false) {
        slot.withLock {
            if !following { $0.retiredStatistics = $0.retiredStatistics.adding($0.writer.currentStatistics) }
            $0.writer = next
        }
    }

    /// What the log's writers have done since the queue was opened: the active file's writer and every
    /// writer a roll-over or a compaction retired.
    var statistics: WriterStatistics {
        slot.withLock { $0.retiredStatistics.adding($0.writer.currentStatistics) }
    }
}
