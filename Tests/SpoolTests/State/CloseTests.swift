import Foundation
import Testing

@testable import Spool

/// What `close()` promises: a second close returns, and every call that reads or changes jobs
/// afterwards throws `closed`, as its documentation lists.
@Suite struct CloseTests {
    @Test func aSecondCloseReturnsAndEveryLaterCallThrowsClosed() async throws {
        let temp = TemporaryDirectory("spool-close")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try await queue.enqueue(NewJob(kind: "k", id: "a"))
        try await queue.enqueue(NewJob(kind: "k", id: "b"))
        let lease = try #require(try await queue.claim())
        let history = queue.history
        let close: () throws -> Void = { try queue.close() }  // the blocking form, out of the async context
        try close()
        try close()

        let now = queue.configuration.clock.now()
        expectError(.closed) { try queue.enqueue(NewJob(kind: "k")) }
        await expectError(.closed) { try await queue.enqueue(NewJob(kind: "k")) }
        expectError(.closed) { try queue.enqueue(contentsOf: [NewJob(kind: "k")]) }
        expectError(.closed) { try queue.claim() }
        await expectError(.closed) { try await queue.claim(kind: "k") }
        expectError(.closed) { try queue.claim(kinds: ["k"]) }
        expectError(.closed) { try queue.renew(lease) }
        expectError(.closed) { try queue.complete(lease) }
        expectError(.closed) { try queue.fail(lease, error: "e") }
        await expectError(.closed) { try await queue.complete(lease.job.id, token: lease.token) }
        expectError(.closed) { try queue.reclaimExpiredLeases() }
        expectError(.closed) { try queue.cancel("b") }
        expectError(.closed) { try queue.retry("b") }
        expectError(.closed) { try queue.reschedule("b", runAt: now) }
        expectError(.closed) { try queue.delete("b") }
        expectError(.closed) { try queue.compact() }
        await expectError(.closed) { try await queue.compact() }
        expectError(.closed) { try queue.job("a") }
        expectError(.closed) { try queue.jobs() }
        expectError(.closed) { try queue.counts() }
        expectError(.closed) { try queue.payload(of: "a") }
        expectError(.closed) { try queue.readyJobs(at: now) }
        expectError(.closed) { try queue.nextDeadline() }
        expectError(.closed) { try queue.nextDeadlines() }
        expectError(.closed) { try queue.failedJobs() }
        expectError(.closed) { try queue.schedulingHints() }
        expectError(.closed) { try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true)) }

        // The properties keep their last values.
        #expect(queue.directory == temp.queue)
        #expect(queue.history == history)
        // A change feed taken after the close ends at once.
        var iterator = queue.changes().makeAsyncIterator()
        #expect(await iterator.next() == nil)
        // The directory is free: it opens again, with the running job reclaimed.
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.counts()[.enqueued] == 2)
        try reopened.close()
    }

    @Test func aChangeFeedTakenBeforeTheCloseEnds() async throws {
        let temp = TemporaryDirectory("spool-close")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        let changes = queue.changes()
        try await queue.enqueue(NewJob(kind: "k", id: "a"))
        try queue.close()
        var seen: [JobChange] = []
        for await change in changes { seen.append(change) }
        #expect(seen.count <= 1, "at most the enqueue before the close, then the end: \(seen)")
    }

    @Test func aStartedRunnerStopsByItselfWithClosed() async throws {
        let fixture = try RuntimeFixture()
        defer { fixture.temp.cleanup() }
        try fixture.runner.register(kind: "k") { _, _ in }
        fixture.runner.start()
        await fixture.waitForIdle(after: 0)
        try fixture.queue.close()
        await fixture.events.wait { $0.contains(.stopped) }
        #expect(fixture.runner.failure?.code == .closed)
        #expect(!fixture.runner.isRunning)
    }
}
