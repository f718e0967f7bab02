import Foundation

/// Latency samples in microseconds.
struct Latencies {
    private(set) var samples: [Double] = []

    init(capacity: Int = 0) { samples.reserveCapacity(capacity) }

    /// Samples measured elsewhere (another process's report).
    init(samples: [Double]) { self.samples = samples }

    /// Runs `body` and records how long it took.
    @inline(__always)
    mutating func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = Clock.nanoseconds()
        let result = try body()
        samples.append(Double(Clock.nanoseconds() - start) / 1000)
        return result
    }

    mutating func append(contentsOf other: Latencies) { samples.append(contentsOf: other.samples) }

    /// Records a sample timed by the caller (an async operation, which ``measure(_:)`` cannot wrap).
    mutating func record(microseconds: Double) { samples.append(microseconds) }

    var percentiles: Percentiles {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        }
        return Percentiles(p50: at(0.5), p99: at(0.99), p999: at(0.999), samples: sorted.count)
    }
}

/// The 50th, 99th and 99.9th percentiles of a latency, in microseconds.
struct Percentiles: Codable {
    var p50: Double
    var p99: Double
    var p999: Double
    var samples: Int
}

/// A monotonic clock for timing.
enum Clock {
    @inline(__always)
    static func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = nanoseconds()
        try body()
        return Double(nanoseconds() - start) / 1e9
    }
}

/// One line of the report: a latency, a rate, or both, with notes.
struct Row: Codable {
    /// The workload that produced it (`enqueue`, `concurrent` …).
    var workload: String
    /// What was measured, for people.
    var name: String
    var latency: Percentiles?
    /// A rate (per second) in `unit`.
    var rate: Double?
    var unit: String?
    /// Further figures: acknowledgements per fsync, resident bytes per job …
    var figures: [String: Double] = [:]
    /// The floor this row's latency is compared with, when it was measured
    /// alongside it; otherwise the run's baseline.
    var floor: Percentiles? = nil
}

/// Runs `body` on `count` threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// Values shared between benchmark threads, under a lock.
final class Shared<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// What ``runTimed(threads:seconds:_:)`` measured.
struct TimedRun {
    /// Operations that finished (returned `true`).
    var operations = 0
    /// The latency of every finished operation, across threads.
    var latencies = Latencies()
    /// The first failure, if an operation threw.
    var error: String?
    /// Seconds from the start to the last thread's end.
    var elapsed: Double = 0
}

/// Runs `threads` threads for `duration` seconds, each repeating `operation` and timing it,
/// until the deadline, an operation returns `false` (nothing left to do) or one throws.
func runTimed(threads: Int, seconds duration: Double, _ operation: @escaping @Sendable () throws -> Bool) -> TimedRun {
    let results = Shared(TimedRun())
    let start = Clock.nanoseconds()
    let deadline = start + UInt64(duration * 1e9)
    onThreads(threads) { _ in
        var latencies = Latencies(capacity: 4096)
        var done = 0
        var failure: String?
        while Clock.nanoseconds() < deadline {
            do {
                guard try latencies.measure(operation) else { break }
                done += 1
            } catch {
                failure = "\(error)"
                break
            }
        }
        results.withLock {
            $0.operations += done
            $0.latencies.append(contentsOf: latencies)
            if let failure, $0.error == nil { $0.error = failure }
        }
    }
    var run = results.withLock { $0 }
    run.elapsed = Double(Clock.nanoseconds() - start) / 1e9
    return run
}

/// Runs `tasks` concurrent Swift tasks for `duration` seconds, each repeating `operation` and
/// timing it, as ``runTimed(threads:seconds:_:)`` does with threads. The tasks share Swift's
/// cooperative thread pool (one thread per core): this is how an app that calls the async API
/// from many tasks drives the queue. The calling thread blocks until every task has ended.
func runTimed(
    tasks: Int, seconds duration: Double,
    _ operation: @escaping @Sendable () async throws -> Bool
) -> TimedRun {
    let results = Shared(TimedRun())
    let finished = DispatchSemaphore(value: 0)
    let start = Clock.nanoseconds()
    let deadline = start + UInt64(duration * 1e9)
    Task.detached {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var latencies = Latencies(capacity: 4096)
                    var done = 0
                    var failure: String?
                    while Clock.nanoseconds() < deadline {
                        let begin = Clock.nanoseconds()
                        do {
                            guard try await operation() else { break }
                        } catch {
                            failure = "\(error)"
                            break
                        }
                        latencies.record(microseconds: Double(Clock.nanoseconds() - begin) / 1000)
                        done += 1
                    }
                    results.withLock { [latencies, done, failure] in
                        $0.operations += done
                        $0.latencies.append(contentsOf: latencies)
                        if let failure, $0.error == nil { $0.error = failure }
                    }
                }
            }
        }
        finished.signal()
    }
    finished.wait()
    var run = results.withLock { $0 }
    run.elapsed = Double(Clock.nanoseconds() - start) / 1e9
    return run
}
