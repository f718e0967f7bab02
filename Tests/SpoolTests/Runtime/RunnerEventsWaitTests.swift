import Foundation
import Testing

@testable import Spool

/// Waits on a runner's events with a time limit (issue #34 item 5): an event that never comes fails the
/// wait, naming what came, instead of hanging the test.
@Suite struct RunnerEventsWaitTests {
    @Test func aWaitWithATimeLimitReturnsOnTheEventAndThrowsWithoutIt() async throws {
        let events = RunnerEvents()
        events.record(.succeeded("a"))
        // Already there: returns at once.
        try await events.wait(for: 1, timeout: 600) { $0 == .succeeded("a") }
        // Recorded while the wait waits.
        async let later: Void = events.wait(until: { $0.contains(.succeeded("b")) }, timeout: 600)
        events.record(.succeeded("b"))
        try await later
        // Never recorded: the limit ends the wait with what came.
        do {
            try await events.wait(for: 1, timeout: 0.05) { $0 == .stopped }
            Issue.record("a wait for an event never recorded returned")
        } catch let timedOut as RunnerEvents.TimedOut {
            #expect(timedOut.events == [.succeeded("a"), .succeeded("b")] && timedOut.seconds == 0.05)
        }
    }
}
