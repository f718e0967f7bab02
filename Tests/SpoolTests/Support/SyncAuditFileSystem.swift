import Foundation

@testable import Spool

/// The real file system, watching the log files' syncs: a data sync may only follow writes
/// inside space whose allocation a full sync made durable (reserved, or written and fully
/// synced). The log file's header, written and data-synced when the file is made, is exempt.
final class SyncAuditFileSystem: RealFileSystemWrapper, @unchecked Sendable {
    // @unchecked: `state` is guarded by its lock.
    let real = POSIXFileSystem()
    private let state = Locked<[String]>([])

    var violations: [String] { state.withLock { $0 } }
    fileprivate func report(_ violation: String) { state.withLock { $0.append(violation) } }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        let file = try real.openFile(at: path, mode: mode)
        guard path.hasSuffix(".log") else { return file }
        return AuditedFile(file, owner: self, durableSize: try file.size())
    }
}

private final class AuditedFile: StorageFile, @unchecked Sendable {
    // @unchecked: the counters are guarded by `lock`.
    let inner: any StorageFile
    let owner: SyncAuditFileSystem
    private let lock = Locked<(durableSize: Int64, unsyncedEnd: Int64)>((0, 0))
    init(_ inner: any StorageFile, owner: SyncAuditFileSystem, durableSize: Int64) {
        self.inner = inner
        self.owner = owner
        lock.withLock { $0 = (durableSize, 0) }
    }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { try inner.read(at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try inner.write(bytes, at: offset)
        guard offset >= Int64(LogFormat.fileHeaderSize) else { return }
        lock.withLock { $0.unsyncedEnd = max($0.unsyncedEnd, offset + Int64(bytes.count)) }
    }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws {
        try inner.syncData()
        let (durableSize, unsyncedEnd) = lock.withLock { state in
            defer { state.unsyncedEnd = 0 }
            return (state.durableSize, state.unsyncedEnd)
        }
        if unsyncedEnd > durableSize {
            owner.report("\(path): a data sync of a write to \(unsyncedEnd), past the durable size \(durableSize)")
        }
    }
    func fullSync() throws {
        try inner.fullSync()
        let size = try inner.size()
        lock.withLock { $0 = (size, 0) }
    }
    func truncate(to size: Int64) throws {
        try inner.truncate(to: size)
        lock.withLock { $0.durableSize = min($0.durableSize, size) }
    }
    func tryLockFile() throws -> Bool { try inner.tryLockFile() }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
    func preallocate(offset: Int64, length: Int64) throws { try inner.preallocate(offset: offset, length: length) }
    func close() { inner.close() }
}
