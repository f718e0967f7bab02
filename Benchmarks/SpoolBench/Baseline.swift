import Foundation

/// The floor Spool is compared with: a record-sized write followed by a data
/// sync, appended to a growing file, and into a preallocated file whose
/// allocation was made durable first (so each sync is data only).
func runBaseline(_ context: Context) throws {
    let bytes = [UInt8](repeating: 0xAB, count: Baseline.recordSize)
    let count = context.options.count
    for preallocated in [false, true] {
        let path = context.freshPath(preallocated ? "baseline-prealloc" : "baseline-append")
        var file = try RawSyncFile(path: path, preallocating: preallocated ? bytes.count * count : 0)
        defer { file.close() }
        var latencies = Latencies(capacity: count)
        for _ in 0..<count {
            try latencies.measure { try file.writeAndSync(bytes) }
        }
        context.add(
            Row(
                workload: "baseline",
                name: preallocated ? "baseline: preallocated pwrite + fdatasync" : "baseline: append + fdatasync",
                latency: latencies.percentiles))
    }
    try runOverlappingSyncs(context, bytes: bytes)
}

/// How many syncs the device completes per second when 1, 2 or 4 writers write and
/// sync the same preallocated file at once: what a log writer could gain by keeping
/// more than one sync in flight (pipelining commit groups). The writer counts take
/// turns in ``concurrentRounds`` rounds, as the concurrent workload's producers do.
private func runOverlappingSyncs(_ context: Context, bytes: [UInt8]) throws {
    let writerCounts = [1, 2, 4]
    let region = 4 << 20
    let file = try RawSyncFile(path: context.freshPath("baseline-overlap"), preallocating: region)
    defer { file.close() }
    let nextOffset = Shared(0)
    let slice = context.options.duration / 2 / Double(concurrentRounds * writerCounts.count)
    var totals = [TimedRun](repeating: TimedRun(), count: writerCounts.count)
    for _ in 0..<concurrentRounds {
        for (index, writers) in writerCounts.enumerated() {
            let run = runTimed(threads: writers, seconds: slice) {
                let offset = nextOffset.withLock { next -> Int in
                    defer { next = (next + bytes.count) % region }
                    return next
                }
                try file.writeAndSync(bytes, at: offset)
                return true
            }
            if let error = run.error { throw BenchError(error) }
            totals[index].operations += run.operations
            totals[index].elapsed += run.elapsed
        }
    }
    let oneWriterRate = Double(totals[0].operations) / totals[0].elapsed
    for (index, writers) in writerCounts.enumerated() {
        let rate = Double(totals[index].operations) / totals[index].elapsed
        context.add(
            Row(
                workload: "baseline",
                name: "baseline: \(writers) writer\(writers == 1 ? "" : "s") syncing at once",
                rate: rate, unit: "syncs/s",
                figures: ["writers": Double(writers), "x_one_writer": rate / oneWriterRate]))
    }
}

enum Baseline {
    /// About the size of an enqueue record with a 48-byte payload and a UUID id.
    static let recordSize = 128
}

/// A file that takes record-sized writes one after another, each followed by
/// a data sync (`fdatasync`; `F_FULLFSYNC` on Apple platforms, as Spool does).
///
/// Preallocated space is written with zeroes and fully synced first, as
/// Spool's log does on Linux: `posix_fallocate` leaves unwritten extents, and
/// on ext4 and XFS the first write into one makes its sync flush metadata too,
/// so the floor would not be a data-only sync.
struct RawSyncFile {
    let path: String
    private let fd: Int32
    private var offset = 0

    init(path: String, preallocating bytes: Int) throws {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(path): errno \(errno)") }
        guard bytes > 0 else { return }
        let zeroes = [UInt8](repeating: 0, count: 1 << 20)
        var done = 0
        while done < bytes + 4096 {
            let written = zeroes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(done)) }
            guard written > 0 else { throw BenchError("preallocating \(path): errno \(errno)") }
            done += written
        }
        guard fsync(fd) == 0 else { throw BenchError("fsync \(path): errno \(errno)") }
    }

    /// Writes `bytes` after the previous write and syncs the data.
    mutating func writeAndSync(_ bytes: [UInt8]) throws {
        try writeAndSync(bytes, at: offset)
        offset += bytes.count
    }

    /// Writes `bytes` at `offset` and syncs the data; several threads may at once.
    func writeAndSync(_ bytes: [UInt8], at offset: Int) throws {
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == bytes.count, Self.dataSync(fd) == 0 else {
            throw BenchError("write or sync of \(path) failed: errno \(errno)")
        }
    }

    func close() { _ = Foundation.close(fd) }

    private static func dataSync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
            return fcntl(fd, F_FULLFSYNC)
        #else
            return fdatasync(fd)
        #endif
    }
}
