import Foundation
import Spool

/// What `spool report` shows of a queue, gathered read-only: the jobs, their attempts from the
/// log, the log files, and what a compaction would reclaim.
struct QueueReport {
    /// One log or snapshot file and its size.
    struct LogFile {
        var name: String
        var bytes: Int64
    }

    /// What compacting a scratch copy of the queue gave.
    enum CompactionEstimate {
        /// The files' bytes before and after, and the finished jobs retention would drop.
        case measured(before: Int64, after: Int64, jobsExpired: Int)
        /// The copy could not be compacted; the reason.
        case unavailable(String)
    }

    var directory: String
    var generatedAt: Date
    var counts: QueueCounts
    var jobs: [Job]
    /// Jobs producers enqueued that the owner has not ingested yet.
    var awaiting: [AwaitingJob]
    /// The inbox files that could not be read (their jobs are not in ``awaiting``), each file's error.
    var damagedInboxFiles: [SpoolError]
    var timelines: [JobID: JobTimeline]
    var logFiles: [LogFile]
    var compaction: CompactionEstimate
    var retention: TimeInterval

    /// Reads the queue in `directory` without changing it: the jobs through the read-only replay
    /// `spool list` uses, the records for the attempts (a second lock-free read: a job the owner added
    /// between the two has no timeline; timelines are kept for the jobs of the first read); the compaction
    /// estimate from a copy of the files in a scratch directory, compacted there.
    static func read(directory: String, now: Date) throws -> QueueReport {
        let configuration = Configuration()
        var report = try QueueAccess.inspecting(directory) { queue -> QueueReport in
            let jobs = queue.jobs()
            let records = try LogInspector.records(directory: directory)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            var files: [LogFile] = []
            for name in names where name.hasPrefix("wal-") || name.hasPrefix("snap-") {
                let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
                files.append(LogFile(name: name, bytes: (attributes[.size] as? NSNumber)?.int64Value ?? 0))
            }
            let known = Set(jobs.map(\.id))
            let inbox = QueueAccess.awaitingIngestion(of: queue)
            let timelines = JobTimeline.build(from: records, now: now).filter { known.contains($0.key) }
            return QueueReport(
                directory: directory, generatedAt: now, counts: queue.counts, jobs: jobs,
                awaiting: inbox.jobs, damagedInboxFiles: inbox.damagedFiles,
                timelines: timelines, logFiles: files,
                compaction: estimateCompaction(of: directory, files: names, configuration: configuration),
                retention: configuration.retention)
        }
        report.generatedAt = now
        return report
    }

    /// Copies the queue's files (not its lock) to a scratch directory, opens the copy and compacts
    /// it: what compaction would reclaim, measured by compaction itself. The queue is not touched.
    private static func estimateCompaction(
        of directory: String, files: [String],
        configuration: Configuration
    ) -> CompactionEstimate {
        let scratch = FileManager.default.temporaryDirectory.path + "/spool-report-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            for name in files where name != "LOCK" {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory),
                    !isDirectory.boolValue
                else { continue }
                try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: scratch + "/" + name)
            }
            let before = try bytes(in: scratch)
            var scratchConfiguration = configuration
            scratchConfiguration.createIfMissing = false
            scratchConfiguration.autoCompaction = nil
            scratchConfiguration.runningJobsAtOpen = .keepUnexpiredLeases
            let queue = try JobQueue(directory: scratch, configuration: scratchConfiguration)
            let result = try queue.compact()
            try queue.close()
            return .measured(before: before, after: try bytes(in: scratch), jobsExpired: result.jobsExpired)
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// The bytes of the log and snapshot files in `directory`.
    private static func bytes(in directory: String) throws -> Int64 {
        var total: Int64 = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where name.hasPrefix("wal-") || name.hasPrefix("snap-") {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            total += (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
        return total
    }
}
