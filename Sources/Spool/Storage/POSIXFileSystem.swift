#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The real file system, through POSIX calls.
///
/// Every call retries on `EINTR`, never follows a symbolic link where a file is
/// opened, creates directories 0700 and files 0600, and reports failures as a
/// ``SpoolError`` naming the call, the path and the errno.
struct POSIXFileSystem: FileSystem {
    func entryKind(at path: String) throws -> FileEntryKind? {
        var info = stat()
        if lstat(path, &info) != 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw SpoolError.system("lstat", errno: code, path: path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    func createDirectory(at path: String) throws {
        if mkdir(path, 0o700) != 0 {
            throw SpoolError.system("mkdir", errno: errno, path: path)
        }
    }

    func contentsOfDirectory(at path: String) throws -> [String] {
        guard let directory = opendir(path) else {
            throw SpoolError.system("opendir", errno: errno, path: path)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            // `readdir` returns nil both at the end and on an error (EIO, EOVERFLOW): only errno tells
            // them apart, and a listing cut short would hide log files from replay.
            errno = 0
            guard let entry = readdir(directory) else {
                let code = errno
                if code != 0 { throw SpoolError.system("readdir", errno: code, path: path) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        var flags = O_CLOEXEC | O_NOFOLLOW
        switch mode {
        case .readOnly: flags |= O_RDONLY
        case .readWrite: flags |= O_RDWR
        case .createNew: flags |= O_RDWR | O_CREAT | O_EXCL
        }
        let fd = retryingOnInterrupt { open(path, flags, 0o600) }
        guard fd >= 0 else { throw SpoolError.system("open", errno: errno, path: path) }
        return POSIXFile(fd: fd, path: path)
    }

    func rename(from source: String, to destination: String) throws {
        if retryingOnInterrupt({ systemRename(source, destination) }) != 0 {
            throw SpoolError.system("rename to \(destination)", errno: errno, path: source)
        }
    }

    func removeFile(at path: String) throws {
        if unlink(path) != 0 {
            throw SpoolError.system("unlink", errno: errno, path: path)
        }
    }

    func syncDirectory(at path: String) throws {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY) }
        guard fd >= 0 else { throw SpoolError.system("open directory", errno: errno, path: path) }
        defer { _ = systemClose(fd) }
        SyncCensus.note()
        if let failure = Platform.syncDirectory(fd) {
            throw SpoolError.system("\(failure.call) directory", errno: failure.errno, path: path)
        }
    }

    /// Locks the directory for this process with a registry, and against other
    /// processes with a POSIX record lock (`fcntl(F_SETLK)`) on its `LOCK` file.
    ///
    /// Record locks belong to the process and, unlike `flock`, are not inherited
    /// by a child between `fork` and `exec`: an app that starts a process while a
    /// queue is open cannot make a later open of that queue fail. Because they
    /// belong to the process, they cannot tell two opens in one process apart, so
    /// the registry does that. For the same reason closing *any* descriptor of
    /// `LOCK` drops the process's lock: the registry opens `LOCK` once, for the
    /// first holder, and closes it when the last holder (of several shared ones)
    /// releases, never while another holder still counts on the lock.
    func lockDirectory(at path: String, exclusive: Bool) throws -> any DirectoryLock {
        var info = stat()
        if stat(path, &info) != 0 { throw SpoolError.system("stat", errno: errno, path: path) }
        let key = ProcessDirectoryLocks.Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        let lockPath = path + "/" + QueueDirectoryLayout.lockFileName
        try ProcessDirectoryLocks.acquire(key, exclusive: exclusive, path: path) {
            // A shared holder (read-only inspection) creates nothing and writes nothing: it opens an
            // existing `LOCK` for reading (a read lock needs no more, so a read-only volume will do)
            // and, when there is none, takes no record lock at all.
            let flags = exclusive ? O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW : O_RDONLY | O_CLOEXEC | O_NOFOLLOW
            let fd = retryingOnInterrupt { open(lockPath, flags, 0o600) }
            guard fd >= 0 else {
                let code = errno
                if !exclusive, code == ENOENT { return ProcessDirectoryLocks.noDescriptor }
                if code == ELOOP {
                    // O_NOFOLLOW refuses a link: say so, rather than "too many levels of symbolic links".
                    throw SpoolError(
                        .notAQueue, "LOCK is a symbolic link (symbolic links in a queue directory are not followed)",
                        path: lockPath, errno: code, operation: "open lock file")
                }
                throw SpoolError.system("open lock file", errno: code, path: lockPath)
            }
            var request = Platform.wholeFileLock(exclusive: exclusive)
            if retryingOnInterrupt({ fcntl(fd, F_SETLK, &request) }) != 0 {
                let code = errno
                _ = systemClose(fd)
                if code == EAGAIN || code == EACCES {
                    throw SpoolError(
                        .locked, "the queue is open in another process", path: path,
                        errno: code, operation: "fcntl F_SETLK")
                }
                throw SpoolError.system("fcntl F_SETLK", errno: code, path: lockPath)
            }
            return fd
        }
        return POSIXDirectoryLock(key: key)
    }
}

extension POSIXFileSystem {
    /// Registers a brief holder (``FileSystem/briefLock(at:)``): `LOCK` is opened once per directory
    /// for every brief holder of this process (closing any descriptor of it would drop the process's
    /// record lock), and the record lock is taken only inside ``BriefDirectoryLock/tryLock()``.
    func briefLock(at path: String) throws -> any BriefDirectoryLock {
        var info = stat()
        if stat(path, &info) != 0 { throw SpoolError.system("stat", errno: errno, path: path) }
        let key = ProcessDirectoryLocks.Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        let lockPath = path + "/" + QueueDirectoryLayout.lockFileName
        try ProcessDirectoryLocks.acquireBrief(key, path: path) {
            let fd = retryingOnInterrupt { open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
            guard fd >= 0 else { throw SpoolError.system("open lock file", errno: errno, path: lockPath) }
            return fd
        }
        return POSIXBriefLock(key: key, path: lockPath)
    }
}

/// A file descriptor opened by ``POSIXFileSystem``.
final class POSIXFile: StorageFile, @unchecked Sendable {
    // @unchecked: the descriptor is immutable and `closed` is locked; positional
    // reads and writes on one descriptor are safe from several threads.
    let path: String
    private let descriptor: Int32
    private let closed = Locked(false)

    init(fd: Int32, path: String) {
        self.path = path
        self.descriptor = fd
    }

    deinit {
        unlockFile()
        _ = systemClose(descriptor)
    }

    /// The descriptor, or EBADF once the handle is closed.
    private var fd: Int32 {
        get throws {
            if closed.withLock({ $0 }) { throw SpoolError.system("use of a closed file", errno: EBADF, path: path) }
            return descriptor
        }
    }

    /// Reads into a buffer that is not zeroed first: replay reads every log file whole
    /// (over 100 MB at a million records), and zeroing it before overwriting it cost a
    /// tenth of an open. Read rather than mapped: an I/O error, or a file cut short by a
    /// program that ignores the directory lock, is then a typed error, where touching a
    /// mapped page would kill the process with SIGBUS.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let fd = try self.fd
        // Nothing to read (an empty payload): `[]`, because an array built with capacity 0 is the
        // shared empty-array storage, whose count the initializer below would write from every thread
        // at once (the thread sanitizer reports that write as a race).
        guard count > 0 else { return [] }
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let result = pread(fd, base + filled, count - filled, off_t(offset) + off_t(filled))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw SpoolError.system("pread", errno: errno, path: path, offset: offset + Int64(filled))
                }
                if result == 0 { break }
                filled += result
            }
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let fd = try self.fd
        var written = 0
        while written < bytes.count {
            let result = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if result < 0 {
                if errno == EINTR { continue }
                throw SpoolError.system("pwrite", errno: errno, path: path, offset: offset + Int64(written))
            }
            written += result
        }
    }

    func size() throws -> Int64 {
        var info = stat()
        if fstat(try fd, &info) != 0 { throw SpoolError.system("fstat", errno: errno, path: path) }
        return Int64(info.st_size)
    }

    func syncData() throws {
        SyncCensus.note()
        if let failure = Platform.syncData(try fd) {
            throw SpoolError.system(failure.call, errno: failure.errno, path: path)
        }
    }

    func orderedSync() throws {
        SyncCensus.note()
        if let failure = Platform.orderedSync(try fd) {
            throw SpoolError.system(failure.call, errno: failure.errno, path: path)
        }
    }

    func fullSync() throws {
        SyncCensus.note()
        if let failure = Platform.fullSync(try fd) {
            throw SpoolError.system(failure.call, errno: failure.errno, path: path)
        }
    }

    func truncate(to size: Int64) throws {
        let fd = try self.fd
        if retryingOnInterrupt({ ftruncate(fd, off_t(size)) }) != 0 {
            throw SpoolError.system("ftruncate", errno: errno, path: path, offset: size)
        }
    }

    func preallocate(offset: Int64, length: Int64) throws {
        let result = Platform.preallocate(try fd, offset: offset, length: length)
        if result != 0 { throw SpoolError.system("preallocate", errno: result, path: path, offset: offset) }
    }

    /// Marks the handle closed. The descriptor itself is closed when the last
    /// reference goes, so a read racing with close can never reach a descriptor
    /// number the process has reused for another file.
    func close() {
        unlockFile()
        closed.withLock { $0 = true }
    }

    /// The file's identity while this handle holds its lock (guarded by `closed`'s lock order: its own `Locked`).
    private let heldLock = Locked<ProcessDirectoryLocks.Key?>(nil)

    /// Takes the file in this process's registry (``ProcessFileLocks``), then a non-blocking POSIX
    /// record lock (`fcntl(F_SETLK)`) against other processes. A record lock belongs to the process,
    /// so the registry is what keeps two handles of one process apart.
    func tryLockFile() throws -> Bool {
        let fd = try self.fd
        var info = stat()
        if fstat(fd, &info) != 0 { throw SpoolError.system("fstat", errno: errno, path: path) }
        let key = ProcessDirectoryLocks.Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        guard ProcessFileLocks.take(key) else { return false }
        var request = Platform.wholeFileLock(exclusive: true)
        if retryingOnInterrupt({ fcntl(fd, F_SETLK, &request) }) != 0 {
            let code = errno
            ProcessFileLocks.give(key)
            if code == EAGAIN || code == EACCES { return false }
            throw SpoolError.system("fcntl F_SETLK", errno: code, path: path)
        }
        heldLock.withLock { $0 = key }
        return true
    }

    func unlockFile() {
        guard
            let key = heldLock.withLock({ held -> ProcessDirectoryLocks.Key? in
                defer { held = nil }
                return held
            })
        else { return }
        var request = Platform.wholeFileLock(exclusive: true)
        request.l_type = Int16(F_UNLCK)
        _ = retryingOnInterrupt { fcntl(descriptor, F_SETLK, &request) }
        ProcessFileLocks.give(key)
    }

    func touch() {
        #if !canImport(Darwin)
            // On Apple platforms producers post a Darwin notification instead (DirectoryWatcher.post).
            if let fd = try? fd { _ = futimens(fd, nil) }
        #endif
    }

    func linkCount() throws -> Int {
        var info = stat()
        if fstat(try fd, &info) != 0 { throw SpoolError.system("fstat", errno: errno, path: path) }
        return Int(info.st_nlink)
    }
}

/// Repeats a system call while it fails with `EINTR`.
@inline(__always)
func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

// `close` and `rename` are also names of methods in this module; these
// spell out the C functions.
@inline(__always) func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
