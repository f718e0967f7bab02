#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutual-exclusion lock that works on every supported OS version.
///
/// `Synchronization.Mutex` needs iOS 18 / macOS 15; Spool supports iOS 15 and
/// macOS 12, so it wraps a `pthread_mutex_t`, allocated once so that its address
/// never moves (a pthread mutex must not be copied).
final class Lock: @unchecked Sendable {
    // @unchecked: the pointer is only touched through pthread calls, which
    // are themselves thread-safe; it is allocated once and freed in deinit.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        // `!canImport(Darwin)`: the Darwin type-check (.ci/typecheck-darwin) sees Glibc too.
        #if canImport(Glibc) && !canImport(Darwin)
            // Spins a little before sleeping when the holder is running: the engine's critical sections
            // are a few µs, far shorter than a futex sleep and wake-up, and many callers woken by one
            // group commit contend at once (a plain mutex turns that into a convoy of wake-ups).
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        let result = pthread_mutex_init(mutex, &attributes)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held.
    @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a ``Lock``.
///
/// Keep a function inside a struct rather than as `Value` itself: `withLock` passes the value
/// `inout` through its generic parameter, and a bare function value gains a reabstraction thunk
/// each way, so one read at a time it grows without bound (a chain of thunks that is slower at
/// every call and, read often enough, would overflow the stack).
///
/// `package`: the Apple product (SpoolApp) guards its state with it too.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written inside `lock.withLock`.
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
