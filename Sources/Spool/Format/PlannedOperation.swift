/// A job to enqueue, as validated from a request (``NewJob/validated(now:generatedID:configuration:)``)
/// or read from a producer's inbox: the enqueue it records, its payload's bytes, and what follows the
/// enqueue in the same record.
struct NewEnqueue: Sendable {
    /// The enqueue as it will be recorded and applied; its `payload` is
    /// ``PayloadLocation/unwritten`` until the record is appended.
    var job: LogOperation.Enqueue
    /// The caller's `Data`, shared rather than copied: the encoder copies its bytes into the record.
    var payload: Data
    /// The job's tags in their on-disk order (``JobLimits/checkTags(_:)``): a `tags` operation after the enqueue.
    var tags: [String] = []
    /// The job's own retry schedule, as stored (``RetriesCodec/stored(_:)``): a `retry_table` or
    /// `retry_exponential` operation after the enqueue (and its tags).
    var retrySchedule: RetryPolicy.Schedule?

    /// The enqueue to write, with its payload's bytes.
    var planned: PlannedOperation { PlannedOperation(.enqueue(job), payload: payload) }
}

/// An operation as the live path hands it to the encoder: the operation as it is recorded and
/// applied, and the bytes of the payload it writes, when it writes one (an enqueue; a migrated job
/// with a new payload). Its location in the log is not known before the record is appended: until
/// then the operation says ``PayloadLocation/unwritten``, which no rule reads, and the commit then
/// puts the location in (``LogOperation/locatingPayload(at:)``).
struct PlannedOperation: Sendable {
    var operation: LogOperation
    /// The payload bytes the operation writes; `nil` for one that writes none.
    var payload: Data?

    init(_ operation: LogOperation, payload: Data? = nil) {
        precondition(
            (payload != nil) == operation.writesPayload,
            "an enqueue, or a migrated job with a new payload, and only it, is planned with its bytes")
        self.operation = operation
        self.payload = payload
    }

    /// A `migrate_job` leaving `job` as it is given, with a new payload of `newPayload` (its
    /// location ``PayloadLocation/unwritten`` until the append), or keeping its payload (`nil`).
    static func migrating(_ job: MigratedJob, newPayload: Data?) -> PlannedOperation {
        var job = job
        if newPayload != nil { job.payload = .unwritten }
        return PlannedOperation(.migrateJob(job), payload: newPayload)
    }

    /// The id of the job the operation changes ("" for none).
    var jobID: String { operation.jobID }
}

extension LogOperation {
    /// Whether the operation writes payload bytes into its record: an enqueue, and a migrated job
    /// with a new payload (one that keeps its payload has none).
    var writesPayload: Bool {
        switch self {
        case .enqueue: return true
        case .migrateJob(let job): return job.payload != nil
        default: return false
        }
    }

    /// The operation with its payload at `location` (``writesPayload`` operations only).
    func locatingPayload(at location: PayloadLocation) -> LogOperation {
        switch self {
        case .enqueue(var job):
            job.payload = location
            return .enqueue(job)
        case .migrateJob(var job):
            job.payload = location
            return .migrateJob(job)
        default:
            preconditionFailure("\(self) writes no payload")
        }
    }
}
