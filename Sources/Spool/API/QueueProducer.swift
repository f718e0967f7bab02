import Dispatch

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
///
/// **Order.** The owner applies producers' calls in the order they returned: a call that returned before
/// another began — in this producer or any other, in any process of the machine — is applied first (each
/// record carries a reading of the machine's monotonic clock, taken under its file's lock; FORMAT.md,
/// *Producer inbox files*). Calls that overlap may be applied in either order. Against the owner's own
/// calls, a producer's call is applied when the owner ingests it: after every change the owner made before
/// that ingestion, even one made after the producer's call returned. The reading is the configured
/// ``Configuration/clock``'s (``SpoolClock/monotonicNanoseconds()`` and ``SpoolClock/bootIdentifier()``): the order
/// holds across processes when each uses ``SystemClock`` (the default), which reads the machine's clock.
/// Producers on clocks of their own (a ``ManualClock`` in a test) stamp what those clocks say: records with
/// equal readings are applied in the order of their files' names (then each file's order), whichever call
/// returned first.
public final class QueueProducer: Sendable {
    /// The queue's directory.
    public let directory: String
    /// The configuration: its clock (the records' stamps and times), ``Configuration/durability``,
    /// ``Configuration/maximumPayloadSize`` and ``Configuration/knownKinds`` (a job of another kind is
    /// refused) apply. Its ``Configuration/retryPolicy`` does not: a job that names neither
    /// ``NewJob/maxAttempts`` nor a retry policy gets the owner's when the owner ingests it.
    public let configuration: Configuration
    private let writer: Locked<InboxWriter>
    /// Where the async calls run their blocking work: a thread of Spool's own, one call at a time
    /// (they take turns on `writer` anyway), never a thread of Swift's cooperative pool.
    let offloadQueue = DispatchQueue(label: "spool.producer", qos: .userInitiated)
    /// Where each job this producer recorded went (QueueProducer+Reads.swift).
    let recorded = Locked(RecordedJobs())

    /// A producer for the queue in `directory`.
    ///
    /// Creates the queue's `inbox/` folder if it is missing; the producer's inbox file is created by
    /// its first call. A queue no process has created yet (a share extension used before its app's
    /// first launch) is fine: with ``Configuration/createIfMissing`` (the default) the producer creates
    /// the directory and its `inbox/`, and the owner's first open creates the log and ingests what the
    /// producer recorded.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for a configuration setting out of range (as a
    ///   queue's open refuses it), ``SpoolError/Code/queueNotFound`` when there is no directory and
    ///   ``Configuration/createIfMissing`` is off, ``SpoolError/Code/notAQueue`` when the directory holds
    ///   files but no queue, or an I/O error.
    public convenience init(directory: String, configuration: Configuration = Configuration()) throws {
        try self.init(directory: directory, configuration: configuration, fileIDs: InboxWriter.randomFileID)
    }

    /// A producer whose inbox files are named by `fileIDs` (each call a new ``InboxFormat/fileIDSize``-byte
    /// id): the simulations draw them from their seed, so that a run is repeatable.
    init(directory: String, configuration: Configuration, fileIDs: @escaping @Sendable () -> [UInt8]) throws {
        try configuration.validate()
        let fileSystem = configuration.fileSystem
        let queueDirectory = QueueDirectory(path: directory, fileSystem: fileSystem)
        if try !queueDirectory.checkIsQueue(mayCreate: configuration.createIfMissing) {
            // No owner has created the queue yet: its directory (and `inbox/`, below) are the producer's to make.
            try queueDirectory.createDirectories()
        }
        let inbox = try InboxWriter.createInboxIfMissing(ofQueue: directory, fileSystem: fileSystem)
        guard try fileSystem.entryKind(at: inbox) == .directory else {
            throw SpoolError(.notAQueue, "inbox is not a directory", path: inbox)
        }
        self.directory = directory
        self.configuration = configuration
        writer = Locked(
            InboxWriter(
                inbox: inbox, fileSystem: fileSystem, durability: configuration.durability, clock: configuration.clock,
                fileIDs: fileIDs, notificationName: QueueDirectoryLayout.inboxNotificationName(directory: directory)))
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
        try await JobQueue.offload(on: offloadQueue) { try self.enqueue(job) }
    }

    /// Records many jobs in one record — one sync — and returns their ids once it is durable. The
    /// owner ingests the record whole (never a part of it), and judges each job in order, as
    /// ``JobQueue/enqueue(contentsOf:)-84e97`` does; one it refuses is dropped alone.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an invalid job (the message names its
    ///   index) or a batch over the record limit; otherwise as `enqueue(_:)`.
    @discardableResult
    public func enqueue(contentsOf jobs: [NewJob]) throws -> [JobID] {
        try enqueue(contentsOf: jobs, parkedUnder: nil)
    }

    /// Records `jobs` in one record, each parked under `park` as the owner ingests it when given (one job).
    func enqueue(contentsOf jobs: [NewJob], parkedUnder park: InboxTerms.Park?) throws -> [JobID] {
        let now = Millis.from(configuration.clock.now())
        var requests: [InboxRequest] = []
        var ids: [JobID] = []
        requests.reserveCapacity(jobs.count)
        for index in jobs.indices {
            do {
                let new = try jobs[index].validated(now: now, configuration: configuration)
                ids.append(JobID(new.job.id))
                // A job that names no budget takes the owner's, not this process's configuration's.
                let terms = InboxTerms(
                    policy: jobs[index].uniquePolicy,
                    ownerAttempts: jobs[index].maxAttempts == nil && jobs[index].retryPolicy == nil, park: park)
                requests.append(.enqueue(new, terms))
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
        try await JobQueue.offload(on: offloadQueue) { try self.enqueue(contentsOf: jobs) }
    }

    // MARK: Cancel

    /// Records a request to cancel a job, and returns once it is durable.
    ///
    /// A request, not a cancel: the owner applies it when it ingests it, if the job is unfinished then
    /// (a job running then is cancelled as `JobQueue/cancel(_:)` cancels it, and the jobs
    /// waiting for it with it); otherwise it is dropped.
    public func cancel(_ id: JobID) throws {
        try JobLimits.checkText(id.rawValue, name: "job id", maxBytes: JobLimits.maxIDBytes)
        try record([.cancel(id: id.rawValue, at: Millis.from(configuration.clock.now()))])
    }

    /// Records a request to cancel a job. See `cancel(_:)`.
    public func cancel(_ id: JobID) async throws {
        try await JobQueue.offload(on: offloadQueue) { try self.cancel(id) }
    }

    /// Records a request to cancel every unfinished job carrying `tag` (``NewJob/tags``), and returns
    /// once it is durable.
    ///
    /// The owner applies it when it ingests it, as ``JobQueue/cancel(tagged:)-1gwxn`` does then: the
    /// jobs carrying the tag that are unfinished at that point — among them every job a producer
    /// enqueued with the tag in a call that returned before this one began — and the jobs waiting for them.
    ///
    /// - Throws: ``SpoolError/Code/invalidArgument`` for an empty or over-long tag; otherwise as `cancel(_:)`.
    public func cancel(tagged tag: String) throws {
        try JobLimits.checkTag(tag)
        try record([.cancelTagged(tag: tag, at: Millis.from(configuration.clock.now()))])
    }

    /// Records a request to cancel every unfinished job carrying `tag`. See `cancel(tagged:)`.
    public func cancel(tagged tag: String) async throws {
        try await JobQueue.offload(on: offloadQueue) { try self.cancel(tagged: tag) }
    }

    /// Appends `requests` as one record of the producer's inbox file, durably.
    private func record(_ requests: [InboxRequest]) throws {
        let place = try writer.withLock { try $0.append(requests) }
        remember(requests, at: place)
    }
}
