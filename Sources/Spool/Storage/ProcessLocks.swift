#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A brief holder's registration (``POSIXFileSystem/briefLock(at:)``).
final class POSIXBriefLock: BriefDirectoryLock, @unchecked Sendable {
    // @unchecked: `released` is guarded by `Locked`; the rest is immutable.
    private let key: ProcessDirectoryLocks.Key
    private let path: String
    private let released = Locked(false)
    init(key: ProcessDirectoryLocks.Key, path: String) {
        self.key = key
        self.path = path
    }
    deinit { release() }
    func tryLock() throws -> Bool { try ProcessDirectoryLocks.tryBrief(key, path: path) }
    func unlock() { ProcessDirectoryLocks.unlockBrief(key) }
    func release() {
        let first = released.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { ProcessDirectoryLocks.releaseBrief(key) }
    }
}

/// The queue directories this process has open, so that a second open in the
/// same process fails as one in another process does, with the one descriptor
/// of each directory's `LOCK` that holds the process's record lock.
enum ProcessDirectoryLocks {
    struct Key: Hashable {
        var device: UInt64
        var inode: UInt64
    }
    private struct Holders {
        /// −1 for one exclusive holder, otherwise the number of shared ones (0 with brief holders only).
        var count: Int
        /// The descriptor holding the record lock, closed with the last holder.
        var descriptor: Int32
        /// ``ProcessSharing/shared`` owners registered (``POSIXFileSystem/briefLock(at:)``).
        var briefHolders = 0
        /// Whether one of them holds the record lock now.
        var briefHeld = false
    }
    private static let holders = Locked<[Key: Holders]>([:])
    /// The descriptor of shared holders of a directory without `LOCK`: they hold no record lock.
    static let noDescriptor: Int32 = -1

    /// Takes the directory for one more holder. The first holder's `lockFile` opens `LOCK`,
    /// takes the record lock and returns its descriptor (or throws); later shared holders share it.
    static func acquire(_ key: Key, exclusive: Bool, path: String, lockFile: () throws -> Int32) throws {
        try holders.withLock { table in
            if let current = table[key] {
                if current.count == -1 || exclusive || current.briefHolders > 0 {
                    throw SpoolError(
                        .locked, "the queue is already open in this process", path: path,
                        errno: EWOULDBLOCK, operation: "lock")
                }
                table[key]?.count += 1
                return
            }
            let descriptor = try lockFile()
            table[key] = Holders(count: exclusive ? -1 : 1, descriptor: descriptor)
        }
    }

    /// Registers one more brief holder; the first opens `LOCK` with `lockFile`.
    static func acquireBrief(_ key: Key, path: String, lockFile: () throws -> Int32) throws {
        try holders.withLock { table in
            if let current = table[key] {
                guard current.count == 0 else {
                    throw SpoolError(
                        .locked, "the queue is already open in this process", path: path,
                        errno: EWOULDBLOCK, operation: "lock")
                }
                table[key]?.briefHolders += 1
                return
            }
            table[key] = Holders(count: 0, descriptor: try lockFile(), briefHolders: 1)
        }
    }

    /// One non-blocking attempt at the record lock for a brief holder: `false` while another brief
    /// holder of this process has it, or another process (`EAGAIN`, `EACCES`).
    static func tryBrief(_ key: Key, path: String) throws -> Bool {
        try holders.withLock { table in
            guard let current = table[key], current.briefHolders > 0 else {
                throw SpoolError(.closed, "the queue's lock registration was released", path: path)
            }
            if current.briefHeld { return false }
            var request = Platform.wholeFileLock(exclusive: true)
            if retryingOnInterrupt({ fcntl(current.descriptor, F_SETLK, &request) }) != 0 {
                let code = errno
                if code == EAGAIN || code == EACCES { return false }
                throw SpoolError.system("fcntl F_SETLK", errno: code, path: path)
            }
            table[key]?.briefHeld = true
            return true
        }
    }

    /// Gives back the record lock a brief holder took.
    static func unlockBrief(_ key: Key) {
        holders.withLock { table in
            guard let current = table[key], current.briefHeld else { return }
            var request = Platform.wholeFileUnlock()
            _ = retryingOnInterrupt { fcntl(current.descriptor, F_SETLK, &request) }
            table[key]?.briefHeld = false
        }
    }

    /// Ends one brief holder's registration; the last closes `LOCK`.
    static func releaseBrief(_ key: Key) {
        holders.withLock { table in
            guard let current = table[key], current.briefHolders > 0 else { return }
            if current.briefHolders == 1 {
                _ = systemClose(current.descriptor)
                table[key] = nil
            } else {
                table[key]?.briefHolders -= 1
            }
        }
    }

    /// Gives up one holder's share; the last one closes `LOCK`, which drops the record lock.
    static func release(_ key: Key) {
        holders.withLock { table in
            guard let current = table[key], current.briefHolders == 0 else { return }
            if current.count == -1 || current.count <= 1 {
                if current.descriptor != noDescriptor { _ = systemClose(current.descriptor) }
                table[key] = nil
            } else {
                table[key]?.count -= 1
            }
        }
    }
}

/// The files (by device and inode) a handle of this process holds the lock of (``POSIXFile/tryLockFile()``).
///
/// A record lock belongs to the process, and closing *any* descriptor of the file drops it: while one
/// handle holds a file's lock, another handle of the same process (the owner's ingestion reading a
/// producer's file of its own process) is kept out here, before it opens or locks anything.
enum ProcessFileLocks {
    private static let held = Locked<Set<ProcessDirectoryLocks.Key>>([])

    /// Takes `key`; `false` when a handle of this process holds it.
    static func take(_ key: ProcessDirectoryLocks.Key) -> Bool { held.withLock { $0.insert(key).inserted } }

    static func give(_ key: ProcessDirectoryLocks.Key) { _ = held.withLock { $0.remove(key) } }
}

/// A holder's share of the record lock on a queue directory's `LOCK` file.
final class POSIXDirectoryLock: DirectoryLock, @unchecked Sendable {
    // @unchecked: `released` is guarded by `Locked`; the key is immutable.
    private let released = Locked(false)
    private let key: ProcessDirectoryLocks.Key
    init(key: ProcessDirectoryLocks.Key) {
        self.key = key
    }
    deinit { release() }
    /// Gives the share back, once; the registry closes `LOCK` with the last share.
    func release() {
        let first = released.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { ProcessDirectoryLocks.release(key) }
    }
}
