import Dispatch
import Foundation

@testable import Spool

/// The real file system with failures injected on demand: the next write or
/// sync of a log file fails with a chosen errno.
final class FaultyFileSystem: RealFileSystemWrapper, @unchecked Sendable {
    // @unchecked: the fault plan is guarded by `plan`.
    /// `snapshotWrite` fails only a write to a snapshot being written (`snap-*.tmp`). `holdSync`
    /// makes the next data sync signal `entered`, then wait for `release` before it syncs;
    /// `holdSyncThenFail` does the same, then fails it with the errno. `logRead` fails the next
    /// read of a log file.
    enum Fault {
        case write(Int32)
        case sync(Int32)
        case shortWriteThen(Int32)
        case snapshotWrite(Int32)
        case logRead(Int32)
        case holdSync(entered: DispatchSemaphore, release: DispatchSemaphore)
        case holdSyncThenFail(entered: DispatchSemaphore, release: DispatchSemaphore, Int32)
    }
    let real = POSIXFileSystem()
    let plan = Locked<[Fault]>([])

    func inject(_ fault: Fault) { plan.withLock { $0.append(fault) } }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        FaultyFile(try real.openFile(at: path, mode: mode), owner: self)
    }

    func take(_ matching: (Fault) -> Bool) -> Fault? {
        plan.withLock { faults in
            guard let index = faults.firstIndex(where: matching) else { return nil }
            return faults.remove(at: index)
        }
    }
}

final class FaultyFile: StorageFile, @unchecked Sendable {
    // @unchecked: immutable references; the wrapped file is thread-safe.
    let inner: any StorageFile
    let owner: FaultyFileSystem
    init(_ inner: any StorageFile, owner: FaultyFileSystem) {
        self.inner = inner
        self.owner = owner
    }
    var path: String { inner.path }
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let isLog = path.hasSuffix(".log")
        if case .logRead(let code)? = owner.take({ if case .logRead = $0 { return isLog } else { return false } }) {
            throw SpoolError.system("pread", errno: code, path: path, offset: offset)
        }
        return try inner.read(at: offset, count: count)
    }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let isSnapshot = path.contains("snap-")
        switch owner.take({
            switch $0 {
            case .sync, .holdSync, .holdSyncThenFail, .logRead: return false
            case .snapshotWrite: return isSnapshot
            default: return true
            }
        }) {
        case .write(let code)?, .snapshotWrite(let code)?:
            throw SpoolError.system("pwrite", errno: code, path: path, offset: offset)
        case .shortWriteThen(let code)?:
            try inner.write(UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count / 2)]), at: offset)
            throw SpoolError.system("pwrite", errno: code, path: path, offset: offset + Int64(bytes.count / 2))
        default:
            try inner.write(bytes, at: offset)
        }
    }
    func size() throws -> Int64 { try inner.size() }
    func syncData() throws {
        switch owner.take({
            switch $0 {
            case .sync, .holdSync, .holdSyncThenFail: return true
            default: return false
            }
        }) {
        case .sync(let code)?:
            throw SpoolError.system("fdatasync", errno: code, path: path)
        case .holdSync(let entered, let release)?:
            entered.signal()
            release.wait()
        case .holdSyncThenFail(let entered, let release, let code)?:
            entered.signal()
            release.wait()
            throw SpoolError.system("fdatasync", errno: code, path: path)
        default:
            break
        }
        try inner.syncData()
    }
    func fullSync() throws {
        if case .sync(let code)? = owner.take({ if case .sync = $0 { return true } else { return false } }) {
            throw SpoolError.system("fsync", errno: code, path: path)
        }
        try inner.fullSync()
    }
    func truncate(to size: Int64) throws { try inner.truncate(to: size) }
    func tryLockFile() throws -> Bool { try inner.tryLockFile() }
    func unlockFile() { inner.unlockFile() }
    func linkCount() throws -> Int { try inner.linkCount() }
    func preallocate(offset: Int64, length: Int64) throws { try inner.preallocate(offset: offset, length: length) }
    func close() { inner.close() }
}
