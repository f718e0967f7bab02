#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Enqueues and cancels jobs of a queue that another process runs — an app extension, a widget, an
/// intent or the `spool` CLI beside the app that owns the queue — without opening it.
///
/// A producer never writes the log and never holds a lock between calls: each call appends one
/// checksummed record to the producer's own *inbox file* (`inbox/<random>.inbox` in the queue
/// directory), syncs it, and returns. The process that has the queue open as a ``JobQueue`` (the
/// *owner*) ingests inbox files into its log at open, when its runner's watcher sees a producer write
/// (see ``Configuration/inboxCheckInterval``) and on `JobQueue/ingestInbox()`, then removes them.
///
/// <!-- sample: skip -->
/// ```swift
/// // In a share extension, with the queue in the App Group container:
/// let producer = try QueueProducer(directory: groupContainer + "/jobs")
/// let id = try producer.enqueue(NewJob(kind: "upload-photo", payload: Data(path.utf8)))
/// ```
///
/// What a call promises: when it returns, its record is on stable storage (as
/// ``Configuration/durability`` says), and after any crash of any process the owner ingests it exactly
/// once. The id it returns is final: ids are drawn by the producer. The owner judges each request by
/// the queue's rules when it ingests it, and **drops** one they refuse instead of failing:
/// - an enqueue whose id is taken, or whose prerequisite does not exist (or is periodic);
/// - with a ``NewJob/uniqueKey`` and ``UniquePolicy/keep``, an enqueue whose key an unfinished job
///   holds when the owner ingests it: the producer cannot see the owner's state, so it returns the
///   id it drew, and that id names a job only if no job held the key then (look the job up by its
///   key, or use ``UniquePolicy/replace``, which the owner resolves the same way as ``JobQueue`` does);
/// - a cancel of a job that is finished or unknown by then (``cancel(_:)-50zor`` records a *request*).
///
/// One producer may be used from several threads and tasks; its calls take turns. Several producers,
/// in any processes, write into one queue at once.
public final class QueueProducer: Sendable {
    /// The queue's directory.
    public let directory: String
    /// The configuration: its clock, ``Configuration/durability``, ``Configuration/maximumPayloadSize``,
    /// ``Configuration/retryPolicy`` (the default attempts) and ``Configuration/knownKinds`` apply.
    public let configuration: Configuration
    private let session: Locked<ProducerSession>
    /// Where each job this producer recorded went (QueueProducer+Reads.swift).
    let recorded = Locked(RecordedJobs())

    /// A producer for the queue in `directory`, which must exist (another process created it).
    ///
    /// Creates the queue's `inbox/` folder if it is missing; the producer's inbox file is created by
    /// its first call.
    ///
    /// - Throws: ``SpoolError/Code/queueNotFound`` when there is no directory,
    ///   ``SpoolError/Code/notAQueue`` when it holds no log, or an I/O error.
    public convenience init(directory: String, configuration: Configuration = Configuration()) throws {
        try self.init(directory: directory, configuration: configuration, fileIDs: ProducerSession.randomFileID)
    }

    /// A producer whose inbox files are named by `fileIDs` (each call a new ``InboxFormat/fileIDSize``-byte
    /// id): the simulations draw them from their seed, so that a run is repeatable.
    init(directory: String, configuration: Configuration, fileIDs: @escaping @Sendable () -> [UInt8]) throws {
        let fileSystem = configuration.fileSystem
        guard try fileSystem.entryKind(at: directory) == .directory else {
            throw SpoolError(.queueNotFound, "no queue directory", path: directory)
        }
        guard try !LogReplay.logFiles(in: directory, fileSystem: fileSystem).isEmpty else {
            throw SpoolError(.notAQueue, "the directory holds no queue log", path: directory)
        }
        let inbox = InboxFormat.directory(ofQueue: directory)
        if try fileSystem.entryKind(at: inbox) == nil {
            do {
                try fileSystem.createDirectory(at: inbox)
            } catch let error as SpoolError where error.errno == Platform.Errno.exists {
                // Another producer made it at the same time.
            }
            try fileSystem.syncDirectory(at: directory)
        }
        guard try fileSystem.entryKind(at: inbox) == .directory else {
            throw SpoolError(.notAQueue, "inbox is not a directory", path: inbox)
        }
        self.directory = directory
        self.configuration = configuration
        session = Locked(
            ProducerSession(
                inbox: inbox, fileSystem: fileSystem, durability: configuration.durability, fileIDs: fileIDs,
                notificationName: QueueDirectoryLayout.inboxNotificationName(directory: directory)))
    }

    // MARK: Enqueue

    /// Records a job for the owner to enqueue, and returns its id once the record is durable.
    ///
    /// Every ``NewJob`` option is carried. See the type's documentation for what the owner drops.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` as ``JobQueue/enqueue(_:)-6of7x`` does for an
    ///   invalid job; ``SpoolError/Code/locked`` when the inbox stayed busy over several attempts; an
    ///   I/O error when the record could not be made durable.
    @discardableResult
    public func enqueue(_ job: NewJob) throws -> JobID {
        try enqueue(contentsOf: [job])[0]
    }

    /// Records a job for the owner to enqueue. See `enqueue(_:)`.
    @discardableResult
    public func enqueue(_ job: NewJob) async throws -> JobID {
        try await JobQueue.offload { try self.enqueue(job) }
    }

    /// Records many jobs in one record — one sync — and returns their ids once it is durable. The
    /// owner ingests the record whole (never a part of it), and judges each job in order, as
    /// ``JobQueue/enqueue(contentsOf:)-84e97`` does; one it refuses is dropped alone.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an invalid job (the message names its
    ///   index) or a batch over the record limit; otherwise as `enqueue(_:)`.
    @discardableResult
    public func enqueue(contentsOf jobs: [NewJob]) throws -> [JobID] {
        let now = Millis.from(configuration.clock.now())
        var requests: [InboxRequest] = []
        var ids: [JobID] = []
        requests.reserveCapacity(jobs.count)
        for index in jobs.indices {
            do {
                let new = try QueueEngine.validate(jobs[index], now: now, configuration: configuration)
                ids.append(JobID(new.id))
                requests.append(.enqueue(new, policy: jobs[index].uniquePolicy))
            } catch let error as SpoolError where jobs.count > 1 {
                throw SpoolError(error.code, "job \(index) of the batch: \(error.message)", jobID: error.jobID)
            }
        }
        guard !requests.isEmpty else { return [] }
        try record(requests)
        return ids
    }

    /// Records many jobs in one record. See `enqueue(contentsOf:)`.
    @discardableResult
    public func enqueue(contentsOf jobs: [NewJob]) async throws -> [JobID] {
        try await JobQueue.offload { try self.enqueue(contentsOf: jobs) }
    }

    // MARK: Cancel

    /// Records a request to cancel a job, and returns once it is durable.
    ///
    /// A request, not a cancel: the owner applies it when it ingests it, if the job is unfinished then
    /// (a job running then is cancelled as `JobQueue/cancel(_:)` cancels it, and the jobs
    /// waiting for it with it); otherwise it is dropped.
    public func cancel(_ id: JobID) throws {
        try QueueEngine.checkText(id.rawValue, name: "job id", maxBytes: JobLimits.maxIDBytes)
        try record([.cancel(id: id.rawValue, at: Millis.from(configuration.clock.now()))])
    }

    /// Records a request to cancel a job. See `cancel(_:)`.
    public func cancel(_ id: JobID) async throws {
        try await JobQueue.offload { try self.cancel(id) }
    }

    /// Appends `requests` as one record of the producer's inbox file, durably.
    private func record(_ requests: [InboxRequest]) throws {
        var frame = InboxCodec.encode(requests, headroom: LogFormat.frameHeaderSize)
        guard frame.count - LogFormat.frameHeaderSize <= LogFormat.maximumBodySize else {
            throw SpoolError.invalidArgument(
                "the record of \(frame.count) bytes is over the limit of \(LogFormat.maximumBodySize): split the batch")
        }
        let place = try session.withLock { try $0.append(&frame) }
        remember(requests, at: place)
    }
}

/// A producer's inbox file and how far it is written (guarded by the producer's lock).
struct ProducerSession {
    let inbox: String
    let fileSystem: any FileSystem
    let durability: Durability
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
        inbox: String, fileSystem: any FileSystem, durability: Durability, fileIDs: @escaping @Sendable () -> [UInt8],
        notificationName: String
    ) {
        self.inbox = inbox
        self.fileSystem = fileSystem
        self.durability = durability
        self.fileIDs = fileIDs
        self.notificationName = notificationName
    }

    /// A new inbox file's id, from the system's secure random source.
    @Sendable static func randomFileID() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<InboxFormat.fileIDSize).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Appends one frame (`frame`: header room, then the body), under the file's lock, durably.
    ///
    /// The lock is tried, never waited for: a busy file is one the owner is ingesting, so the producer
    /// leaves it to the owner and goes on in a new file. So is a file the owner removed (no link left).
    /// After a failed write or sync the file is abandoned too: its tail is unknown, so nothing may follow it.
    /// Returns the file the frame went to and where it ends there.
    @discardableResult
    mutating func append(_ frame: inout [UInt8]) throws -> InboxPlace {
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
                    switch durability {
                    case .full: try file.syncData()
                    case .ordered: try file.orderedSync()
                    }
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
