/// A producer's writer of its inbox file (FORMAT.md, *Producer inbox files*, "A producer's call"): one
/// file at a time, each call one record appended and synced under the file's lock, stamped while the
/// lock is held. Guarded by its ``QueueProducer``'s lock: its calls take turns.
struct InboxWriter {
    let inbox: String
    let fileSystem: any FileSystem
    let durability: Durability
    /// The clock of each record's ``InboxStamp``.
    let clock: any SpoolClock
    /// Draws the id of each new inbox file.
    let fileIDs: @Sendable () -> [UInt8]
    /// The Darwin notification that wakes the owner (``DirectoryWatcher/post(_:)``).
    let notificationName: String
    private var file: (any StorageFile)?
    private var id: [UInt8] = []
    /// Bytes written to the file (0: not even its header yet).
    private var end: Int64 = 0
    /// The file's size: its records, then zeroes (``InboxFormat/reservation(after:needed:)``).
    private var reserved: Int64 = 0
    private var nextLSN: UInt64 = 1

    /// Attempts at a free file before a call gives up: each busy one is left to the owner.
    static let attempts = 8

    init(
        inbox: String, fileSystem: any FileSystem, durability: Durability, clock: any SpoolClock,
        fileIDs: @escaping @Sendable () -> [UInt8], notificationName: String
    ) {
        self.inbox = inbox
        self.fileSystem = fileSystem
        self.durability = durability
        self.clock = clock
        self.fileIDs = fileIDs
        self.notificationName = notificationName
    }

    /// A new inbox file's id, from the system's secure random source.
    @Sendable static func randomFileID() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<InboxFormat.fileIDSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Appends `requests` as one record, under the file's lock, durably.
    ///
    /// The record is stamped once the lock is held (``InboxStamp``: the boot, the monotonic clock and the
    /// wall clock): a call that returned before another began has the lower reading, in any process, and
    /// the owner applies the producers' records in the order of their readings (``InboxMerge``).
    ///
    /// The lock is tried, never waited for: a busy file is one the owner is ingesting, so the producer
    /// leaves it to the owner and goes on in a new file. So is a file the owner removed (no link left).
    /// After a failed write or sync the file is abandoned too: its tail is unknown, so nothing may follow it.
    /// Returns the file the frame went to and where it ends there.
    @discardableResult
    mutating func append(_ requests: [InboxRequest]) throws -> InboxPlace {
        for _ in 0..<Self.attempts {
            let lockedAtCreation = file == nil ? try create() : false
            let file = self.file!
            guard try lockedAtCreation || file.tryLockFile() else {
                abandon()
                continue
            }
            var written = false
            // Runs after the unlock below: an owner woken at once finds the file free. One of the two wakes
            // the owner (Linux: the file's times, IN_ATTRIB; Apple platforms: the notification).
            defer {
                if written {
                    file.touch()
                    DirectoryWatcher.post(notificationName)
                }
            }
            defer { file.unlockFile() }
            guard try file.linkCount() > 0 else {
                abandon()
                continue
            }
            let stamp = InboxStamp(
                bootID: clock.bootIdentifier(), monotonic: clock.monotonicNanoseconds(), at: Millis.from(clock.now()))
            var frame = InboxCodec.encode(requests, stamp: stamp, headroom: LogFormat.frameHeaderSize)
            guard frame.count - LogFormat.frameHeaderSize <= LogFormat.maximumBodySize else {
                throw SpoolError.invalidArgument(
                    "the record of \(frame.count) bytes is over the limit of \(LogFormat.maximumBodySize): split the batch"
                )
            }
            RecordFrame.seal(
                &frame, type: .transaction, lsn: nextLSN, groupIndex: 0, seed: InboxFormat.checksumSeed(id: id))
            // The header goes with the first record, in one write: an inbox file is either empty (a
            // creation cut short), or holds a header.
            let bytes = end == 0 ? InboxFormat.header(id: id) + frame : frame
            let needed = end + Int64(bytes.count)
            do {
                if needed > reserved {
                    // Zeroes up to a new reservation, with the record, then a full sync for the file's size:
                    // the records that fit after it change no metadata, and their data syncs stay short.
                    let extended = InboxFormat.reservation(after: reserved, needed: needed)
                    try file.write(bytes + [UInt8](repeating: 0, count: Int(extended - needed)), at: end)
                    try file.fullSync()
                    reserved = extended
                } else {
                    try file.write(bytes, at: end)
                    try file.sync(durability)
                }
            } catch {
                abandon()
                throw error
            }
            end = needed
            nextLSN += 1
            written = true
            return InboxPlace(file: InboxFormat.fileName(id: id), end: end)
        }
        throw SpoolError(
            .locked, "the queue's inbox stayed busy over \(Self.attempts) attempts", path: inbox,
            operation: "fcntl F_SETLK")
    }

    /// Makes a new inbox file (its directory entry durable before any record in it is acknowledged) and
    /// locks it before that directory sync, so that an owner woken by the creation finds it busy, not
    /// empty, during the sync. Returns whether the lock was taken (the owner may have taken it first, in
    /// the moment between the creation and the lock: the caller then tries it as for any file).
    private mutating func create() throws -> Bool {
        let random = fileIDs()
        precondition(random.count == InboxFormat.fileIDSize, "an inbox file id has \(InboxFormat.fileIDSize) bytes")
        let path = inbox + "/" + InboxFormat.fileName(id: random)
        let created = try fileSystem.openFile(at: path, mode: .createNew)
        let locked: Bool
        do {
            locked = try created.tryLockFile()
            try fileSystem.syncDirectory(at: inbox)
        } catch {
            // Closing the file releases a lock taken on it.
            created.close()
            throw error
        }
        (file, id, end, reserved, nextLSN) = (created, random, 0, 0, 1)
        return locked
    }

    private mutating func abandon() {
        file?.close()
        file = nil
    }
}

/// Where a producer's record went: its inbox file's name and the offset after the record.
struct InboxPlace: Sendable, Equatable {
    var file: String
    var end: Int64
}

extension InboxWriter {
    /// Makes the queue's `inbox/` when it is missing, its entry durable before anything is written
    /// into it (another process making it at the same time is no error); returns its path.
    @discardableResult
    static func createInboxIfMissing(ofQueue directory: String, fileSystem: any FileSystem) throws -> String {
        let inbox = InboxFormat.directory(ofQueue: directory)
        guard try fileSystem.entryKind(at: inbox) == nil else { return inbox }
        do {
            try fileSystem.createDirectory(at: inbox)
        } catch let error as SpoolError where error.errno == Platform.Errno.exists {
            // Another producer, or the owner's runner, made it at the same time.
        }
        try fileSystem.syncDirectory(at: directory)
        return inbox
    }
}
