/// A job a producer enqueued (``QueueProducer``) whose record is acknowledged — durable in the queue's
/// inbox — but not ingested by the owner yet: what read-only inspection shows of it
/// (``InspectedQueue/awaitingIngestion()``).
///
/// It is a request until the owner ingests it: the owner applies it in the order producers'
/// calls returned, by the queue's rules then, and may drop it (an id in use, a unique key held under
/// ``UniquePolicy/keep``, a missing prerequisite; see ``QueueProducer``).
public struct AwaitingJob: Sendable, Equatable {
    /// The id its producer drew (final once the owner takes the job).
    public var id: JobID
    /// The job's kind.
    public var kind: String
    /// Its payload.
    public var payload: Data
    /// Its priority.
    public var priority: Int
    /// When it was made, by its producer's clock.
    public var createdAt: Date
    /// When it may run first.
    public var runAt: Date
    /// Its attempt budget; `nil` when the job named none: the owner gives it its own
    /// (``RetryPolicy/maxAttempts`` of the owner's configuration) when it ingests the job.
    public var maxAttempts: Int?
    /// Its unique key, if any, and how the owner resolves it.
    public var uniqueKey: String?
    /// How the owner resolves ``uniqueKey`` against a job holding it.
    public var uniquePolicy: UniquePolicy
    /// The jobs it waits for.
    public var dependencies: [JobID]
    /// What the device must offer before it runs.
    public var constraints: JobConstraints
    /// Its tags.
    public var tags: Set<String>
    /// When its producer's call was acknowledged, by that producer's wall clock; `nil` for a record
    /// written by a build before producer order, which did not record it.
    public var acknowledgedAt: Date?
    /// The name of the inbox file holding its record.
    public var inboxFile: String
    /// The key the job arrives parked under (``QueueProducer/enqueue(_:parkedUnder:for:)-8u7se``), or `nil`.
    public var parkedKey: String?
    /// Until when it stays parked once ingested (with ``parkedKey``).
    public var parkDeadline: Date?

    /// A job awaiting ingestion, as a test of an app's own inspection code builds one.
    public init(
        id: JobID, kind: String, payload: Data = Data(), priority: Int = 0, createdAt: Date, runAt: Date,
        maxAttempts: Int? = nil, uniqueKey: String? = nil, uniquePolicy: UniquePolicy = .keep,
        dependencies: [JobID] = [], constraints: JobConstraints = .none, tags: Set<String> = [],
        acknowledgedAt: Date?, inboxFile: String, parkedKey: String? = nil, parkDeadline: Date? = nil
    ) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.priority = priority
        self.createdAt = createdAt
        self.runAt = runAt
        self.maxAttempts = maxAttempts
        self.uniqueKey = uniqueKey
        self.uniquePolicy = uniquePolicy
        self.dependencies = dependencies
        self.constraints = constraints
        self.tags = tags
        self.acknowledgedAt = acknowledgedAt
        self.inboxFile = inboxFile
        self.parkedKey = parkedKey
        self.parkDeadline = parkDeadline
    }
}

extension AwaitingJob {
    /// The enqueues among `files`' pending records, in the order the owner would apply them now
    /// (``InboxMerge``, with every record taken: the inspection is not the owner, and waits for no one).
    static func list(in files: [InboxInspection.PendingFile], boot: String) -> [AwaitingJob] {
        let steps = InboxMerge.order(
            names: files.map(\.name), stamps: files.map { $0.records.map(\.stamp) },
            cutoff: .init(boot: boot, now: .max))
        var jobs: [AwaitingJob] = []
        for step in steps {
            let file = files[step.file]
            let record = file.records[step.record]
            for (index, entry) in record.entries.enumerated() {
                guard case .enqueue(let job, let terms) = entry else { continue }
                var tags: [String] = []
                if index + 1 < record.entries.count, case .tags(_, let found) = record.entries[index + 1] {
                    tags = found
                }
                let start = Int(job.payload.offset)
                jobs.append(
                    AwaitingJob(
                        id: JobID(job.id), kind: job.kind,
                        payload: Data(file.bytes[start..<(start + Int(job.payload.length))]),
                        priority: Int(job.priority), createdAt: Millis.date(job.createdAt),
                        runAt: Millis.date(job.runAt),
                        maxAttempts: terms.ownerAttempts ? nil : Int(job.maxAttempts), uniqueKey: job.uniqueKey,
                        uniquePolicy: terms.policy, dependencies: job.options.dependencies.map { JobID($0) },
                        constraints: job.options.constraints ?? .none, tags: Set(tags),
                        acknowledgedAt: record.stamp.map { Millis.date($0.at) }, inboxFile: file.name,
                        parkedKey: terms.park?.key, parkDeadline: terms.park.map { Millis.date($0.deadline) }))
            }
        }
        return jobs
    }
}

/// What read-only inspection finds in a queue's inbox (``InspectedQueue/readableAwaitingIngestion()``): the
/// jobs awaiting ingestion in the files it could read, and why it could not read the others.
public struct AwaitingIngestion: Sendable {
    /// The jobs awaiting ingestion, in the order the owner will apply them.
    public var jobs: [AwaitingJob]
    /// One error per inbox file that could not be read, in file-name order: ``SpoolError/Code/corruption``
    /// naming the file and the offset of its damage, ``SpoolError/Code/newerFormat``, or an I/O error. The
    /// owner's ingestion leaves these files where they are (``RecoveryReport/inboxFilesNotIngested``).
    public var damagedFiles: [SpoolError]

    /// Creates the finding; inspection creates these, tests may too.
    public init(jobs: [AwaitingJob], damagedFiles: [SpoolError]) {
        self.jobs = jobs
        self.damagedFiles = damagedFiles
    }
}
