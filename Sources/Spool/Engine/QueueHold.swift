/// What makes a directory this process's queue while it is open: the directory's lock, and a
/// ``ProcessSharing/shared`` owner's fence (``OwnershipFence``), which every change of the directory
/// runs inside.
final class QueueHold: Sendable {
    private let lock: any DirectoryLock
    /// A ``ProcessSharing/shared`` owner's fence, shared by every writer of the log; `nil` when exclusive.
    let fence: OwnershipFence?

    init(lock: any DirectoryLock, fence: OwnershipFence?) {
        self.lock = lock
        self.fence = fence
    }

    /// Runs `body` inside the fence of a `.shared` owner (as it is when exclusive): every change of the
    /// directory outside the log writer's commit groups goes through here.
    func fenced<T>(_ body: () throws -> T) throws -> T { try fence.fenced(body) }

    /// Hands the role on at once (a `.shared` owner's clean close; best effort, otherwise the lease expires).
    func resign() {
        try? fence?.resign()
    }

    /// Lets the directory go: another opener may own it from now on.
    func release() {
        lock.release()
    }
}
