import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Which lease the runner's next renewal follows when renewals overlap.
@Suite(.blocking) struct RenewalAdoptionTests {
    /// A handler's renewal and the loop's can overlap: whichever returns last, the runner's next
    /// renewal follows the newer record's lease. Here the handler shortens its lease (10 s) while the
    /// loop's renewal (60 s) is in flight, and the loop's call returns last.
    @Test func aManualRenewalRacingTheLoopsLeavesTheNextRenewalInsideTheLeaseHeld() throws {
        var execution = Execution(
            lease: Lease(
                job: Job(
                    StoredJob(
                        id: "j", kind: "k", state: .running, attempts: 1,
                        maxAttempts: 3, priority: 0, sequence: 1, createdAt: 0,
                        runAt: 0, nextRetryAt: nil, finishedAt: nil,
                        uniqueKey: nil, lastError: nil,
                        payload: PayloadLocation(
                            fileSequence: 1, offset: 0,
                            length: 0, checksum: 0),
                        lease: nil)),
                payload: Data(), token: LeaseToken(rawValue: 7),
                expiresAt: Date(timeIntervalSince1970: 1060), monotonicExpiry: 61_000_000_000,
                bootID: "b"),
            term: 60, kind: "k", timeout: nil, timeoutAt: nil)
        let now = Date(timeIntervalSince1970: 1030)
        let monotonic: UInt64 = 31_000_000_000
        var loops = execution.lease
        loops.expiresAt = now.addingTimeInterval(60)
        loops.monotonicExpiry = monotonic + 60_000_000_000
        var manual = execution.lease
        manual.expiresAt = now.addingTimeInterval(10)
        manual.monotonicExpiry = monotonic + 10_000_000_000
        execution.adopt(manual, term: 10, lsn: 6)  // the handler's renewal, recorded second, returns first
        execution.adopt(loops, term: 60, lsn: 5)  // the loop's, recorded first, returns last
        #expect(execution.lease.expiresAt == manual.expiresAt)
        #expect(execution.renewalDue(now: now, monotonic: monotonic) == now.addingTimeInterval(5))
        // Measured from the lease, not from the return: returning 20 s late changes nothing but "now".
        #expect(
            execution.renewalDue(now: now.addingTimeInterval(4), monotonic: monotonic + 4_000_000_000)
                == now.addingTimeInterval(5))
    }
}
