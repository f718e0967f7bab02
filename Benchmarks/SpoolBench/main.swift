import Foundation
import Spool

// spool-bench: named workloads, figures a reader can compare.
//
//   swift run -c release spool-bench [--workload baseline|enqueue|cycle|all] [--count N] [--dir DIR] [--json]
//
// The directory under test defaults to a new directory under the current
// working directory (so the same file system as the checkout, not tmpfs).

struct Options {
    var workload = "all"
    var count = 2000
    var directory = FileManager.default.currentDirectoryPath + "/.spool-bench"
    var json = false

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--workload": workload = iterator.next() ?? workload
            case "--count": count = Int(iterator.next() ?? "") ?? count
            case "--dir": directory = iterator.next() ?? directory
            case "--json": json = true
            default:
                FileHandle.standardError.write(Data("usage: spool-bench [--workload baseline|enqueue|cycle|all] [--count N] [--dir DIR] [--json]\n".utf8))
                exit(2)
            }
        }
    }
}

/// Latency percentiles in microseconds.
struct Latencies {
    var samples: [Double] = []
    mutating func measure(_ body: () throws -> Void) rethrows {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
    }
    func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// One workload's figures.
struct Row { var name: String; var p50: Double; var p99: Double; var p999: Double }

var results: [Row] = []

@MainActor func report(_ name: String, _ latencies: Latencies) {
    results.append(Row(name: name, p50: latencies.percentile(0.5), p99: latencies.percentile(0.99),
                       p999: latencies.percentile(0.999)))
}

func freshDirectory(_ base: String, _ name: String) -> String {
    let path = base + "/" + name
    try? FileManager.default.removeItem(atPath: path)
    try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    return path
}

/// Raw appends of a record-sized write, each followed by fdatasync: the floor Spool is compared with.
@MainActor func baseline(_ options: Options) {
    let bytes = [UInt8](repeating: 0xAB, count: 100)
    for preallocated in [false, true] {
        let path = freshDirectory(options.directory, preallocated ? "baseline-prealloc" : "baseline-append")
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        if preallocated { _ = posix_fallocate(fd, 0, off_t(bytes.count * options.count + 4096)) ; _ = fsync(fd) }
        var latencies = Latencies()
        for index in 0..<options.count {
            latencies.measure {
                _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(index * bytes.count)) }
                _ = fdatasync(fd)
            }
        }
        close(fd)
        report(preallocated ? "baseline: preallocated pwrite + fdatasync" : "baseline: append + fdatasync", latencies)
    }
}

@MainActor func enqueue(_ options: Options) throws {
    let queue = try JobQueue(directory: freshDirectory(options.directory, "enqueue"))
    var latencies = Latencies()
    let payload = Data(repeating: 0x61, count: 48)
    for _ in 0..<options.count {
        try latencies.measure { try queue.enqueue(NewJob(kind: "bench", payload: payload)) }
    }
    try queue.close()
    report("enqueue (single producer)", latencies)
}

@MainActor func cycle(_ options: Options) throws {
    let queue = try JobQueue(directory: freshDirectory(options.directory, "cycle"))
    for _ in 0..<options.count { try queue.enqueue(NewJob(kind: "bench")) }
    var latencies = Latencies()
    for _ in 0..<options.count {
        try latencies.measure {
            guard let lease = try queue.claim() else { return }
            try queue.complete(lease)
        }
    }
    try queue.close()
    report("claim + complete (one worker)", latencies)
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
do {
    if ["baseline", "all"].contains(options.workload) { baseline(options) }
    if ["enqueue", "all"].contains(options.workload) { try enqueue(options) }
    if ["cycle", "all"].contains(options.workload) { try cycle(options) }
} catch {
    FileHandle.standardError.write(Data("spool-bench: \(error)\n".utf8))
    exit(1)
}
try? FileManager.default.removeItem(atPath: options.directory)

let floor = results.first { $0.name.hasPrefix("baseline: preallocated") }
if options.json {
    let rows = results.map { row in
        "{\"workload\":\"\(row.name)\",\"p50_us\":\(row.p50),\"p99_us\":\(row.p99),\"p999_us\":\(row.p999)"
            + (floor.map { ",\"p50_ratio\":\(row.p50 / $0.p50)" } ?? "") + "}"
    }
    print("{\"count\":\(options.count),\"results\":[\(rows.joined(separator: ","))]}")
} else {
    print("workload".padding(toLength: 44, withPad: " ", startingAt: 0) + "     p50 µs     p99 µs    p999 µs  p50 / floor")
    for row in results {
        let ratio = floor.map { String(format: "%10.2f×", row.p50 / $0.p50) } ?? ""
        print(row.name.padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: " %10.1f %10.1f %10.1f", row.p50, row.p99, row.p999) + " " + ratio)
    }
}
