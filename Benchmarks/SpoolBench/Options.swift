import Foundation
import Spool

/// Command-line options of `spool-bench`.
struct Options {
    static let workloads = [
        "baseline", "enqueue", "concurrent", "batch", "cycle", "open", "compaction", "producers", "stall",
    ]
    static let usage = """
        usage: spool-bench [--workload NAME[,NAME...]|all] [--count N] [--duration SECONDS]
                           [--producers 1,4,16,32,64] [--producer-modes threads,tasks]
                           [--batch-size N] [--batches N]
                           [--open-records 100000,1000000] [--churn-jobs N] [--obsolete-ratio R]
                           [--prealloc-chunk BYTES] [--sharing exclusive|shared]
                           [--dir DIR] [--json]
          workloads: \(workloads.joined(separator: ", ")); the baseline always runs, since every
          Spool figure is printed as a ratio to it.
          --producer-modes: how the concurrent workload's producers run: threads (the blocking
          API) and/or tasks (the async API); default both.
          --churn-jobs: jobs the compaction workload enqueues, claims and completes (default 1000000);
          --obsolete-ratio: its AutoCompaction.obsoleteRatio (default: the library's, 0.5).
          --prealloc-chunk: the log file's preallocation chunk (0: none; default: Spool's own).
          --sharing: Configuration.sharing of every queue (default exclusive; shared fences each write).
          --dir: the directory under test (default: a new temporary directory under the current
          directory, so on the same file system as the checkout; removed afterwards).
        """

    var workloads: [String] = Options.workloads
    /// Samples per latency workload.
    var count = 2000
    /// Seconds each throughput configuration runs (in all: the concurrent workload splits it into rounds).
    var duration = 2.0
    var producers = [1, 4, 16, 32, 64]
    var producerModes = ProducerMode.allCases
    var workers = [1, 16]
    var batchSize = 10_000
    var batches = 10
    var openRecords = [100_000, 1_000_000]
    var churnJobs = 1_000_000
    var obsoleteRatio = AutoCompaction().obsoleteRatio
    var directory: String?
    var json = false
    var preallocationChunk: Int64?
    var sharing = ProcessSharing.exclusive

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        func value(_ name: String) -> String {
            guard let value = iterator.next() else { Self.fail("\(name) needs a value") }
            return value
        }
        func integers(_ name: String) -> [Int] {
            let text = value(name)
            let list = text.split(separator: ",").compactMap { Int($0) }
            guard !list.isEmpty, list.allSatisfy({ $0 > 0 }) else {
                Self.fail("\(name): not a list of positive integers: \(text)")
            }
            return list
        }
        while let argument = iterator.next() {
            switch argument {
            case "--workload":
                let text = value(argument)
                if text == "all" {
                    workloads = Self.workloads
                    continue
                }
                workloads = text.split(separator: ",").map(String.init)
                for name in workloads where !Self.workloads.contains(name) { Self.fail("unknown workload \(name)") }
            case "--count": count = integers(argument)[0]
            case "--duration":
                guard let seconds = Double(value(argument)), seconds > 0 else {
                    Self.fail("--duration: not a positive number")
                }
                duration = seconds
            case "--producers": producers = integers(argument)
            case "--producer-modes":
                let text = value(argument)
                producerModes = text.split(separator: ",").map { name in
                    guard let mode = ProducerMode.allCases.first(where: { $0.name == name }) else {
                        Self.fail("--producer-modes: unknown mode \(name) (threads, tasks)")
                    }
                    return mode
                }
            case "--workers": workers = integers(argument)
            case "--batch-size": batchSize = integers(argument)[0]
            case "--batches": batches = integers(argument)[0]
            case "--open-records": openRecords = integers(argument)
            case "--churn-jobs": churnJobs = integers(argument)[0]
            case "--obsolete-ratio":
                guard let ratio = Double(value(argument)), ratio >= 0 else {
                    Self.fail("--obsolete-ratio: not a number ≥ 0")
                }
                obsoleteRatio = ratio
            case "--prealloc-chunk":
                guard let bytes = Int64(value(argument)), bytes >= 0 else {
                    Self.fail("--prealloc-chunk: not a byte count")
                }
                preallocationChunk = bytes
            case "--sharing":
                switch value(argument) {
                case "exclusive": sharing = .exclusive
                case "shared": sharing = .shared
                default: Self.fail("--sharing takes exclusive or shared")
                }
            case "--dir": directory = value(argument)
            case "--json": json = true
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                Self.fail("unknown argument \(argument)")
            }
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("spool-bench: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
