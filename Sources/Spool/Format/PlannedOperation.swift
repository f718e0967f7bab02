/// The payload of an enqueue before it is written: the bytes themselves.
struct NewEnqueue: Sendable {
    var id: String
    var kind: String
    /// The caller's `Data`, shared rather than copied: the encoder copies its bytes into the record.
    var payload: Data
    var priority: Int64
    var createdAt: Int64
    var runAt: Int64
    var maxAttempts: Int64
    var uniqueKey: String?
    var options = EnqueueOptions()
    /// The job's tags in their on-disk order (``JobLimits/checkTags(_:)``): a `tags` operation after the enqueue.
    var tags: [String] = []
    /// The job's own retry schedule, as stored (``RetriesCodec/stored(_:)``): a `retry_table` or
    /// `retry_exponential` operation after the enqueue (and its tags).
    var retrySchedule: RetryPolicy.Schedule?
}

/// An operation as the live path hands it to the encoder: like ``LogOperation``,
/// but an enqueue carries its payload bytes rather than their location.
enum PlannedOperation: Sendable {
    case enqueue(NewEnqueue)
    /// A migrated job with new payload bytes (`nil`: the job keeps its payload).
    case migrateJob(MigratedJob, payload: [UInt8]?)
    case other(LogOperation)

    /// Whether the operation adds a job, as ``LogOperation/enqueuesJob``.
    var enqueuesJob: Bool {
        if case .enqueue = self { return true }
        return false
    }

    /// The id of the job the operation changes ("" for none), as ``LogOperation/jobID``.
    var jobID: String {
        switch self {
        case .enqueue(let new): return new.id
        case .migrateJob(let job, _): return job.id
        case .other(let operation): return operation.jobID
        }
    }
}
