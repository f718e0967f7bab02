#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C library calls Spool makes outside its POSIX file system, and the ones
/// that file system leaves to it (the syncs, preallocation, lock requests,
/// random bytes, process ids, the clocks, the boot identifier, errno names):
/// only `Platform/` and the POSIX file system import the C library
/// (`.ci/check-layers`). Where Apple platforms and Linux differ here (the
/// flavour of fsync, the monotonic clock, the boot identifier, preallocation),
/// the difference is in this file; the others are the mutex's kind (``Lock``),
/// the directory watch (``DirectoryWatcher``) and a producer's wake-up
/// (`StorageFile.touch()`).
enum Platform {
    /// A system call that failed: its name as it ran (for the error), and the errno.
    struct CallFailure: Equatable, Sendable {
        var call: String
        var errno: Int32
    }

    /// Flushes a file's data to stable storage (a *data sync*).
    ///
    /// On Apple platforms `fsync` only hands the data to the drive, whose cache
    /// may still lose it on power failure; `F_FULLFSYNC` asks the drive to flush
    /// its cache too. Some file systems (network, FAT) refuse it, and then plain
    /// `fsync` is the best that can be had. On Linux `fdatasync` flushes the data
    /// and the metadata needed to read it back (the size), skipping timestamps.
    ///
    /// This is the one place that decides which call a sync makes and what it is
    /// called in an error.
    ///
    /// - Returns: `nil` on success, otherwise the call that failed and its errno.
    static func syncData(_ fd: Int32) -> CallFailure? {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return nil }
            let fullSyncErrno = errno
            guard fullSyncErrno == EINVAL || fullSyncErrno == ENOTSUP || fullSyncErrno == ENOTTY else {
                return CallFailure(call: "fcntl(F_FULLFSYNC)", errno: fullSyncErrno)
            }
            return fsync(fd) == 0 ? nil : CallFailure(call: "fsync", errno: errno)
        #else
            return fdatasync(fd) == 0 ? nil : CallFailure(call: "fdatasync", errno: errno)
        #endif
    }

    /// Makes the writes so far reach the disk before any later one (an *ordered sync*, for
    /// ``Durability/ordered``): they survive a crash of the app or of the kernel, and a power loss
    /// may drop them only together with everything written after them.
    ///
    /// On Apple platforms `F_BARRIERFSYNC` (`fsync` plus a barrier the drive honours, without
    /// flushing its cache); a file system that refuses it gets the same `fsync` fallback as
    /// ``syncData(_:)``. Linux has no barrier-only sync: `fdatasync`, as ``syncData(_:)``.
    ///
    /// - Returns: `nil` on success, otherwise the call that failed and its errno.
    static func orderedSync(_ fd: Int32) -> CallFailure? {
        #if canImport(Darwin)
            if fcntl(fd, F_BARRIERFSYNC) == 0 { return nil }
            let barrierErrno = errno
            guard barrierErrno == EINVAL || barrierErrno == ENOTSUP || barrierErrno == ENOTTY else {
                return CallFailure(call: "fcntl(F_BARRIERFSYNC)", errno: barrierErrno)
            }
            return fsync(fd) == 0 ? nil : CallFailure(call: "fsync", errno: errno)
        #else
            return syncData(fd)
        #endif
    }

    /// Flushes a file's data and all of its metadata, including its block
    /// allocation (a *full sync*): `fsync` on Linux, `F_FULLFSYNC` (which already
    /// covers metadata) on Apple platforms.
    ///
    /// - Returns: `nil` on success, otherwise the call that failed and its errno.
    static func fullSync(_ fd: Int32) -> CallFailure? {
        #if canImport(Darwin)
            return syncData(fd)
        #else
            return fsync(fd) == 0 ? nil : CallFailure(call: "fsync", errno: errno)
        #endif
    }

    /// Flushes a directory's entries (creations, renames, removals).
    ///
    /// - Returns: `nil` on success, otherwise the call that failed and its errno.
    static func syncDirectory(_ fd: Int32) -> CallFailure? {
        fullSync(fd)
    }

    /// Reserves `length` bytes from `offset` so that later writes in that range
    /// need no metadata change (and so no metadata flush). Best effort: a file
    /// system that cannot preallocate returns an errno the caller may ignore.
    ///
    /// - Returns: 0 on success, otherwise the errno.
    static func preallocate(_ fd: Int32, offset: Int64, length: Int64) -> Int32 {
        #if canImport(Darwin)
            // F_ALLOCATEALL with F_ALLOCATECONTIG: without it a contiguous request may succeed having
            // allocated only part of the length (fst_bytesalloc < fst_length), leaving the rest of the
            // range that ftruncate then covers unallocated.
            var store = fstore_t(
                fst_flags: UInt32(F_ALLOCATECONTIG | F_ALLOCATEALL), fst_posmode: F_PEOFPOSMODE,
                fst_offset: 0, fst_length: off_t(length), fst_bytesalloc: 0)
            if fcntl(fd, F_PREALLOCATE, &store) == -1 {
                store.fst_flags = UInt32(F_ALLOCATEALL)
                if fcntl(fd, F_PREALLOCATE, &store) == -1 { return errno }
            }
            return ftruncate(fd, off_t(offset + length)) == 0 ? 0 : errno
        #else
            // Zeroes are written rather than `posix_fallocate`d: on ext4 and XFS fallocate makes
            // *unwritten* extents, and the first write into each block converts its extent, a
            // metadata change that every fdatasync then has to flush (measured here: a 2 KiB group
            // commit synced in 133–144 µs into fallocated space, 113–132 µs into written zeroes;
            // 8 KiB: 175–204 µs against 106–119 µs). Written blocks make later syncs data only.
            var written: Int64 = 0
            while written < length {
                let count = Int(min(length - written, Int64(zeroes.count)))
                let result = zeroes.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset + written)) }
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += Int64(result)
            }
            return 0
        #endif
    }

    /// Fills `buffer` with cryptographically secure random bytes: `arc4random_buf`
    /// on Apple platforms, `/dev/urandom` on Linux (one read for the whole buffer).
    ///
    /// - Returns: Whether the buffer was filled.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return true }
        #if canImport(Darwin)
            arc4random_buf(base, buffer.count)
            return true
        #else
            let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var filled = 0
            while filled < buffer.count {
                let count = read(fd, base + filled, buffer.count - filled)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                filled += count
            }
            return true
        #endif
    }

    /// A POSIX record-lock request covering a whole file, for `fcntl(F_SETLK)`.
    static func wholeFileLock(exclusive: Bool) -> flock {
        var request = flock()
        request.l_type = Int16(exclusive ? F_WRLCK : F_RDLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        return request
    }

    /// A POSIX record-lock request that gives a whole-file lock back, for `fcntl(F_SETLK)`.
    static func wholeFileUnlock() -> flock {
        var request = wholeFileLock(exclusive: true)
        request.l_type = Int16(F_UNLCK)
        return request
    }

    /// This process's id.
    static func currentProcessID() -> Int32 { getpid() }

    /// Whether a process with id `pid` exists (`kill(pid, 0)`): `false` only when the system says
    /// there is none (`ESRCH`); a process this one may not signal (`EPERM`, a sandbox) counts as alive.
    static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno != ESRCH
    }

    /// Pauses the calling thread for `microseconds` (between two non-blocking lock attempts: no lock
    /// is held or waited for meanwhile).
    static func pause(microseconds: UInt32) {
        _ = usleep(microseconds)
    }

    /// Nanoseconds on a clock that never goes backwards and keeps counting while
    /// the device sleeps; it restarts at boot, so it is only comparable with
    /// readings taken under the same ``bootIdentifier()``.
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        #if canImport(Darwin)
            clock_gettime(CLOCK_MONOTONIC, &spec)
        #else
            clock_gettime(CLOCK_BOOTTIME, &spec)
        #endif
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// An identifier that is the same for every process until the machine
    /// reboots, and different after.
    static func bootIdentifier() -> String {
        #if canImport(Darwin)
            var size = 0
            guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 0 else {
                return fallbackBootIdentifier()
            }
            var buffer = [UInt8](repeating: 0, count: size)
            guard sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0) == 0 else {
                return fallbackBootIdentifier()
            }
            // The bytes the call returned (`size` of them), up to the NUL that ends a string sysctl.
            return String(decoding: buffer.prefix(min(size, buffer.count)).prefix { $0 != 0 }, as: UTF8.self)
        #else
            let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return fallbackBootIdentifier() }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return fallbackBootIdentifier() }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            return String(text.filter { !$0.isWhitespace })
        #endif
    }

    /// `base` raised to `exponent` (the C library's `pow`).
    static func power(_ base: Double, _ exponent: Double) -> Double {
        pow(base, exponent)
    }

    /// The errno values the engine tells apart, so that only Platform/ and Storage/ import the C library.
    enum Errno {
        static let noSuchEntry = ENOENT
        static let notADirectory = ENOTDIR
        static let exists = EEXIST
    }

    /// Whether `value` says the disk or the file's size limit is full (`ENOSPC`, `EFBIG`, `EDQUOT`).
    static func isDiskFull(errno value: Int32) -> Bool {
        value == ENOSPC || value == EFBIG || value == EDQUOT
    }

    /// The system's description of `value` (`strerror`), "" for none.
    static func errnoDescription(_ value: Int32) -> String {
        guard let text = strerror(value) else { return "" }
        return String(cString: text)
    }

    /// Whether every byte of `bytes` is zero, compared a block at a time (`memcmp`):
    /// a preallocated log ends in up to a whole chunk of zeroes.
    static func isAllZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        // 16 KiB of the zeroes at a time: a block that stays in the first-level cache.
        return zeroes.withUnsafeBytes { zeroes in
            let block = UnsafeRawBufferPointer(rebasing: zeroes[..<(16 << 10)])
            var index = 0
            while index < bytes.count {
                let length = min(block.count, bytes.count - index)
                if memcmp(base + index, block.baseAddress!, length) != 0 { return false }
                index += length
            }
            return true
        }
    }

    /// The offset after the last byte of `bytes` that is not zero (0 when every byte is zero), found
    /// from the end a block at a time (``isAllZero(_:)``): a producer's inbox file ends in the zeroes
    /// of its reservation.
    static func endOfNonZero(_ bytes: UnsafeRawBufferPointer) -> Int {
        var end = bytes.count
        // Whole blocks of zeroes first (4 KiB, then 64 bytes), then byte by byte within the last block.
        for block in [4 << 10, 64] {
            while end >= block, isAllZero(UnsafeRawBufferPointer(rebasing: bytes[(end - block)..<end])) {
                end -= block
            }
        }
        while end > 0 && bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    /// Zeroes to compare with (``isAllZero(_:)``) and, on Linux, to write
    /// (``preallocate(_:offset:length:)``).
    private static let zeroes = [UInt8](repeating: 0, count: 1 << 20)

    /// The boot time in whole seconds, rounded: stable for one boot.
    private static func fallbackBootIdentifier() -> String {
        let now = Date().timeIntervalSince1970
        let uptime = Double(monotonicNanoseconds()) / 1e9
        return "boot-\(Int64((now - uptime) / 10) * 10)"
    }
}
