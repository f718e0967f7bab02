import Foundation

@testable import Spool

/// One request of a producer's inbox record, as the model keeps it until the owner ingests it.
enum ModelInboxRequest: Equatable {
    /// An enqueue of kind "k" (or "m" with a prerequisite), judged by the rules when it is ingested.
    case enqueue(
        id: String, kind: String, priority: Int, runAt: Int64, maxAttempts: Int?, uniqueKey: String?,
        policy: UniquePolicy, dependencies: [String], createdAt: Int64)
    /// A request to cancel a job, dropped if the job is finished or unknown when it is ingested.
    case cancel(id: String)

    /// The payload the simulations give a producer's job.
    static func payload(of id: String) -> [UInt8] { Array("produced \(id)".utf8) }
}

extension QueueModel {
    /// A producer's record, acknowledged: its requests wait in inbox file `file` for the owner.
    mutating func record(_ requests: [ModelInboxRequest], inFile file: String) {
        inbox[file, default: []].append(contentsOf: requests)
    }

    /// Whether any producer request waits for ingestion.
    var hasInbox: Bool { !inbox.isEmpty }

    /// The owner ingests inbox file `file` (FORMAT.md, *Producer inbox files*): each request judged where
    /// it comes, a refused one dropped. Returns the jobs enqueued.
    @discardableResult
    mutating func ingest(file: String) -> Int {
        guard let requests = inbox.removeValue(forKey: file) else { return 0 }
        var enqueued = 0
        for request in requests {
            switch request {
            case .enqueue(
                let id, let kind, let priority, let runAt, let maxAttempts, let key, let policy, let after,
                let createdAt):
                guard jobs[id] == nil,
                    canEnqueue(dependencies: after, periodic: false, uniqueKey: key, policy: policy)
                else { continue }
                let taken = enqueue(
                    id: id, kind: kind, payload: ModelInboxRequest.payload(of: id), priority: priority, runAt: runAt,
                    maxAttempts: maxAttempts, uniqueKey: key, policy: policy, now: createdAt, dependencies: after,
                    tags: Self.tags(of: id))
                if taken == id { enqueued += 1 }
            case .cancel(let id):
                if canCancel(id) { cancel(id) }
            }
        }
        return enqueued
    }

    /// Every inbox file in the order the owner takes them (by name), as an open or
    /// ``JobQueue/ingestInbox()`` does. Returns the jobs enqueued.
    @discardableResult
    mutating func ingestAll() -> Int {
        inbox.keys.sorted().reduce(0) { $0 + ingest(file: $1) }
    }

    /// The states an ingestion interrupted by a crash may leave: none of the files, the first, the
    /// first two, … all of them (each file is one transaction).
    func ingestionPrefixes() -> [QueueModel] {
        var states = [self]
        var next = self
        for file in inbox.keys.sorted() {
            next.ingest(file: file)
            states.append(next)
        }
        return states
    }

    /// The states an open makes durable one after the other: this one, then after the reclaims of parked
    /// jobs past their deadline, then after each inbox file ingested, in name order (each its own commit:
    /// with ordered syncs a power loss may keep any prefix of them). The last is ``recoverAtOpen(now:)``'s.
    func openPrefixes(now: Int64) -> [QueueModel] {
        var reclaimed = self
        reclaimed.reclaimExpiredParks(now: now)
        return [self] + reclaimed.ingestionPrefixes()
    }

    /// What an open does after a crash or a clean close: reclaims the parked jobs past their deadline, then
    /// ingests the inbox (QueueEngine's open, in that order).
    mutating func recoverAtOpen(now: Int64) {
        reclaimExpiredParks(now: now)
        ingestAll()
    }
}
