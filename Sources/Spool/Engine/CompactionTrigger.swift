/// When the log is due for an automatic compaction (``Configuration/autoCompaction``): what the log
/// costs to replay, and the limit the live jobs allow.
///
/// It owns the bookkeeping behind that judgement — the bytes of each log file before the active one,
/// the transition records after the snapshot, the estimated bytes of a live job — and is told of each
/// commit, roll-over and compaction. A value the engine keeps under its lock; O(1) to ask.
struct CompactionTrigger {
    /// The automatic compaction's settings (`nil`: off).
    private let settings: AutoCompaction?
    /// Bytes (up to the end of the last record) of each log file before the active one.
    private var retiredFileBytes: [UInt64: Int64] = [:]
    /// The sum of `retiredFileBytes`.
    private var retiredBytes: Int64 = 0
    /// The log's replay cost just after the last compaction finished.
    private var costAfterCompaction: Int64 = 0
    /// Transition records (records that enqueue no job) in the log after its snapshot (all of them when
    /// there is none).
    private(set) var recordsSinceSnapshot: Int
    /// The estimated bytes one live job takes in a snapshot: measured by the last compaction, moved
    /// towards the size of each new job's enqueue meanwhile.
    private var averageJobBytes: Double = 128

    /// A trigger for a log replayed with `recordsSinceSnapshot` transition records after its snapshot,
    /// whose files before the active one hold `retiredFiles` (sequence number, bytes).
    init(settings: AutoCompaction?, recordsSinceSnapshot: Int, retiredFiles: [(sequence: UInt64, bytes: Int64)]) {
        self.settings = settings
        self.recordsSinceSnapshot = recordsSinceSnapshot
        for file in retiredFiles { fileRetired(sequence: file.sequence, bytes: file.bytes) }
    }

    // MARK: What it is told

    /// A record was appended: a transition (it enqueues no job) counts towards the trigger.
    mutating func recordAppended(enqueuesJob: Bool) {
        if !enqueuesJob { recordsSinceSnapshot += 1 }
    }

    /// A job was enqueued whose restore operation would take about `bytes` in a snapshot.
    mutating func jobEnqueued(bytes: Int) {
        averageJobBytes += (Double(bytes) - averageJobBytes) / 64
    }

    /// A roll-over retired log file `sequence`, whose records end at `bytes`.
    mutating func fileRetired(sequence: UInt64, bytes: Int64) {
        retiredFileBytes[sequence] = bytes
        retiredBytes += bytes
    }

    /// A compaction replaced every file before `snapshotSequence` (and `recordsReplaced` transition records)
    /// with a snapshot of `snapshotBytes` holding `jobs` jobs; the active file now ends at `activeEnd`.
    mutating func compacted(
        snapshotSequence: UInt64, snapshotBytes: Int64, recordsReplaced: Int, jobs: Int, activeEnd: Int64
    ) {
        for (sequence, bytes) in retiredFileBytes where sequence < snapshotSequence {
            retiredFileBytes[sequence] = nil
            retiredBytes -= bytes
        }
        fileRetired(sequence: snapshotSequence, bytes: snapshotBytes)
        recordsSinceSnapshot -= recordsReplaced
        costAfterCompaction = replayCost(activeEnd: activeEnd)
        if jobs > 0 { averageJobBytes = max(32, Double(snapshotBytes) / Double(jobs)) }
    }

    // MARK: What it tells

    /// The bytes of the log files, up to the end of the last record of the active one (which ends at `activeEnd`).
    func logBytes(activeEnd: Int64) -> Int64 { retiredBytes + activeEnd }

    /// What replaying the log costs, in bytes: its bytes, plus ``AutoCompaction/bytesPerRecord`` for each
    /// transition record after the snapshot. Records that enqueue jobs count their bytes only: a log of
    /// live jobs alone holds nothing obsolete and never triggers a compaction.
    func replayCost(activeEnd: Int64) -> Int64 {
        logBytes(activeEnd: activeEnd) + Int64(recordsSinceSnapshot) * AutoCompaction.bytesPerRecord
    }

    /// The replay cost past which automatic compaction starts with `liveJobs` unfinished jobs (`nil`: off).
    func limit(liveJobs: Int) -> Int64? {
        guard let settings else { return nil }
        let live = Double(liveJobs) * averageJobBytes
        let limit = (1 + max(0, settings.obsoleteRatio)) * max(live, Double(costAfterCompaction))
        // An infinite ratio times nothing live is NaN: no limit from the ratio then. A negative
        // minimum is as none (the replay cost is never negative), and `.min - 1` would overflow.
        let capped = limit.isNaN ? Double(Int64.max / 2) : min(limit, Double(Int64.max / 2))
        return max(max(settings.minimumLogBytes, 0) - 1, Int64(capped))
    }

    /// Whether the log, its active file ending at `activeEnd`, is due with `liveJobs` unfinished jobs.
    func isDue(liveJobs: Int, activeEnd: Int64) -> Bool {
        guard let limit = limit(liveJobs: liveJobs) else { return false }
        return replayCost(activeEnd: activeEnd) > limit
    }
}
