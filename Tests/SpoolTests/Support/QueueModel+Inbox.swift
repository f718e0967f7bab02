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
    /// A request to cancel the jobs carrying a tag that are unfinished when it is ingested.
    case cancelTagged(tag: String)

    /// The payload the simulations give a producer's job.
    static func payload(of id: String) -> [UInt8] { Array("produced \(id)".utf8) }
}

/// One producer record, acknowledged and waiting for the owner: its requests and the inbox file they went to.
struct ModelInboxRecord: Equatable {
    var file: String
    var requests: [ModelInboxRequest]
}

extension QueueModel {
    /// A producer's record, acknowledged: its requests wait in inbox file `file` for the owner, after
    /// every record acknowledged before it (the simulation's calls run one after another, each on a
    /// clock reading of its own).
    mutating func record(_ requests: [ModelInboxRequest], inFile file: String) {
        inbox.append(ModelInboxRecord(file: file, requests: requests))
    }

    /// Whether any producer request waits for ingestion.
    var hasInbox: Bool { !inbox.isEmpty }

    /// The owner ingests every waiting record (FORMAT.md, *Producer inbox files*) in the order their calls
    /// returned — the order of the producers' acknowledgements, whatever files they went to — each request
    /// judged where it comes, a refused one dropped. Returns the jobs enqueued.
    @discardableResult
    mutating func ingestAll() -> Int {
        let records = inbox
        inbox = []
        var enqueued = 0
        for request in records.flatMap(\.requests) {
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
            case .cancelTagged(let tag):
                cancelAll { $0.tags.contains(tag) }
            }
        }
        return enqueued
    }

    /// The states an ingestion interrupted by a crash may leave: none of the records, or all of them (one
    /// transaction).
    func ingestionPrefixes() -> [QueueModel] {
        var next = self
        next.ingestAll()
        return [self, next]
    }

    /// The states an open makes durable one after the other: this one, then after the reclaims of parked
    /// jobs past their deadline, then after its ingestion (each its own commit: with ordered syncs a power
    /// loss may keep any prefix of them). The last is ``recoverAtOpen(now:)``'s.
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
