import Foundation

@testable import Spool

extension FormatFixture {
    /// Parked jobs and checkpoints (since format-2-park, body version 5): a parked job with a checkpoint
    /// and a failed attempt's checkpoint, then a snapshot holding their restores with `park` and
    /// `restore_checkpoint` annexes; after it, live `park` and `checkpoint` records, a parked job
    /// reclaimed past its deadline, one completed by key, a checkpoint kept by a failure.
    static func generateParking(queue: JobQueue, clock: ManualClock) throws {
        func step() { clock.advance(by: 1) }
        let long: TimeInterval = 90 * 86_400
        step()
        _ = try queue.enqueue(NewJob(kind: "transfer", payload: Data("file-1".utf8), id: "transfer-1"))
        var first = try claimTransfer(queue, leaseDuration: long)
        step()
        first = try queue.checkpoint(first, Data("offset=4096".utf8), renewingFor: long)
        try queue.park(first, key: "background-1:1", deadline: clock.now().addingTimeInterval(30 * 86_400))
        _ = try queue.enqueue(NewJob(kind: "sync-pages", payload: Data("feed-0".utf8), id: "pages-0"))
        let kept = try requireClaim(try queue.claim(kind: "sync-pages", leaseDuration: long))
        try queue.checkpoint(kept, Data("page=3".utf8), renewingFor: long)
        try queue.fail(kept, error: "stopped after page 3")
        step()
        // The snapshot: transfer-1's restore with its park and checkpoint annexes, pages-0's checkpoint.
        _ = try queue.compact()
        step()
        _ = try queue.enqueue(NewJob(kind: "transfer", payload: Data("file-2".utf8), id: "transfer-2"))
        let second = try claimTransfer(queue, leaseDuration: long)
        try queue.park(second, key: "background-1:2", deadline: clock.now().addingTimeInterval(10))
        clock.advance(by: 11)
        _ = try queue.reclaimExpiredLeases()
        step()
        _ = try queue.enqueue(NewJob(kind: "transfer", payload: Data("file-3".utf8), id: "transfer-3"))
        let third = try claimTransfer(queue, leaseDuration: long)
        try queue.park(third, key: "background-1:3", deadline: clock.now().addingTimeInterval(3600))
        step()
        try queue.completeParked(key: "background-1:3")
        step()
        _ = try queue.enqueue(NewJob(kind: "sync-pages", payload: Data("feed".utf8), id: "pages-1"))
        let pages = try requireClaim(try queue.claim(kind: "sync-pages", leaseDuration: long))
        try queue.checkpoint(pages, Data("page=7".utf8), renewingFor: long)
        try queue.fail(pages, error: "stopped after page 7")
        step()
        _ = try queue.enqueue(NewJob(kind: "sync-pages", payload: Data("feed-2".utf8), id: "pages-2"))
        let after = try requireClaim(try queue.claim(kind: "sync-pages", leaseDuration: long))
        try queue.checkpoint(after, Data("page=1".utf8), renewingFor: long)
        step()
    }

    private static func claimTransfer(_ queue: JobQueue, leaseDuration: TimeInterval) throws -> Lease {
        try requireClaim(try queue.claim(kind: "transfer", leaseDuration: leaseDuration))
    }
}

/// The lease a fixture step's claim must take.
private func requireClaim(_ lease: Lease?) throws -> Lease {
    guard let lease else { throw FormatFixture.FixtureError("a fixture step claimed nothing") }
    return lease
}
