/// Reads of the queue's jobs from a producer: what an app extension shows ("uploading 3 photos")
/// without becoming the queue's owner.
///
/// Every read replays the queue's log read-only and **takes no lock**, not even a shared one: it
/// lists the log files and reads them while the owner goes on appending, rolling over and
/// compacting. A group the owner is writing at the end of the active file is, to the read, a torn
/// tail: the read stops there and changes nothing. A file a compaction removed under the read, or a
/// view the owner's concurrent writes made inconsistent, makes the read start again from the
/// listing, at most 8 times, then it fails with ``SpoolError/Code/locked`` naming the file. Every
/// record's checksum is verified, as at open. So a producer suspended in the middle of a read holds
/// nothing that could get it killed, and keeps no one waiting. Each call replays the whole log (it
/// costs what an open's replay costs); nothing is cached.
///
/// **A job the owner has not ingested yet.** A producer's enqueue is a request in its inbox file until
/// the owner ingests it; only then is the job in the log, with a state. Until then ``job(_:)`` returns
/// `nil` and ``jobs(state:kind:uniqueKey:)`` leaves it out: they show the owner's queue, and only it
/// knows whether it will take the request (it drops one whose id is taken, say). What the producer
/// itself recorded and is still waiting for is told apart by `awaitingIngestion()` and
/// `isAwaitingIngestion(_:)`: a job is *awaiting ingestion* from the producer's call that recorded it
/// until the owner's log records the ingestion of its record. So for an id this producer enqueued:
///
/// | ``job(_:)`` | `isAwaitingIngestion(_:)` | what it means |
/// |---|---|---|
/// | `nil` | `true` | recorded, not ingested yet |
/// | a job | `false` | ingested: the job's state is the owner's |
/// | `nil` | `false` | ingested and dropped by the owner (see ``QueueProducer``), or deleted since |
///
/// These read no inbox file: a producer remembers, in memory, which inbox file each of its enqueues
/// went to and where its record ends there (opening and closing an inbox file in a process that holds
/// its record lock would drop the lock, since POSIX record locks belong to the process). A new producer
/// (the extension launched again) knows none of an earlier one's requests: look their ids up with
/// ``job(_:)`` until they appear.
extension QueueProducer {
    // MARK: Jobs

    /// The job with `id` as the owner's log has it, or `nil`: also for a job recorded by a producer and
    /// not ingested yet (see `isAwaitingIngestion(_:)`). Read without a lock.
    ///
    /// A running job whose lease has expired is shown running: only the owner reclaims it.
    ///
    /// - Throws: ``SpoolError/Code/locked`` when the log changed under every attempt;
    ///   ``SpoolError/Code/corruption`` naming the file and offset of damage found twice in a row;
    ///   ``SpoolError/Code/newerFormat``, ``SpoolError/Code/notAQueue``, or an I/O error.
    public func job(_ id: JobID) throws -> Job? {
        try readState { $0.jobs[id.rawValue].map(Job.init) }
    }

    /// The job with `id` as the owner's log has it, or `nil`. See `job(_:)`.
    public func job(_ id: JobID) async throws -> Job? {
        try await JobQueue.offload(on: offloadQueue) { try self.job(id) }
    }

    /// The jobs of the owner's log in enqueue order, optionally only those in `state`, of `kind` and
    /// carrying `uniqueKey` (finished jobs keep their key), as ``JobQueue/jobs(state:kind:)`` lists
    /// them. Jobs not ingested yet are not among them (see `awaitingIngestion()`). Read without a lock.
    ///
    /// - Throws: The errors of `job(_:)`.
    public func jobs(state: JobState? = nil, kind: String? = nil, uniqueKey: String? = nil) throws -> [Job] {
        try readState { queueState in
            queueState.jobs.values
                .filter {
                    (state == nil || $0.state == state) && (kind == nil || $0.kind == kind)
                        && (uniqueKey == nil || $0.uniqueKey == uniqueKey)
                }
                .inEnqueueOrder()
                .map(Job.init)
        }
    }

    /// The jobs of the owner's log in enqueue order, filtered. See `jobs(state:kind:uniqueKey:)`.
    public func jobs(state: JobState? = nil, kind: String? = nil, uniqueKey: String? = nil) async throws -> [Job] {
        try await JobQueue.offload(on: offloadQueue) { try self.jobs(state: state, kind: kind, uniqueKey: uniqueKey) }
    }

    /// How many jobs of the owner's log are in each state (jobs not ingested yet are not counted).
    ///
    /// - Throws: The errors of `job(_:)`.
    public func counts() throws -> QueueCounts {
        try readState { QueueCounts(byState: $0.countsByState) }
    }

    /// How many jobs of the owner's log are in each state. See `counts()`.
    public func counts() async throws -> QueueCounts {
        try await JobQueue.offload(on: offloadQueue) { try self.counts() }
    }

    // MARK: Awaiting ingestion

    /// The ids this producer enqueued whose records the owner has not ingested yet, in the order they
    /// were recorded.
    ///
    /// How it is judged, without opening an inbox file or taking a lock: the log is replayed first,
    /// giving the offset up to which the owner ingested each inbox file (`inbox_ingested`), then `inbox/`
    /// is listed. A job's record is ingested when its file is gone from the listing (the owner removes a
    /// file only once its ingestion is durable in the log) or when the recorded offset reaches the
    /// record's end. The listing comes after the replay so that a compaction cannot mislead it: a
    /// snapshot forgets the offset only of a file already removed, and a file still listed after the
    /// replay was listed by every compaction before it. So an id is reported awaiting only if its
    /// record was not ingested when the replay read the log.
    ///
    /// Ids found ingested are forgotten (they stay ingested); a new producer knows none of an earlier
    /// producer's ids.
    ///
    /// - Throws: The errors of `job(_:)`, or an I/O error listing `inbox/`.
    public func awaitingIngestion() throws -> [JobID] {
        let remembered = recorded.withLock { $0.places }
        guard !remembered.isEmpty else { return [] }
        let offsets = try readState { $0.inboxOffsets }
        let inbox = InboxFormat.directory(ofQueue: directory)
        let listed: Set<String>
        do {
            listed = Set(try configuration.fileSystem.contentsOfDirectory(at: inbox))
        } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
            listed = []
        }
        var awaiting: [(id: String, ordinal: Int)] = []
        var ingested: [(id: String, ordinal: Int)] = []
        for (id, place) in remembered {
            if listed.contains(place.file), offsets[place.file] ?? 0 < place.end {
                awaiting.append((id, place.ordinal))
            } else {
                ingested.append((id, place.ordinal))
            }
        }
        recorded.withLock { jobs in
            // Forget only what this call judged: an id recorded again meanwhile has a new ordinal.
            for (id, ordinal) in ingested where jobs.places[id]?.ordinal == ordinal { jobs.places[id] = nil }
        }
        return awaiting.sorted { $0.ordinal < $1.ordinal }.map { JobID($0.id) }
    }

    /// The ids this producer enqueued that the owner has not ingested yet. See `awaitingIngestion()`.
    public func awaitingIngestion() async throws -> [JobID] {
        try await JobQueue.offload(on: offloadQueue) { try self.awaitingIngestion() }
    }

    /// Whether this producer enqueued `id` and the owner has not ingested its record yet (see
    /// `awaitingIngestion()`); `false` for an id this producer did not enqueue.
    ///
    /// - Throws: The errors of `awaitingIngestion()`.
    public func isAwaitingIngestion(_ id: JobID) throws -> Bool {
        guard recorded.withLock({ $0.places[id.rawValue] != nil }) else { return false }
        return try awaitingIngestion().contains(id)
    }

    /// Whether this producer enqueued `id` and the owner has not ingested it yet. See `isAwaitingIngestion(_:)`.
    public func isAwaitingIngestion(_ id: JobID) async throws -> Bool {
        try await JobQueue.offload(on: offloadQueue) { try self.isAwaitingIngestion(id) }
    }

    // MARK: Helpers

    /// Runs `body` with the state a lock-free read-only replay of the log built (strict mode: a
    /// reader that skipped damage could take a concurrent write for it).
    private func readState<T>(_ body: (QueueState) throws -> T) throws -> T {
        try QueueDirectory(path: directory, fileSystem: configuration.fileSystem).inspectWithoutLock { outcome in
            try body(outcome.state)
        }
    }

    /// Notes where the enqueues of `requests` went (called once their record is durable).
    func remember(_ requests: [InboxRequest], at place: InboxPlace) {
        recorded.withLock { jobs in
            for case .enqueue(let new, _) in requests {
                jobs.places[new.job.id] = RecordedJobs.Place(file: place.file, end: place.end, ordinal: jobs.next)
                jobs.next += 1
            }
        }
    }
}

/// The jobs a producer enqueued and has not yet seen ingested (guarded by the producer's `recorded` lock).
struct RecordedJobs: Sendable {
    struct Place: Sendable {
        var file: String
        var end: Int64
        /// Counts the producer's enqueues: their order.
        var ordinal: Int
    }

    /// Job id → where its record went.
    var places: [String: Place] = [:]
    var next = 0
}
