import Foundation

@testable import Spool

/// The real file system, with a hook the next data sync of a log file runs before it syncs:
/// a test moves the clock there, while a record is applied but its call has not returned.
final class SyncHookFileSystem: RealFileSystemWrapper, @unchecked Sendable {
    // @unchecked: `nextSync` is guarded by its `Locked`.
    let real = POSIXFileSystem()
    let nextSync = Locked<(@Sendable () -> Void)?>(nil)

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        SyncHookFile(try real.openFile(at: path, mode: mode), owner: self)
    }

    /// Runs the hook once, if one is set.
    func runHook() {
        nextSync.withLock { hook -> (@Sendable () -> Void)? in
            defer { hook = nil }
            return hook
        }?()
    }
}

final class SyncHookFile: StorageFile, @unchecked Sendable {
    // @unchecked: immutable references; the wrapped file is thread-safe.
    let inner: any StorageFile
    let owner: SyncHookFileSystem
    init(_ inner: any StorageFile, owner: SyncHookFileSystem) {
        self.inner = inner
        self.owner = owner
    }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { try inner.read(at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws { try inner.write(bytes, at: offset) }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws {
        owner.runHook()
        try inner.syncData()
    }
    func fullSync() throws {
        owner.runHook()
        try inner.fullSync()
    }
    func truncate(to size: Int64) throws { try inner.truncate(to: size) }
    func tryLockFile() throws -> Bool { try inner.tryLockFile() }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
    func preallocate(offset: Int64, length: Int64) throws { try inner.preallocate(offset: offset, length: length) }
    func close() { inner.close() }
}
