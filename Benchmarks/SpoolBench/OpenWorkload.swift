import Foundation
import Spool

/// Opening a queue whose log holds N records (one enqueue each, every job
/// live): replay time, records per second, and resident memory per live job
/// beyond its id, kind and key strings.
///
/// Each open runs in a fresh process of this executable (``runOpenChild(_:)``), as an
/// app's launch opens its queue: in the process that wrote the log, the allocator's
/// history moved one open of 1,000,000 records between 0.7 and 1.9 s. The queue is
/// opened in ``openRepeats`` processes and the median time is reported (the fastest
/// and slowest go in the notes); memory is from the first.
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
        var opens: [OpenMeasurement] = []
        for _ in 0..<openRepeats {
            let opened = try OpenMeasurement.inChildProcess(path: path, context: context)
            guard opened.jobs == records else {
                throw BenchError("the reopened queue holds \(opened.jobs) enqueued jobs, not \(records)")
            }
            opens.append(opened)
        }
        let times = opens.map(\.seconds).sorted()
        let seconds = times[times.count / 2]
        let perJob = Double(opens[0].residentBytes - stringBytes) / Double(records)
        context.add(
            Row(
                workload: "open", name: "open: \(records) records", latency: nil,
                rate: Double(records) / seconds, unit: "records/s",
                figures: [
                    "records": Double(records), "open_ms": seconds * 1000,
                    "fastest_open_ms": times[0] * 1000, "slowest_open_ms": times[times.count - 1] * 1000,
                    "resident_bytes_per_job": perJob,
                    "string_bytes_per_job": Double(stringBytes) / Double(records),
                    "log_bytes": Double(logBytes),
                ]))
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// How many processes the open workload opens each log in (an odd number: the median is reported).
let openRepeats = 3

/// One open of a queue, measured in a process of its own.
struct OpenMeasurement: Codable {
    /// The time `JobQueue(directory:)` took.
    var seconds: Double
    /// Resident memory the open added (freed heap pages returned to the system first).
    var residentBytes: Int
    /// Enqueued jobs the opened queue holds.
    var jobs: Int

    /// The argument that makes this executable a child that opens one queue.
    static let childFlag = "--open-child"

    /// Runs this executable as a child that opens the queue at `path` and reports on stdout.
    static func inChildProcess(path: String, context: Context) throws -> OpenMeasurement {
        let child = Process()
        child.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var arguments = [childFlag, path, context.freshPath("open-warm-up")]
        if let chunk = context.options.preallocationChunk { arguments.append(String(chunk)) }
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw BenchError("the open child process exited with \(child.terminationStatus)")
        }
        return try JSONDecoder().decode(OpenMeasurement.self, from: data)
    }

    /// The child's side: `--open-child PATH WARM-UP-PATH [CHUNK]`. A queue is first opened
    /// and closed at `WARM-UP-PATH` (then removed), so that the code and the runtime's
    /// one-time set-up are not counted; then the queue at `PATH` is timed.
    static func runChild(_ arguments: [String]) -> Never {
        guard arguments.count >= 2 else { Options.fail("\(childFlag) PATH WARM-UP-PATH [CHUNK]") }
        var configuration = Configuration()
        if arguments.count > 2, let chunk = Int64(arguments[2]) { configuration.preallocationChunk = chunk }
        do {
            try JobQueue(directory: arguments[1], configuration: configuration).close()
            try? FileManager.default.removeItem(atPath: arguments[1])
            Memory.release()
            let before = Memory.residentBytes()
            var queue: JobQueue?
            let seconds = try Clock.seconds {
                queue = try JobQueue(directory: arguments[0], configuration: configuration)
            }
            Memory.release()
            let after = Memory.residentBytes()
            let jobs = try queue?.counts()[.enqueued] ?? 0
            try queue?.close()
            let data = try JSONEncoder().encode(
                OpenMeasurement(seconds: seconds, residentBytes: after - before, jobs: jobs))
            FileHandle.standardOutput.write(data)
            exit(0)
        } catch {
            Options.fail("open child: \(error)")
        }
    }
}

/// The process's resident memory.
enum Memory {
    /// Resident bytes: Mach `task_info` on Apple platforms, `/proc/self/statm` (its second
    /// field, in pages) on Linux.
    static func residentBytes() -> Int {
        #if canImport(Darwin)
            var info = mach_task_basic_info()
            var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
            let result = withUnsafeMutablePointer(to: &info) {
                $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                    task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
                }
            }
            return result == KERN_SUCCESS ? Int(info.resident_size) : 0
        #else
            guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
            let fields = text.split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #endif
    }

    /// Returns freed heap memory to the system (glibc's `malloc_trim`, looked up
    /// at run time), so that resident memory counts live objects.
    static func release() {
        #if !canImport(Darwin)
            typealias Trim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                _ = unsafeBitCast(symbol, to: Trim.self)(0)
            }
        #endif
    }
}
