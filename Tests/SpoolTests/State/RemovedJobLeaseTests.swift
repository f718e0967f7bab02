import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A lease on a job that no longer exists is a lost lease: `complete`, `fail` and `renew` of a
/// `Lease` say `leaseLost` once its job was deleted or expired by retention (a migration's split:
/// `MigrationSemanticsTests`), so that `catch SpoolError.Code.leaseLost` catches every late result.
/// An id and a token alone cannot show the job existed: `jobNotFound`, as for an id never seen.
@Suite(.blocking) struct RemovedJobLeaseTests {
    @Test(.onThePool) func aDeletedRunningJobsLeaseIsLost() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        try await queue.enqueue(NewJob(kind: "k", id: "deleted"))
        let lease = try #require(try await queue.claim())
        try await queue.delete("deleted")
        expectError(.leaseLost) { try queue.complete(lease) }
        expectError(.leaseLost) { try queue.fail(lease, error: "x") }
        expectError(.leaseLost) { try queue.renew(lease) }
        await expectError(.leaseLost) { try await queue.complete(lease) }
        await expectError(.leaseLost) { try await queue.fail(lease, error: "x") }
        await expectError(.leaseLost) { try await queue.renew(lease) }
        expectError(.jobNotFound) { try queue.complete(lease.job.id, token: lease.token) }
        expectError(.jobNotFound) { try queue.fail("never-seen", token: lease.token, error: "x") }
    }

    /// The README's quick start: a job deleted while its upload ran is not failed, and no error escapes.
    @Test(.onThePool) func theQuickStartsHandlingDoesNotFailADeletedJobsUpload() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        try await queue.enqueue(NewJob(kind: "upload-photo", id: "photo"))
        let lease = try #require(try await queue.claim(kind: "upload-photo"))
        var failed = false
        do {
            do {
                try await queue.delete(lease.job.id)  // the upload "runs"; meanwhile the app deletes the job
            } catch {
                _ = try await queue.fail(lease, error: "\(error)")
                failed = true
            }
            try await queue.complete(lease)
        } catch SpoolError.Code.leaseLost {
            // The job is no longer ours.
        }
        let gone = try queue.job("photo") == nil
        #expect(!failed && gone)
    }

    /// A job retention expired (it finished under a later lease) leaves an earlier lease lost too.
    @Test func aLeaseOfAJobExpiredByRetentionIsLost() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retention = 60
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        defer { try? closeChecked(queue) }
        try queue.enqueue(NewJob(kind: "k", id: "expired"))
        let first = try #require(try queue.claim(leaseDuration: 10))
        clock.advance(by: 11)
        #expect(try queue.reclaimExpiredLeases() == ["expired"])
        clock.advance(by: 3600)
        let second = try #require(try queue.claim())
        try queue.complete(second)
        expectError(.leaseLost) { try queue.complete(first) }
        clock.advance(by: 120)
        _ = try queue.compact()
        #expect(try queue.job("expired") == nil)
        expectError(.leaseLost) { try queue.complete(first) }
        expectError(.leaseLost) { try queue.complete(second) }
        expectError(.leaseLost) { try queue.renew(second) }
    }
}
