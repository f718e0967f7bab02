import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `pause(kind:)` and `resume(kind:)`: durable, a record each, honoured by every claim and deadline.
@Suite(.blocking) struct KindPauseTests {
    static func queue(_ temp: TemporaryDirectory, clock: ManualClock = ManualClock()) throws -> JobQueue {
        var configuration = testConfiguration(clock: clock)
        configuration.autoCompaction = nil
        return try JobQueue(directory: temp.queue, configuration: configuration)
    }

    @Test func aPausedKindIsNotClaimedUntilItIsResumed() throws {
        let temp = TemporaryDirectory("spool-pause")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp)
        try queue.enqueue(contentsOf: [
            NewJob(kind: "upload", id: "u1", priority: 9), NewJob(kind: "email", id: "e1"),
        ])
        #expect(try queue.pause(kind: "upload"))
        #expect(try queue.pausedKinds().keys.sorted() == ["upload"])
        #expect(try queue.claim()?.job.id == "e1", "the paused kind's job is passed over, whatever its priority")
        #expect(try queue.claim() == nil)
        #expect(try queue.claim(kind: "upload") == nil)
        #expect(try queue.claim(kinds: ["upload", "email"]) == nil)
        #expect(try queue.nextDeadline(kind: "upload") == nil, "a paused kind has no deadline")
        #expect(try queue.nextDeadline() == nil)
        #expect(try queue.resume(kind: "upload"))
        #expect(try queue.pausedKinds().isEmpty)
        #expect(try queue.nextDeadline(kind: "upload") != nil)
        #expect(try queue.claim()?.job.id == "u1")
        try closeChecked(queue)
    }

    @Test(.onThePool) func pausingAPausedKindOrResumingAnotherWritesNothing() async throws {
        let temp = TemporaryDirectory("spool-pause")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp)
        #expect(try await queue.pause(kind: "upload"))
        let lsn = queue.engine.writer.lastAppendedLSN
        #expect(try await queue.pause(kind: "upload") == false)
        #expect(try await queue.resume(kind: "email") == false)
        #expect(queue.engine.writer.lastAppendedLSN == lsn)
        #expect(try await queue.resume(kind: "upload"))
        #expect(queue.engine.writer.lastAppendedLSN == lsn + 1, "a record each")
        expectError(.invalidArgument) { try queue.pause(kind: "") }
        expectError(.invalidArgument) { try queue.resume(kind: String(repeating: "k", count: 201)) }
        try closeChecked(queue)
    }

    @Test func aPauseSurvivesAReopenAndACompaction() throws {
        let temp = TemporaryDirectory("spool-pause")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try Self.queue(temp, clock: clock)
        try queue.enqueue(NewJob(kind: "upload", id: "u1"))
        try queue.pause(kind: "upload")
        let pausedAt = clock.now()
        try closeChecked(queue)
        queue = try Self.queue(temp, clock: clock)
        #expect(try queue.pausedKinds() == ["upload": pausedAt])
        #expect(try queue.claim() == nil)
        clock.advance(by: 10)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try Self.queue(temp, clock: clock)
        #expect(try queue.pausedKinds() == ["upload": pausedAt], "the snapshot carries the pause")
        #expect(try queue.claim() == nil)
        try queue.resume(kind: "upload")
        try closeChecked(queue)
        queue = try Self.queue(temp, clock: clock)
        #expect(try queue.claim()?.job.id == "u1")
        try closeChecked(queue)
    }

    /// The rule lives in the state: apply refuses a claim of a paused kind (a log that holds one is
    /// corrupt), and the engine judges a claim by the same rule before it writes.
    @Test func applyRefusesAClaimOfAPausedKindAsTheEngineDoes() throws {
        var state = QueueState()
        try state.apply(
            .enqueue(
                .init(
                    id: "u1", kind: "upload", payload: .unwritten, priority: 0, createdAt: 0,
                    runAt: 0, maxAttempts: 3, uniqueKey: nil)))
        try state.apply(.pauseKind(kind: "upload", at: 5))
        let claim = LogOperation.claim(
            .init(id: "u1", token: 1, claimedAt: 10, expiresAt: 100, monotonicExpiry: 1, bootID: "b"))
        #expect(state.refusal(of: claim) == .kindPaused(id: "u1", kind: "upload"))
        #expect(throws: Refusal.kindPaused(id: "u1", kind: "upload")) { try state.apply(claim) }
        #expect(state.jobs["u1"]?.state == .enqueued, "a refused claim changes nothing")
        #expect(throws: Refusal.kindAlreadyPaused(kind: "upload")) {
            try state.apply(.pauseKind(kind: "upload", at: 6))
        }
        #expect(throws: Refusal.kindNotPaused(kind: "email")) { try state.apply(.resumeKind(kind: "email", at: 6)) }
        try state.apply(.resumeKind(kind: "upload", at: 7))
        try state.apply(claim)
        #expect(state.jobs["u1"]?.state == .running)
        #expect(Refusal.kindPaused(id: "u1", kind: "upload").error.code == .invalidState)
    }
}
