/// Read-only handles of the log files before the active one, for payload
/// reads. A few are kept open, the most recently used; the others are opened
/// again when needed. A handle is closed when its last user lets it go (a
/// read in progress keeps its handle alive), so eviction never closes a file
/// under a reader.
final class LogFileReaders: @unchecked Sendable {
    // @unchecked: `handles` and `order` are guarded by `lock`.

    /// How many handles stay open.
    static let capacity = 8

    let directory: String
    let fileSystem: any FileSystem
    private let lock = Lock()
    private var handles: [UInt64: any StorageFile] = [:]
    /// Sequence numbers, least recently used first.
    private var order: [UInt64] = []
    /// Files below this number are deleted: a handle of one opened before the deletion serves
    /// its read but is not kept, or it would hold the deleted file's space while the queue is open.
    private var deletedBelow: UInt64 = 0

    init(directory: String, fileSystem: any FileSystem) {
        self.directory = directory
        self.fileSystem = fileSystem
    }

    /// Reads `count` bytes at `offset` of log file `sequence`.
    func read(sequence: UInt64, at offset: Int64, count: Int) throws -> [UInt8] {
        try handle(for: sequence).read(at: offset, count: count)
    }

    /// Forgets the handles of files with a sequence number below `sequence` (deleted by
    /// compaction; all of them when the queue closes), and keeps none of them from now on.
    func forget(below sequence: UInt64) {
        lock.withLock {
            deletedBelow = max(deletedBelow, sequence)
            handles = handles.filter { $0.key >= sequence }
            order.removeAll { $0 < sequence }
        }
    }

    private func handle(for sequence: UInt64) throws -> any StorageFile {
        if let cached = lock.withLock({ () -> (any StorageFile)? in
            guard let found = handles[sequence] else { return nil }
            order.removeAll { $0 == sequence }
            order.append(sequence)
            return found
        }) {
            return cached
        }
        let path = directory + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)
        let file = try fileSystem.openFile(at: path, mode: .readOnly)
        lock.withLock {
            guard sequence >= deletedBelow else { return }
            if handles[sequence] == nil { order.append(sequence) }
            handles[sequence] = file
            while order.count > Self.capacity { handles[order.removeFirst()] = nil }
        }
        return file
    }
}

extension PayloadLocation {
    /// Refuses `bytes`, read at this location of a log file in the queue at `directory`, unless they
    /// are the bytes replay (or the write) saw there: every payload read after open goes through
    /// here, so that bytes changed on disk since (bit rot, a latent sector error, a stray write)
    /// are a ``SpoolError/Code/corruption`` naming the file and offset, never a job's parameters.
    func checkRead(_ bytes: [UInt8], inQueue directory: String) throws(SpoolError) {
        // The file's path is built for an error only: a read that checks out (every claim's) builds no string.
        var path: String { directory + "/" + QueueDirectoryLayout.logFileName(sequence: fileSequence) }
        guard bytes.count == Int(length) else {
            throw SpoolError(
                .corruption, "the payload is shorter on disk than recorded (\(bytes.count) of \(length) bytes)",
                path: path, offset: offset)
        }
        let found = CRC32C.checksum(bytes)
        guard found == checksum else {
            throw SpoolError(
                .corruption,
                "the payload's \(length) bytes changed on disk since they were verified (CRC-32C \(Self.hex(found)), expected \(Self.hex(checksum)))",
                path: path, offset: offset)
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
