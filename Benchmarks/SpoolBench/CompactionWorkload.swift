import Foundation
import Spool

/// Automatic compaction under churn: disk use, open time after the churn, and
/// enqueue latency while a compaction runs.
///
/// 1. `--churn-jobs` jobs (default 1,000,000) go through enqueue (batches of 1,000)
///    and claim + complete (16 workers), at most 10,000 live at any time, retention 0,
///    automatic compaction on, 4 MiB log files: the sum of the file sizes in the
///    queue directory is sampled every 20 ms (peak, end) against 2 × live bytes +
///    one log file, where live bytes is the log of a fresh queue holding the same live jobs.
/// 2. Open time of the churned queue against that fresh queue's.
/// 3. Enqueue latency (one producer) while compactions of a 200,000-job queue run
///    back to back, against the same queue without compaction.
func runCompaction(_ context: Context) throws {
    let logFile: Int64 = 4 << 20
    let liveLimit = 10_000
    let total = max(context.options.churnJobs, 2 * liveLimit)
    let batch = 1_000
    let workers = 16
    let payload = Data(repeating: 0x61, count: 48)
    var configuration = context.configuration
    configuration.logFileSize = logFile
    configuration.retention = 0
    // The default minimum (16 MiB) is above this workload's 2 × live bytes; 1 MiB lets the ratio decide.
    configuration.autoCompaction = AutoCompaction(
        minimumLogBytes: 1 << 20,
        obsoleteRatio: context.options.obsoleteRatio)

    // 1. Churn.
    let path = context.freshPath("compaction-churn")
    let queue = try JobQueue(directory: path, configuration: configuration)
    struct Progress { var enqueued = 0, claimsTaken = 0, completed = 0, error: String?, done = false }
    let progress = Shared(Progress())
    let disk = Shared<(peak: Int64, samples: Int)>((0, 0))
    let sampler = Thread {
        while !progress.withLock({ $0.done }) {
            let bytes = directoryBytes(path)
            disk.withLock {
                $0.peak = max($0.peak, bytes)
                $0.samples += 1
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
    sampler.start()
    let toComplete = total - liveLimit
    let start = Clock.nanoseconds()
    onThreads(workers + 1) { index in
        if index == workers {
            // The producer: batches while fewer than 10,000 jobs are live.
            while true {
                let (enqueued, live, failed) = progress.withLock {
                    ($0.enqueued, $0.enqueued - $0.completed, $0.error != nil)
                }
                if enqueued >= total || failed { return }
                let count = min(batch, total - enqueued)
                if live + count > liveLimit {
                    usleep(200)
                    continue
                }
                do {
                    try queue.enqueue(contentsOf: (0..<count).map { _ in NewJob(kind: "churn", payload: payload) })
                    progress.withLock { $0.enqueued += count }
                } catch {
                    progress.withLock { $0.error = "enqueue: \(error)" }
                    return
                }
            }
        }
        // A worker: claims a slot first, so that exactly `toComplete` jobs are completed.
        while true {
            let go = progress.withLock { state -> Bool in
                guard state.claimsTaken < toComplete, state.error == nil else { return false }
                state.claimsTaken += 1
                return true
            }
            if !go { return }
            do {
                while true {
                    if let lease = try queue.claim() {
                        try queue.complete(lease)
                        break
                    }
                    usleep(100)
                }
                progress.withLock { $0.completed += 1 }
            } catch {
                progress.withLock { $0.error = "claim/complete: \(error)" }
                return
            }
        }
    }
    let churnSeconds = Double(Clock.nanoseconds() - start) / 1e9
    if let error = progress.withLock({ $0.error }) { throw BenchError(error) }
    try queue.waitForBackgroundCompaction()
    progress.withLock { $0.done = true }
    while !sampler.isFinished { usleep(1000) }
    let endBytes = directoryBytes(path)
    let compactions = queue.backgroundCompactionCount
    try queue.close()

    // The same live jobs in a fresh queue (one batch record per 1,000, as in the churn).
    let freshPath = context.freshPath("compaction-fresh")
    do {
        var fresh = configuration
        fresh.autoCompaction = nil
        let freshQueue = try JobQueue(directory: freshPath, configuration: fresh)
        for _ in 0..<(liveLimit / batch) {
            try freshQueue.enqueue(contentsOf: (0..<batch).map { _ in NewJob(kind: "churn", payload: payload) })
        }
        try freshQueue.close()
    }
    let liveBytes = logBytes(freshPath)
    let bound = 2 * liveBytes + logFile
    let peak = disk.withLock { $0.peak }
    context.add(
        Row(
            workload: "compaction", name: "compaction: churn, \(workers) workers", latency: nil,
            rate: Double(toComplete) / churnSeconds, unit: "jobs/s",
            figures: [
                "churn_jobs": Double(total), "peak_disk_bytes": Double(peak), "end_disk_bytes": Double(endBytes),
                "live_bytes": Double(liveBytes), "bound_bytes": Double(bound),
                "peak_per_bound": Double(peak) / Double(bound), "end_per_bound": Double(endBytes) / Double(bound),
                "log_file_bytes": Double(logFile), "obsolete_ratio": context.options.obsoleteRatio,
                "background_compactions": Double(compactions),
            ]))

    // 2. Open after the churn against open of the fresh queue: best of eleven each (a 5–10 ms figure
    // on a shared machine), the two opened in turn, so that both see the same stretch of it (the
    // writeback the churn left, other processes) rather than one stretch each.
    func openSeconds(_ directories: [String]) throws -> [Double] {
        var best = [Double](repeating: .infinity, count: directories.count)
        for _ in 0..<11 {
            for (index, directory) in directories.enumerated() {
                var opened: JobQueue?
                let seconds = try Clock.seconds {
                    opened = try JobQueue(directory: directory, configuration: configuration)
                }
                guard try opened?.counts()[.enqueued] == liveLimit else {
                    throw BenchError("\(directory) does not hold \(liveLimit) enqueued jobs")
                }
                try opened?.close()
                best[index] = min(best[index], seconds)
            }
        }
        return best
    }
    let afterChurn = try openSeconds([path, freshPath])
    let (churned, freshOpen) = (afterChurn[0], afterChurn[1])
    context.add(
        Row(
            workload: "compaction", name: "compaction: open after churn", latency: nil,
            rate: Double(liveLimit) / churned, unit: "jobs/s",
            figures: [
                "open_ms": churned * 1000, "fresh_open_ms": freshOpen * 1000,
                "open_per_fresh": churned / freshOpen, "disk_bytes": Double(directoryBytes(path)),
            ]))

    // The worst case for open: the churned queue taken to just below the automatic compaction's
    // trigger by single-job cycles (enqueue, claim, complete: the records that cost the most
    // replay per byte), so that open replays the most log a compaction lets pass.
    let cycles = try fillToTrigger(path, configuration: configuration, payload: payload)
    // The fresh queue is opened again alongside, for the same reason.
    let atTriggerTimes = try openSeconds([path, freshPath])
    let (atTrigger, freshAtTrigger) = (atTriggerTimes[0], atTriggerTimes[1])
    context.add(
        Row(
            workload: "compaction", name: "compaction: open at the trigger (worst case)", latency: nil,
            rate: Double(liveLimit) / atTrigger, unit: "jobs/s",
            figures: [
                "open_ms": atTrigger * 1000, "fresh_open_ms": freshAtTrigger * 1000,
                "open_per_fresh": atTrigger / freshAtTrigger, "cycles_added": Double(cycles),
                "disk_bytes": Double(directoryBytes(path)),
            ]))
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: freshPath)

    // 3. Enqueue latency with and without a compaction running.
    let latencyPath = context.freshPath("compaction-latency")
    var quiet = context.configuration
    quiet.autoCompaction = nil
    let loaded = try JobQueue(directory: latencyPath, configuration: quiet)
    defer {
        try? loaded.close()
        try? FileManager.default.removeItem(atPath: latencyPath)
    }
    for _ in 0..<200 {
        try loaded.enqueue(contentsOf: (0..<1_000).map { _ in NewJob(kind: "load", payload: payload) })
    }
    let samples = context.options.count
    var without = Latencies(capacity: samples)
    for _ in 0..<samples { try without.measure { _ = try loaded.enqueue(NewJob(kind: "probe", payload: payload)) } }
    let running = Shared<(stop: Bool, compactions: Int, error: String?)>((false, 0, nil))
    let compactor = Thread {
        while !running.withLock({ $0.stop }) {
            do {
                _ = try loaded.compact()
                running.withLock { $0.compactions += 1 }
            } catch {
                running.withLock {
                    $0.error = "\(error)"
                    $0.stop = true
                }
            }
        }
    }
    compactor.start()
    var during = Latencies(capacity: samples)
    for _ in 0..<samples { try during.measure { _ = try loaded.enqueue(NewJob(kind: "probe", payload: payload)) } }
    running.withLock { $0.stop = true }
    while !compactor.isFinished { usleep(1000) }
    if let error = running.withLock({ $0.error }) { throw BenchError("compaction: \(error)") }
    let quietP99 = without.percentiles.p99
    context.add(Row(workload: "compaction", name: "compaction: enqueue, no compaction", latency: without.percentiles))
    context.add(
        Row(
            workload: "compaction", name: "compaction: enqueue, compactions running", latency: during.percentiles,
            figures: [
                "p99_per_quiet_p99": during.percentiles.p99 / quietP99,
                "compactions": Double(running.withLock { $0.compactions }), "live_jobs": 200_000,
            ]))
}

/// Runs enqueue + claim + complete cycles on the queue in `directory` until its log is
/// within one cycle of the automatic compaction's trigger; returns the cycles run.
private func fillToTrigger(_ directory: String, configuration: Configuration, payload: Data) throws -> Int {
    let queue = try JobQueue(directory: directory, configuration: configuration)
    defer { try? queue.close() }
    let margin: Int64 = 1024
    var cycles = 0
    while true {
        guard let room = queue.bytesBeforeAutoCompaction else {
            // A compaction is under way (or was due at open): let it finish, then fill again.
            try queue.waitForBackgroundCompaction()
            continue
        }
        if room < margin { break }
        try queue.enqueue(NewJob(kind: "churn", payload: payload))
        guard let lease = try queue.claim() else { throw BenchError("no job to claim") }
        try queue.complete(lease)
        cycles += 1
    }
    try queue.close()
    return cycles
}

/// The sum of the sizes of the files in `directory`.
private func directoryBytes(_ directory: String) -> Int64 {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.reduce(0) { sum, name in
        let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? NSNumber)??
            .int64Value
        return sum + (size ?? 0)
    }
}

/// The bytes of the log files in `directory`.
private func logBytes(_ directory: String) -> Int64 {
    directoryBytes(directory)
}
