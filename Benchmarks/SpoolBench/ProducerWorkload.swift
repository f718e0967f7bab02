import Foundation
import Spool

/// Producers in other processes (`QueueProducer`, issue #16): child processes of this executable enqueue
/// into the inbox of a `.shared` queue that this process owns and runs with a `JobRunner`.
///
/// Three phases, each with fresh children:
/// - **latency**: one producer process, one durable enqueue at a time, each paired with a raw preallocated
///   write + data sync of its own taken just before it in the same process (the *paired floor*, as in the
///   `enqueue` workload); once with the owner idle, once with its runner running;
/// - **rate**: 1, then 4 producer processes enqueueing as fast as they can for `--duration` seconds:
///   acknowledgements per second;
/// - **delay**: one producer process enqueueing one job every 10 ms; the delay from its acknowledgement
///   (the enqueue's return, wall clock) to the owner's handler starting the job (wall clock, same machine).
///
/// From the second latency phase on, the owner's runner runs: it ingests (woken by the directory watcher), claims and completes,
/// so the producers' syncs meet the owner's, as in an app whose extension enqueues while the app runs.
func runProducers(_ context: Context) throws {
    let path = context.freshPath("producers")
    var configuration = context.configuration
    configuration.sharing = .shared
    let queue = try JobQueue(directory: path, configuration: configuration)
    defer { try? queue.close() }
    let starts = ClaimTimes()
    let runner = try JobRunner(queue: queue, options: .init(maxConcurrentJobs: 4))
    try runner.register(kind: ProducerChild.kind) { payload, _ in
        starts.record(String(decoding: payload, as: UTF8.self), at: ProducerChild.wallMicroseconds())
    }

    // Latency against the paired floor: with the owner idle (its queue open, no runner: nothing else
    // syncs), then with its runner ingesting, claiming and completing each job as it comes (three more
    // syncs per job on the same disk).
    let count = context.options.count
    func measureLatency(owner: String, index: Int) throws {
        let latency = try ProducerChild.run([
            ProducerChild.Task(mode: "latency", path: path, count: count, index: index)
        ])[0]
        let floor = Latencies(samples: latency.floorMicroseconds).percentiles
        context.add(
            Row(
                workload: "producers", name: "producers: paired floor, in the producer process (owner \(owner))",
                latency: floor))
        context.add(
            Row(
                workload: "producers", name: "producers: enqueue from another process (owner \(owner))",
                latency: Latencies(samples: latency.latencyMicroseconds).percentiles, floor: floor))
    }
    try measureLatency(owner: "idle", index: 0)
    runner.start()
    defer {
        let stopped = DispatchSemaphore(value: 0)
        Task {
            await runner.stop(.finishRunning)
            stopped.signal()
        }
        stopped.wait()
    }
    try measureLatency(owner: "running", index: 1)

    // Acknowledgements per second.
    var singleRate: Double?
    for processes in [1, 4] {
        let tasks = (0..<processes).map {
            ProducerChild.Task(
                mode: "rate", path: path, count: Int(context.options.duration * 1000), index: 100 + 10 * processes + $0)
        }
        let results = try ProducerChild.run(tasks)
        let acknowledged = results.reduce(0) { $0 + $1.acknowledged }
        let elapsed = results.map(\.elapsedSeconds).max() ?? 1
        let rate = Double(acknowledged) / elapsed
        if processes == 1 { singleRate = rate }
        var all = Latencies()
        for result in results { all.append(contentsOf: Latencies(samples: result.latencyMicroseconds)) }
        var row = Row(
            workload: "producers", name: "producers: \(processes) producer process\(processes == 1 ? "" : "es")",
            latency: all.percentiles, rate: rate, unit: "acks/s")
        row.figures["producers"] = Double(processes)
        if let singleRate, processes > 1 { row.figures["vs_one_producer"] = rate / singleRate }
        context.add(row)
    }

    // From a producer's acknowledgement to the owner's claim, from an idle owner: the rate phase's
    // backlog drained first, so the delay is the owner's, not the queue's.
    try drain(queue, seconds: 120)
    let paced = try ProducerChild.run([ProducerChild.Task(mode: "paced", path: path, count: 300, index: 1)])[0]
    try starts.waitFor(paced.acknowledgedAt.keys, seconds: 30)
    var delays = Latencies()
    for (name, acknowledged) in paced.acknowledgedAt {
        guard let started = starts.time(of: name) else { continue }
        delays.record(microseconds: max(0, started - acknowledged))
    }
    context.add(
        Row(workload: "producers", name: "producers: acknowledgement to the owner's claim", latency: delays.percentiles)
    )
}

/// Waits until every producer's file is ingested and no job is enqueued or running, or `seconds` passed.
private func drain(_ queue: JobQueue, seconds: Double) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        let ingested = try queue.ingestInbox()
        let counts = try queue.counts()
        if ingested == 0 && counts[.enqueued] + counts[.running] == 0 { return }
        guard Date() < deadline else { throw BenchError("the owner did not drain the backlog in \(seconds) s") }
        usleep(10_000)
    }
}

/// When the owner's handler started each job, by payload (wall clock, µs).
final class ClaimTimes: Sendable {
    private let times = Shared<[String: Double]>([:])

    func record(_ name: String, at time: Double) { times.withLock { $0[name] = $0[name] ?? time } }
    func time(of name: String) -> Double? { times.withLock { $0[name] } }

    /// Waits until every job of `names` has started, or `seconds` have passed.
    func waitFor(_ names: some Collection<String>, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while times.withLock({ started in names.contains { started[$0] == nil } }) {
            guard Date() < deadline else { throw BenchError("the owner did not start every paced job in \(seconds) s") }
            usleep(1000)
        }
    }
}

/// A producer process: `spool-bench --producer-child MODE PATH COUNT INDEX [CHUNK]`, reporting one
/// ``Result`` as JSON on stdout.
enum ProducerChild {
    static let flag = "--producer-child"
    static let kind = "bench-produced"

    /// What one child is to do.
    struct Task {
        var mode: String
        var path: String
        var count: Int
        var index: Int
    }

    /// What a child reports.
    struct Result: Codable {
        var latencyMicroseconds: [Double] = []
        var floorMicroseconds: [Double] = []
        var acknowledged = 0
        var elapsedSeconds = 0.0
        /// Paced mode: each job's payload and the wall-clock µs its enqueue returned.
        var acknowledgedAt: [String: Double] = [:]
    }

    static func wallMicroseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) * 1e6 + Double(now.tv_nsec) / 1e3
    }

    /// Starts one child per task at once and collects their reports.
    static func run(_ tasks: [Task]) throws -> [Result] {
        let children = try tasks.map { task -> (Process, Pipe) in
            let child = Process()
            child.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = [flag, task.mode, task.path, String(task.count), String(task.index)]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            return (child, output)
        }
        return try children.map { child, output in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            child.waitUntilExit()
            guard child.terminationStatus == 0 else {
                throw BenchError("a producer child process exited with \(child.terminationStatus)")
            }
            return try JSONDecoder().decode(Result.self, from: data)
        }
    }

    /// The child's side.
    static func runChild(_ arguments: [String]) -> Never {
        guard arguments.count == 4, let count = Int(arguments[2]), let index = Int(arguments[3]) else {
            Options.fail("\(flag) MODE PATH COUNT INDEX")
        }
        let (mode, path) = (arguments[0], arguments[1])
        do {
            let producer = try QueueProducer(directory: path)
            let payload = Data(repeating: 0x61, count: 48)
            var result = Result()
            // Warm up: the first call creates the producer's inbox file.
            _ = try producer.enqueue(NewJob(kind: kind, payload: Data("warm-up \(index)".utf8)))
            switch mode {
            case "latency":
                let floorBytes = [UInt8](repeating: 0xAB, count: Baseline.recordSize)
                var floorFile = try RawSyncFile(
                    path: path + "-floor-\(index)", preallocating: floorBytes.count * count)
                defer {
                    floorFile.close()
                    try? FileManager.default.removeItem(atPath: path + "-floor-\(index)")
                }
                var latencies = Latencies(capacity: count)
                var floor = Latencies(capacity: count)
                for _ in 0..<count {
                    try floor.measure { try floorFile.writeAndSync(floorBytes) }
                    try latencies.measure { _ = try producer.enqueue(NewJob(kind: kind, payload: payload)) }
                }
                result.latencyMicroseconds = latencies.samples
                result.floorMicroseconds = floor.samples
            case "rate":
                let seconds = Double(count) / 1000
                var latencies = Latencies(capacity: 4096)
                let started = Date()
                while Date().timeIntervalSince(started) < seconds {
                    try latencies.measure { _ = try producer.enqueue(NewJob(kind: kind, payload: payload)) }
                    result.acknowledged += 1
                }
                result.elapsedSeconds = Date().timeIntervalSince(started)
                result.latencyMicroseconds = latencies.samples
            case "paced":
                for job in 0..<count {
                    let name = "paced \(index) \(job)"
                    _ = try producer.enqueue(NewJob(kind: kind, payload: Data(name.utf8)))
                    result.acknowledgedAt[name] = wallMicroseconds()
                    usleep(10_000)
                }
            default:
                Options.fail("\(flag): unknown mode \(mode)")
            }
            FileHandle.standardOutput.write(try JSONEncoder().encode(result))
            exit(0)
        } catch {
            Options.fail("producer child: \(error)")
        }
    }
}
