import Foundation
import Spool

/// Whether Spool blocks the threads of Swift's cooperative pool (issue 45): `stallProducers` async
/// producers enqueue 16 KiB jobs into a queue whose log files are small (so it rolls over every few
/// hundred jobs), while a probe thread starts a trivial task every millisecond and records how late
/// it starts (from the task's creation to its first instruction). The same probe runs beside a
/// CPU-only load of the same shape: as many tasks, each copying and summing a 16 KiB payload (about
/// an enqueue's own CPU) and then suspending (`Task.yield()`), so that what the pool's threads do
/// besides waiting on the disk is there too. The two loads take turns in ``stallRounds`` rounds of a
/// third of `--duration` each, so that both see the same stretches of the machine.
///
/// Also counted: the syncs that ran inside a task (on a pool thread; Spool's own threads and
/// blocking callers' run no task), every sync of the log, and the roll-overs.
func runStall(_ context: Context) throws {
    var configuration = context.configuration
    configuration.logFileSize = stallLogFileSize
    // The log only grows here: a compaction would copy every job again, which is another workload's business.
    configuration.autoCompaction = nil
    let path = context.freshPath("stall")
    let queue = try JobQueue(directory: path, configuration: configuration)
    defer { try? queue.close() }
    let payload = Data(repeating: 0x61, count: 16 << 10)
    try queue.enqueue(NewJob(kind: "bench", payload: payload))
    let slice = context.options.duration / Double(stallRounds)
    var underEnqueues = Latencies()
    var underCPU = Latencies()
    var enqueues = TimedRun()
    var cpuRounds = TimedRun()
    let before = (statistics: queue.logStatistics, inTasks: JobQueue.syncsInsideTasks)
    var inTasks = 0
    for _ in 0..<stallRounds {
        let cpu = probing(seconds: slice) {
            runTimed(tasks: stallProducers, seconds: slice) {
                var copy = payload
                copy[0] &+= 1
                var sum: UInt64 = 0
                copy.withUnsafeBytes { bytes in
                    for word in bytes.bindMemory(to: UInt64.self) { sum = sum &+ word }
                }
                if sum == 0 { return false }
                await Task.yield()
                return true
            }
        }
        underCPU.append(contentsOf: cpu.probe)
        cpuRounds.operations += cpu.load.operations
        let census = JobQueue.syncsInsideTasks
        let enqueue = probing(seconds: slice) {
            runTimed(tasks: stallProducers, seconds: slice) {
                _ = try await queue.enqueue(NewJob(kind: "bench", payload: payload))
                return true
            }
        }
        inTasks += JobQueue.syncsInsideTasks - census
        if let error = enqueue.load.error { throw BenchError("a producer failed: \(error)") }
        underEnqueues.append(contentsOf: enqueue.probe)
        enqueues.operations += enqueue.load.operations
        enqueues.elapsed += enqueue.load.elapsed
        enqueues.latencies.append(contentsOf: enqueue.load.latencies)
    }
    let after = queue.logStatistics
    let syncs = after.dataSyncs + after.fullSyncs - before.statistics.dataSyncs - before.statistics.fullSyncs
    let files = (try? FileManager.default.contentsOfDirectory(atPath: path))?.filter { $0.hasSuffix(".log") } ?? []
    let cpu = underCPU.percentiles
    let probe = underEnqueues.percentiles
    context.add(
        Row(
            workload: "stall", name: "stall: probe beside CPU-only tasks", latency: cpu,
            figures: ["max_us": underCPU.maximum, "load_operations": Double(cpuRounds.operations)]))
    context.add(
        Row(
            workload: "stall", name: "stall: probe beside \(stallProducers) enqueuing tasks", latency: probe,
            figures: [
                "max_us": underEnqueues.maximum, "p50_per_cpu_only": probe.p50 / max(cpu.p50, 0.001),
                "p99_per_cpu_only": probe.p99 / max(cpu.p99, 0.001),
                // Syncs inside tasks over the enqueue rounds only (the census counts the whole process).
                "syncs_inside_tasks": Double(inTasks), "syncs": Double(syncs),
                "roll_overs": Double(max(0, files.count - 1)),
            ]))
    context.add(
        Row(
            workload: "stall", name: "stall: \(stallProducers) tasks enqueuing 16 KiB",
            latency: enqueues.latencies.percentiles, rate: Double(enqueues.operations) / enqueues.elapsed,
            unit: "acks/s",
            figures: ["syncs_inside_tasks_whole_run": Double(JobQueue.syncsInsideTasks - before.inTasks)]))
}

/// Producers of the stall workload.
let stallProducers = 8
/// Turns the two loads of the stall workload take.
let stallRounds = 3
/// The stall workload's log file size: a roll-over every ~500 of its jobs.
let stallLogFileSize: Int64 = 8 << 20

/// Runs `load` (which blocks its caller until it ends) beside a probe thread that, every
/// millisecond, starts a detached task doing nothing but note the time it starts; returns the
/// load's result and each probe task's lateness in µs.
private func probing(seconds: Double, _ load: () -> TimedRun) -> (load: TimedRun, probe: Latencies) {
    let lateness = Shared(Latencies(capacity: Int(seconds * 1000) + 16))
    let stop = Shared(false)
    let stopped = DispatchSemaphore(value: 0)
    let started = Thread {
        var next = Clock.nanoseconds()
        while !stop.withLock({ $0 }) {
            next += 1_000_000
            let now = Clock.nanoseconds()
            if next > now { usleep(UInt32((next - now) / 1000)) }
            let created = Clock.nanoseconds()
            Task.detached {
                let start = Clock.nanoseconds()
                lateness.withLock { $0.record(microseconds: Double(start - created) / 1000) }
            }
        }
        stopped.signal()
    }
    started.start()
    let result = load()
    stop.withLock { $0 = true }
    stopped.wait()
    // The last probe tasks may still be queued behind the load's last tasks: they start soon after.
    usleep(20_000)
    return (result, lateness.withLock { $0 })
}

extension Latencies {
    /// The largest sample (0 for none).
    var maximum: Double { samples.max() ?? 0 }
}
