import Foundation
import Testing

@testable import Spool

/// The runtime with the engine's constraints and chains: a job runs only once its
/// prerequisites succeeded and while the device conditions satisfy its constraints.
@Suite struct RuntimeConstraintTests {
    @Test func anOverdueJobWaitsForItsNetworkAndTheRunnerWakesWhenTheAppReportsOne() async throws {
        let fixture = try RuntimeFixture()
        let runs = Locked<[String]>([])
        try fixture.runner.register(kind: "upload") { _, context in runs.withLock { $0.append(context.id.rawValue) } }
        let id = try await fixture.queue.enqueue(
            NewJob(
                kind: "upload", id: "needs-network",
                constraints: JobConstraints(requiresNetwork: true)))
        fixture.runner.start()
        await fixture.waitForIdle(after: 0)
        // Overdue by an hour, still not run: its constraint is part of what the job means.
        fixture.clock.advance(by: 3_600)
        let before = fixture.eventCount
        try await fixture.queue.enqueue(NewJob(kind: "unrelated"))
        await fixture.waitForIdle(after: before)
        #expect(runs.withLock { $0 }.isEmpty)
        #expect(try fixture.job(id).state == .enqueued)
        #expect(fixture.events.all.last == .waiting(until: nil), "nothing it may run is due: it waits for a change")
        // The app reports a network through an AsyncSequence; the runner wakes and runs the job.
        let (conditions, feed) = AsyncStream.makeStream(of: DeviceConditions.self)
        let follower = Task { try await fixture.queue.follow(conditions) }
        feed.yield(DeviceConditions(isNetworkAvailable: true))
        await fixture.waitForEvent(after: before) { $0 == .succeeded(id) }
        #expect(runs.withLock { $0 } == ["needs-network"])
        feed.finish()
        try await follower.value
        try await fixture.tearDown()
    }

    @Test func aChainRunsInOrderAndAFailedPrerequisiteCancelsTheRest() async throws {
        let fixture = try RuntimeFixture()
        let order = Locked<[String]>([])
        try fixture.runner.register(kind: "step") { _, context in order.withLock { $0.append(context.id.rawValue) } }
        try fixture.runner.register(kind: "broken") { _, _ in throw TerminalJobFailure("cannot convert") }
        // Enqueued before the runner starts, dependents first in priority: order comes from the chain alone.
        let first = try await fixture.queue.enqueue(NewJob(kind: "step", id: "first", priority: 0))
        let second = try await fixture.queue.enqueue(
            NewJob(kind: "step", id: "second", priority: 9, dependencies: [first]))
        let third = try await fixture.queue.enqueue(
            NewJob(kind: "step", id: "third", priority: 9, dependencies: [second]))
        let broken = try await fixture.queue.enqueue(NewJob(kind: "broken", id: "broken"))
        let after = try await fixture.queue.enqueue(NewJob(kind: "step", id: "after-broken", dependencies: [broken]))
        fixture.runner.start()
        await fixture.events.wait {
            $0.contains(.succeeded(third)) && $0.contains { $0.jobID == broken && $0.isFailure }
        }
        #expect(order.withLock { $0 } == ["first", "second", "third"])
        #expect(try fixture.job(after).state == .cancelled)
        #expect(!fixture.events.all.contains(.claimed(after, attempt: 1)), "a cancelled dependent never runs")
        try await fixture.tearDown()
    }
}
