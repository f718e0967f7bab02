import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// What the queries a scheduler reads say while a kind is paused or at its rate limit: the same as
/// claims (``KindControls/earliestStart(of:dueAt:)`` and ``KindControls/closedKinds(at:)``), so that an
/// app never asks the system to launch it for work no claim would take.
@Suite(.blocking) struct SchedulingUnderKindControlsTests {
    static func queue(_ temp: TemporaryDirectory, clock: ManualClock) throws -> JobQueue {
        var configuration = testConfiguration(clock: clock)
        configuration.autoCompaction = nil
        return try JobQueue(directory: temp.queue, configuration: configuration)
    }

    @Test func readyJobsLeaveOutPausedKindsAndFullWindows() throws {
        let temp = TemporaryDirectory("spool-ready-controls")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        try queue.setRateLimit(RateLimit(starts: 1, per: 60), kind: "send")
        try queue.enqueue(contentsOf: [
            NewJob(kind: "send", id: "s1"), NewJob(kind: "send", id: "s2"), NewJob(kind: "upload", id: "u1"),
            NewJob(kind: "other", id: "o1"),
        ])
        let start = clock.now()
        #expect(try queue.claim(kind: "send")?.job.id == "s1")
        try queue.pause(kind: "upload")
        #expect(try queue.readyJobs(at: start).map(\.id) == ["o1"], "upload paused, send's window full")
        #expect(try queue.readyJobs(at: start, kind: "send").isEmpty)
        #expect(try queue.readyJobs(at: start.addingTimeInterval(60)).map(\.id) == ["s2", "o1"], "the window ends")
        try queue.resume(kind: "upload")
        #expect(try queue.readyJobs(at: start).map(\.id) == ["u1", "o1"])
        try closeChecked(queue)
    }

    @Test func deadlinesPerConstraintSetHonourPausesAndRateLimits() throws {
        let temp = TemporaryDirectory("spool-deadlines-controls")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        let network = JobConstraints(requiresNetwork: true)
        try queue.setRateLimit(RateLimit(starts: 1, per: 60), kind: "send")
        try queue.enqueue(NewJob(kind: "send", id: "s1"))
        try queue.enqueue(NewJob(kind: "send", id: "s2", constraints: network))
        try queue.enqueue(NewJob(kind: "upload", id: "u1", delay: 5, constraints: network))
        let start = clock.now()
        #expect(try queue.nextDeadlines() == [.none: start, network: start])
        #expect(try queue.claim()?.job.id == "s1")
        // send's window is full until start + 60: its network job starts then; upload's in 5 s.
        #expect(try queue.nextDeadlines() == [network: start.addingTimeInterval(5)])
        #expect(try queue.nextDeadline(kind: "send", constraints: network) == start.addingTimeInterval(60))
        try queue.pause(kind: "upload")
        #expect(try queue.nextDeadlines() == [network: start.addingTimeInterval(60)])
        #expect(try queue.nextDeadline(kind: "upload", constraints: network) == nil, "paused: no deadline")
        try queue.setRateLimit(nil, kind: "send")
        #expect(try queue.nextDeadlines() == [network: start])
        try closeChecked(queue)
    }

    /// `nextProcessingHint()` is nil when every unfinished job is of a paused kind (its documentation, issue
    /// #32 item 5), and asks again once the kind is resumed.
    @Test func theNextProcessingHintIsNilWhenEveryUnfinishedJobIsOfAPausedKind() throws {
        let temp = TemporaryDirectory("spool-hints-controls")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        try queue.enqueue(NewJob(kind: "upload", id: "u1"))
        try queue.enqueue(NewJob(kind: "upload", id: "u2", delay: 60))
        #expect(try queue.nextProcessingHint()?.earliestBeginDate == clock.now())
        try queue.pause(kind: "upload")
        #expect(try queue.nextProcessingHint() == nil)
        try queue.resume(kind: "upload")
        #expect(try queue.nextProcessingHint()?.earliestBeginDate == clock.now())
        try closeChecked(queue)
    }

    @Test func schedulingHintsLeaveOutPausedKindsAndWaitForAFullWindow() throws {
        let temp = TemporaryDirectory("spool-hints-controls")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        let network = JobConstraints(requiresNetwork: true)
        let upload = try queue.enqueue(NewJob(kind: "upload", id: "u1", constraints: network))
        try queue.enqueue(NewJob(kind: "report", id: "r1", dependencies: [upload]))
        try queue.enqueue(NewJob(kind: "send", id: "s1"))
        try queue.enqueue(NewJob(kind: "send", id: "s2"))
        try queue.setRateLimit(RateLimit(starts: 1, per: 60), kind: "send")
        let start = clock.now()
        let lease = try #require(try queue.claim(kind: "send"))
        #expect(lease.job.id == "s1")
        try queue.pause(kind: "upload")
        // upload is paused, and report waits for it: neither asks for a launch. s1 runs (now); s2 waits
        // for send's window, but the group's earliest moment is s1's.
        #expect(
            try queue.schedulingHints() == [
                SchedulingHint(
                    earliestBeginDate: start, requiresNetworkConnectivity: false, requiresExternalPower: false,
                    jobCount: 2, kinds: ["send"])
            ])
        try queue.complete(lease)
        #expect(try queue.schedulingHints().map(\.earliestBeginDate) == [start.addingTimeInterval(60)])
        try queue.resume(kind: "upload")
        let hints = try queue.schedulingHints()
        #expect(hints.map(\.requiresNetworkConnectivity) == [false, true])
        #expect(hints.map(\.jobCount) == [2, 1] && hints[0].kinds == ["send", "report"])
        #expect(hints.map(\.earliestBeginDate) == [start, start], "report waits for upload, due now")
        try closeChecked(queue)
    }

    /// A job whose app-named condition does not hold asks for no launch (issue 44 item 4): the hints follow
    /// the same rule as claims (``DeviceConditions/holdsNamedConditions(of:)``).
    @Test func hintsLeaveOutJobsWhoseNamedConditionsDoNotHold() throws {
        let temp = TemporaryDirectory("spool-hints-named")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        var signedIn = JobConstraints(requiresNetwork: true)
        signedIn.requiredConditions = ["signed-in"]
        try queue.enqueue(NewJob(kind: "sync", id: "s", constraints: signedIn))
        #expect(try queue.schedulingHints().isEmpty, "a launch while signed out could not run the job")
        #expect(try queue.claim(kind: "sync") == nil)
        try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true, satisfiedConditions: ["signed-in"]))
        let hints = try queue.schedulingHints()
        #expect(hints.map(\.kinds) == [["sync"]] && hints.first?.requiresNetworkConnectivity == true)
        try closeChecked(queue)
    }
}
