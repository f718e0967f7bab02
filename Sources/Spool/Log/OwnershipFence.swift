/// A ``ProcessSharing/shared`` owner's hold on its queue: taking the role, and the fence every
/// write of the log and of the directory passes through.
///
/// No lock is held between calls. A fenced section takes `LOCK` without waiting (bounded retries,
/// ``SpoolError/Code/locked`` after them), reads `OWNER`, and runs only while the file still names
/// this owner (its epoch and token), renewing the lease first when half of it has gone; otherwise
/// it throws ``SpoolError/Code/ownershipLost`` and so does every later section. Takeovers change
/// `OWNER` under the same lock, so a write that passed the check ends before any takeover
/// begins, and every write after a takeover is refused: an owner that lost the role never
/// interleaves a byte with the next one's. FORMAT.md, "Ownership (the OWNER file)", argues each step.
final class OwnershipFence: @unchecked Sendable {
    // @unchecked: `record` and `lost` are guarded by `section`; the rest is immutable.
    let directory: String
    let ownerPath: String
    private let fileSystem: any FileSystem
    private let lock: any BriefDirectoryLock
    private let clock: any SpoolClock
    private let leaseMillis: Int64
    /// One fenced section of this owner at a time (a blocking in-process mutex, never a file lock).
    private let section = Lock()
    /// The record this owner last wrote or checked.
    private var record: OwnerRecord
    private var lost: SpoolError?

    /// Attempts at `LOCK` before a section gives up, and the longest pause between two.
    static let lockAttempts = 200
    static let longestPauseMicroseconds: UInt32 = 10_000

    /// The owner's current record (its epoch, its lease).
    var current: OwnerRecord { section.withLock { record } }

    /// When the lease is next due for renewal (half of it gone), in milliseconds since 1970.
    var renewalDue: Int64 { section.withLock { record.leaseUntil - leaseMillis / 2 } }

    private init(
        directory: String, fileSystem: any FileSystem, lock: any BriefDirectoryLock, clock: any SpoolClock,
        leaseMillis: Int64, record: OwnerRecord
    ) {
        self.directory = directory
        self.ownerPath = directory + "/" + OwnerRecord.fileName
        self.fileSystem = fileSystem
        self.lock = lock
        self.clock = clock
        self.leaseMillis = leaseMillis
        self.record = record
    }

    // MARK: Taking the role

    /// Takes the role for a ``ProcessSharing/shared`` owner: under `LOCK` (never waiting), reads
    /// `OWNER`; refuses with ``SpoolError/Code/ownedElsewhere`` while another owner's lease holds
    /// (and its process exists); otherwise writes the next epoch with a new token and lease, syncs
    /// it (and the directory when the file is new), and lets the lock go.
    static func take(
        directory: String, fileSystem: any FileSystem, lock: any BriefDirectoryLock, clock: any SpoolClock,
        lease: TimeInterval
    ) throws -> OwnershipFence {
        let leaseMillis = max(1, Millis.from(seconds: lease))
        let ownerPath = directory + "/" + OwnerRecord.fileName
        let record = try withLock(lock, path: directory) { () throws -> OwnerRecord in
            let found = try read(ownerPath, fileSystem: fileSystem)
            let now = Millis.from(clock.now())
            try refuseLiveOwner(found, now: now, path: ownerPath)
            let next = OwnerRecord(
                generation: (found?.generation ?? 0) + 1, epoch: (found?.epoch ?? 0) + 1, token: newToken(),
                leaseUntil: now + leaseMillis, processID: Platform.currentProcessID())
            try write(next, to: ownerPath, directory: directory, fileSystem: fileSystem)
            return next
        }
        return OwnershipFence(
            directory: directory, fileSystem: fileSystem, lock: lock, clock: clock, leaseMillis: leaseMillis,
            record: record)
    }

    /// Records an ``ProcessSharing/exclusive`` owner, which holds `LOCK` for as long as it has the
    /// queue open, in a queue that has an `OWNER` file (one a `.shared` owner used): refuses while
    /// another owner's lease holds, else writes the next epoch with no lease, so that an earlier
    /// `.shared` owner's next write is refused. A queue without `OWNER` is left as it is.
    static func recordExclusiveOwner(directory: String, fileSystem: any FileSystem, clock: any SpoolClock) throws {
        let ownerPath = directory + "/" + OwnerRecord.fileName
        guard try fileSystem.entryKind(at: ownerPath) != nil else { return }
        let found = try read(ownerPath, fileSystem: fileSystem)
        try refuseLiveOwner(found, now: Millis.from(clock.now()), path: ownerPath)
        let next = OwnerRecord(
            generation: (found?.generation ?? 0) + 1, epoch: (found?.epoch ?? 0) + 1, token: newToken(),
            leaseUntil: 0, processID: Platform.currentProcessID())
        try write(next, to: ownerPath, directory: directory, fileSystem: fileSystem)
    }

    /// Throws ``SpoolError/Code/ownedElsewhere`` when `found` is another owner's live lease: not
    /// expired at `now`, and its process exists (a process that no longer exists cannot write).
    private static func refuseLiveOwner(_ found: OwnerRecord?, now: Int64, path: String) throws {
        guard let found, found.leaseUntil > now else { return }
        // This process's own pid is alive by definition: a second open in one process waits for the lease.
        guard found.processID == Platform.currentProcessID() || Platform.processExists(found.processID) else {
            return
        }
        throw SpoolError(
            .ownedElsewhere,
            "the queue is owned by process \(found.processID) (epoch \(found.epoch)) until "
                + "\(Millis.date(found.leaseUntil)) (its lease has not expired)",
            path: path)
    }

    // MARK: The fence

    /// Runs `body` while `OWNER` still names this owner, under `LOCK`; renews the lease first when
    /// half of it has gone. Throws ``SpoolError/Code/ownershipLost`` (from then on, every time) when
    /// another owner took over, ``SpoolError/Code/locked`` when `LOCK` stayed busy.
    func fenced<T>(_ body: () throws -> T) throws -> T {
        try section.withLock {
            if let lost { throw lost }
            return try Self.withLock(lock, path: directory) {
                let found = try Self.read(ownerPath, fileSystem: fileSystem)
                guard let found, found.epoch == record.epoch, found.token == record.token else {
                    let failure = SpoolError(
                        .ownershipLost,
                        "another process took the queue over (epoch \(record.epoch) was this one's; the OWNER file "
                            + (found.map { "names epoch \($0.epoch), process \($0.processID)" } ?? "holds no owner")
                            + "): nothing more is written; reopen the queue", path: ownerPath)
                    lost = failure
                    throw failure
                }
                record = found
                let now = Millis.from(clock.now())
                if now >= record.leaseUntil - leaseMillis / 2 {
                    var renewed = record
                    renewed.generation += 1
                    renewed.leaseUntil = now + leaseMillis
                    try Self.write(renewed, to: ownerPath, directory: directory, fileSystem: fileSystem)
                    record = renewed
                }
                return try body()
            }
        }
    }

    /// Renews the lease when half of it has gone (a fenced section that writes nothing else).
    func renew() throws { try fenced {} }

    /// Ends the lease at a clean close, so that another process may take over at once: writes the
    /// record again with lease-until 0, when `OWNER` still names this owner. Later sections refuse.
    func resign() throws {
        try fenced {
            var ended = record
            ended.generation += 1
            ended.leaseUntil = 0
            try Self.write(ended, to: ownerPath, directory: directory, fileSystem: fileSystem)
            record = ended
            lost = SpoolError(.closed, "the queue is closed", path: directory)
        }
    }

    /// Gives up the registration on `LOCK` (the lease is left to expire).
    func release() { lock.release() }

    // MARK: Steps

    /// Runs `body` holding `lock`, taken without waiting: bounded attempts with growing pauses between.
    private static func withLock<T>(_ lock: any BriefDirectoryLock, path: String, _ body: () throws -> T) throws -> T {
        var pause: UInt32 = 20
        for attempt in 1...lockAttempts {
            if try lock.tryLock() {
                defer { lock.unlock() }
                return try body()
            }
            if attempt < lockAttempts {
                Platform.pause(microseconds: pause)
                pause = min(pause * 2, longestPauseMicroseconds)
            }
        }
        throw SpoolError(
            .locked, "LOCK stayed locked by another process through \(lockAttempts) attempts", path: path,
            operation: "fcntl F_SETLK")
    }

    /// The current record of the file at `path`; `nil` when there is no file or no valid slot.
    static func read(_ path: String, fileSystem: any FileSystem) throws -> OwnerRecord? {
        let file: any StorageFile
        do {
            file = try fileSystem.openFile(at: path, mode: .readOnly)
        } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
            return nil
        }
        defer { file.close() }
        return try OwnerRecord.current(in: try file.read(at: 0, count: OwnerRecord.fileSize), path: path)
    }

    /// Writes `record` into its slot and syncs it; a new file is created and the directory synced.
    private static func write(_ record: OwnerRecord, to path: String, directory: String, fileSystem: any FileSystem)
        throws
    {
        let created = try fileSystem.entryKind(at: path) == nil
        let file = try fileSystem.openFile(at: path, mode: created ? .createNew : .readWrite)
        defer { file.close() }
        try file.write(record.encoded(), at: record.slotOffset)
        try file.syncData()
        if created { try fileSystem.syncDirectory(at: directory) }
    }

    /// A random 128-bit token.
    private static func newToken() -> [UInt8] {
        withUnsafeBytes(of: UUID().uuid) { Array($0) }
    }
}

extension Optional where Wrapped == OwnershipFence {
    /// Runs `body` inside the fence of a `.shared` owner, or as it is without one (an exclusive
    /// owner): the one place that says so.
    func fenced<T>(_ body: () throws -> T) throws -> T {
        guard let fence = self else { return try body() }
        return try fence.fenced(body)
    }
}
