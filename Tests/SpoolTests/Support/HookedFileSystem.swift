import Foundation

@testable import Spool

/// The real file system, with a one-shot hook run just after a log file is opened
/// read-only, and a count of the handles of each path still alive (not closed or released).
final class HookedFileSystem: RealFileSystemWrapper, @unchecked Sendable {
    // @unchecked: `afterReadOnlyOpen` and `liveHandles` are guarded by their `Locked`.
    let real = POSIXFileSystem()
    /// Run (once, then cleared) after a read-only open of a path ending with `suffix`, the
    /// `skip` such opens before it let through.
    let afterReadOnlyOpen = Locked<(suffix: String, skip: Int, body: () -> Void)?>(nil)
    let liveHandles = Locked<[String: Int]>([:])

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        let file = TrackedFile(try real.openFile(at: path, mode: mode), owner: self)
        if case .readOnly = mode {
            let hook = afterReadOnlyOpen.withLock { hook -> (() -> Void)? in
                guard let found = hook, path.hasSuffix(found.suffix) else { return nil }
                if found.skip > 0 {
                    hook!.skip -= 1
                    return nil
                }
                hook = nil
                return found.body
            }
            hook?()
        }
        return file
    }

    func live(_ path: String) -> Int { liveHandles.withLock { $0[path, default: 0] } }
}

final class TrackedFile: StorageFile, @unchecked Sendable {
    // @unchecked: `closed` is guarded by `lock`; the rest is immutable.
    let inner: any StorageFile
    let owner: HookedFileSystem
    private let lock = Lock()
    private var closed = false
    init(_ inner: any StorageFile, owner: HookedFileSystem) {
        self.inner = inner
        self.owner = owner
        owner.liveHandles.withLock { $0[inner.path, default: 0] += 1 }
    }
    private func markClosed() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        if first { owner.liveHandles.withLock { $0[inner.path, default: 0] -= 1 } }
    }
    deinit { markClosed() }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { try inner.read(at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws { try inner.write(bytes, at: offset) }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws { try inner.syncData() }
    func fullSync() throws { try inner.fullSync() }
    func truncate(to size: Int64) throws { try inner.truncate(to: size) }
    func tryLockFile() throws -> Bool { try inner.tryLockFile() }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
    func preallocate(offset: Int64, length: Int64) throws { try inner.preallocate(offset: offset, length: length) }
    func close() {
        markClosed()
        inner.close()
    }
}
