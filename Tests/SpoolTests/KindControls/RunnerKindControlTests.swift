import Foundation
import Testing

@testable import Spool

/// The runner honours pause and rate limits: it runs no job of a paused kind, runs it as soon as the
/// kind is resumed, and sleeps until the end of a full rate-limit window.
@Suite struct RunnerKindControlTests {
    @Test func theRunnerWaitsForAResumeAndRunsTheJobThen() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "upload") { _, _ in }
        try await fixture.queue.pause(kind: "upload")
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await fixture.events.wait { $0.last == .waiting(until: nil) }
        #expect(try fixture.job(id).state == .enqueued, "a paused kind does not run")
        try await fixture.queue.resume(kind: "upload")
        await fixture.events.wait { $0.contains(.succeeded(id)) }
        try await fixture.tearDown()
    }

    @Test func theRunnerSleepsUntilTheWindowEnds() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "send") { _, _ in }
        try await fixture.queue.setRateLimit(RateLimit(starts: 1, per: 60), kind: "send")
        let first = try await fixture.queue.enqueue(NewJob(kind: "send"))
        let second = try await fixture.queue.enqueue(NewJob(kind: "send"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await fixture.events.wait { $0.contains(.succeeded(first)) }
        let end = start.addingTimeInterval(60)
        await fixture.events.wait { $0.last == .waiting(until: end) }
        #expect(try fixture.job(second).state == .enqueued)
        fixture.clock.advance(to: end)
        await fixture.events.wait { $0.contains(.succeeded(second)) }
        try await fixture.tearDown()
    }
}
