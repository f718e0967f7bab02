import Dispatch

#if canImport(Darwin)
    import Darwin
    #if canImport(notify)
        import notify
    #endif
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Calls `onChange` when a producer wrote into a queue's `inbox/` directory, with no polling.
///
/// Linux: `inotify` on the directory (a file's times changed, which producers do after each synced
/// write once they unlocked, or a file moved in), its descriptor read by a dispatch source. Not a file
/// closed after writing: the owner's ingestion opens each inbox file for writing (to lock it), and
/// would wake itself again at every close. Apple platforms: a Darwin notification
/// (`notify_register_dispatch`) named for the queue, which producers post (``post(_:)``) after each
/// synced write; a file-system event on a shared container is not delivered to a suspended process,
/// and a notification reaches every process of the app group that registered. Events coalesce: one
/// call may stand for several writes. `nil` when the system refuses (the caller's bounded fallback
/// check then finds the writes).
final class DirectoryWatcher: @unchecked Sendable {
    // @unchecked: the handle is immutable; `cancelled` is guarded by `Locked`.
    #if canImport(Darwin)
        private let token: Int32
    #else
        private let source: any DispatchSourceRead
    #endif
    private let cancelled = Locked(false)

    /// Watches `directory` (it must exist) for the notification `name` or the directory's events.
    init?(
        directory: String, notificationName name: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void
    ) {
        #if canImport(Darwin)
            #if canImport(notify)
                var token: Int32 = NOTIFY_TOKEN_INVALID
                let status = notify_register_dispatch(name, &token, queue) { _ in onChange() }
                guard status == UInt32(NOTIFY_STATUS_OK) else { return nil }
                self.token = token
            #else
                return nil
            #endif
        #else
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            let mask = UInt32(IN_ATTRIB | IN_MOVED_TO)
            guard inotify_add_watch(fd, directory, mask) >= 0 else {
                close(fd)
                return nil
            }
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler {
                // Drains every queued event (the descriptor does not block): one call for the lot.
                var buffer = [UInt8](repeating: 0, count: 4096)
                while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
                onChange()
            }
            source.setCancelHandler { close(fd) }
            source.resume()
            self.source = source
        #endif
    }

    /// Posts the notification `name`, which wakes an owner watching the queue's inbox on Apple platforms,
    /// after a producer's synced write, once it unlocked its file. On Linux nothing: the producer changes
    /// the file's times instead (``StorageFile/touch()``), which `inotify` reports (`IN_ATTRIB`).
    static func post(_ name: String) {
        #if canImport(Darwin)
            #if canImport(notify)
                _ = notify_post(name)
            #endif
        #endif
    }

    /// Stops watching, once.
    func cancel() {
        let first = cancelled.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        #if canImport(Darwin)
            #if canImport(notify)
                _ = notify_cancel(token)
            #endif
        #else
            source.cancel()
        #endif
    }

    deinit { cancel() }
}
