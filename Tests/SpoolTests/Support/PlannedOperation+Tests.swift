import Foundation

@testable import Spool

extension PlannedOperation {
    /// The enqueue of `new`, with its payload bytes.
    static func enqueue(_ new: NewEnqueue) -> PlannedOperation { new.planned }
}

extension NewEnqueue {
    /// A job to enqueue, built field by field (the tests' records).
    init(
        id: String, kind: String, payload: Data, priority: Int64, createdAt: Int64, runAt: Int64,
        maxAttempts: Int64, uniqueKey: String?, options: EnqueueOptions = EnqueueOptions(), tags: [String] = [],
        retrySchedule: RetryPolicy.Schedule? = nil
    ) {
        self.init(
            job: LogOperation.Enqueue(
                id: id, kind: kind, payload: .unwritten, priority: priority, createdAt: createdAt, runAt: runAt,
                maxAttempts: maxAttempts, uniqueKey: uniqueKey, options: options),
            payload: payload, tags: tags, retrySchedule: retrySchedule)
    }
}
