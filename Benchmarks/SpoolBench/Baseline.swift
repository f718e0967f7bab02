import Foundation

/// The floor Spool is compared with: a record-sized write followed by
/// `fdatasync`, appended to a growing file, and into a preallocated file whose
/// allocation was made durable first (so each sync is data only).
func runBaseline(_ context: Context) throws {
    let bytes = [UInt8](repeating: 0xAB, count: Baseline.recordSize)
    let count = context.options.count
    for preallocated in [false, true] {
        let path = context.freshPath(preallocated ? "baseline-prealloc" : "baseline-append")
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(path): errno \(errno)") }
        defer { close(fd) }
        if preallocated {
            let result = posix_fallocate(fd, 0, off_t(bytes.count * (count + 1) + 4096))
            guard result == 0, fsync(fd) == 0 else { throw BenchError("preallocating \(path) failed: \(result)") }
        }
        var latencies = Latencies(capacity: count)
        for index in 0..<count {
            try latencies.measure {
                let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(index * bytes.count)) }
                guard written == bytes.count, fdatasync(fd) == 0 else { throw BenchError("write or sync failed: errno \(errno)") }
            }
        }
        context.add(Row(workload: "baseline",
                        name: preallocated ? "baseline: preallocated pwrite + fdatasync" : "baseline: append + fdatasync",
                        latency: latencies.percentiles))
    }
}

enum Baseline {
    /// About the size of an enqueue record with a 48-byte payload and a UUID id.
    static let recordSize = 128
}
