import Foundation
@_spi(Benchmarks) import Spool

/// Opening a queue whose log holds N records (one enqueue each, every job
/// live): replay time, records per second, and resident memory per live job
/// beyond its id, kind and key strings.
///
/// The queue is opened ``openRepeats`` times and the median time is reported (the
/// fastest and slowest go in the notes): one open of a 1,000,000-record log takes
/// under a second, and a single sample moved by a fifth with what else the shared
/// machine was doing. Memory is measured around the first open.
func runOpen(_ context: Context) throws {
    let payload = Data(repeating: 0x61, count: 48)
    for records in context.options.openRecords {
        let path = context.freshPath("open-\(records)")
        var stringBytes = 0
        do {
            let queue = try JobQueue(directory: path, configuration: context.configuration)
            for index in 0..<records {
                let id = try queue.enqueueWithoutWaiting(NewJob(kind: "bench", payload: payload))
                stringBytes += id.rawValue.utf8.count + "bench".utf8.count
                if index % 50_000 == 49_999 { try queue.waitUntilDurable() }
            }
            try queue.close()
        }
        let logBytes = try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasSuffix(".log") }
            .compactMap { try FileManager.default.attributesOfItem(atPath: path + "/" + $0)[.size] as? Int }
            .reduce(0, +)
        // Freed heap pages go back to the system first, so that the difference counts live objects only.
        Memory.release()
        let residentBefore = Memory.residentBytes()
        var queue: JobQueue?
        var times = [try Clock.seconds { queue = try JobQueue(directory: path, configuration: context.configuration) }]
        Memory.release()
        let residentAfter = Memory.residentBytes()
        guard let opened = queue, try opened.counts()[.enqueued] == records else {
            throw BenchError("the reopened queue does not hold \(records) enqueued jobs")
        }
        try opened.close()
        queue = nil
        let perJob = Double(residentAfter - residentBefore - stringBytes) / Double(records)
        for _ in 1..<openRepeats {
            var again: JobQueue?
            times.append(try Clock.seconds { again = try JobQueue(directory: path, configuration: context.configuration) })
            try again?.close()
        }
        times.sort()
        let seconds = times[times.count / 2]
        context.add(Row(workload: "open", name: "open: \(records) records", latency: nil,
                        rate: Double(records) / seconds, unit: "records/s",
                        figures: ["records": Double(records), "open_ms": seconds * 1000,
                                  "fastest_open_ms": times[0] * 1000, "slowest_open_ms": times[times.count - 1] * 1000,
                                  "resident_bytes_per_job": perJob,
                                  "string_bytes_per_job": Double(stringBytes) / Double(records),
                                  "log_bytes": Double(logBytes)]))
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// How many times the open workload opens each log (an odd number: the median is reported).
let openRepeats = 3

/// The process's resident memory.
enum Memory {
    /// Resident bytes, from `/proc/self/statm` (its second field, in pages).
    static func residentBytes() -> Int {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        var info = mach_task_basic_info()
        var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
        let result = withUnsafeMutablePointer(to: &info) {
            $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
            }
        }
        return result == KERN_SUCCESS ? Int(info.resident_size) : 0
        #endif
    }

    /// Returns freed heap memory to the system (glibc's `malloc_trim`, looked up
    /// at run time), so that resident memory counts live objects.
    static func release() {
        #if os(Linux)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
    }
}
