import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Rate limits: at most N starts of a kind per window, counted from the claims in the log, so that
/// neither a restart nor a compaction resets the window; the next deadline is the window's end.
@Suite(.blocking) struct RateLimitTests {
    static func queue(_ temp: TemporaryDirectory, clock: ManualClock) throws -> JobQueue {
        var configuration = testConfiguration(clock: clock)
        configuration.autoCompaction = nil
        return try JobQueue(directory: temp.queue, configuration: configuration)
    }

    @Test func atMostNStartsPerWindowAndTheWindowSurvivesRestartAndCompaction() throws {
        let temp = TemporaryDirectory("spool-rate")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try Self.queue(temp, clock: clock)
        #expect(try queue.setRateLimit(RateLimit(starts: 2, per: 60), kind: "send"))
        #expect(try queue.setRateLimit(RateLimit(starts: 2, per: 60), kind: "send") == false, "unchanged: no record")
        try queue.enqueue(contentsOf: (1...5).map { NewJob(kind: "send", id: JobID("s\($0)")) })
        try queue.enqueue(NewJob(kind: "other", id: "o1"))
        let windowStart = clock.now()
        #expect(try queue.claim(kind: "send")?.job.id == "s1")
        clock.advance(by: 10)
        #expect(try queue.claim(kind: "send")?.job.id == "s2")
        #expect(try queue.claim(kind: "send") == nil, "the window is full")
        #expect(try queue.claim()?.job.id == "o1", "another kind is not limited")
        #expect(try queue.nextDeadline(kind: "send") == windowStart.addingTimeInterval(60))
        try closeChecked(queue)
        queue = try Self.queue(temp, clock: clock)
        #expect(try queue.claim(kind: "send") == nil, "a restart does not reset the window")
        #expect(try queue.nextDeadline(kind: "send") == windowStart.addingTimeInterval(60))
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try Self.queue(temp, clock: clock)
        #expect(try queue.rateLimits() == ["send": RateLimit(starts: 2, per: 60)])
        #expect(try queue.claim(kind: "send") == nil, "nor does a compaction")
        clock.advance(to: windowStart.addingTimeInterval(60) - 0.001)
        #expect(try queue.claim(kind: "send") == nil)
        clock.advance(to: windowStart.addingTimeInterval(60))
        #expect(try queue.claim(kind: "send")?.job.id == "s3", "the window ended: a new one opens")
        #expect(try queue.claim(kind: "send")?.job.id == "s4")
        #expect(try queue.claim(kind: "send") == nil)
        #expect(try queue.nextDeadline(kind: "send") == windowStart.addingTimeInterval(120))
        #expect(try queue.setRateLimit(nil, kind: "send"))
        #expect(try queue.claim(kind: "send")?.job.id == "s5", "no limit, no window")
        try closeChecked(queue)
    }

    @Test func aDueTimeAfterTheWindowsEndIsTheDeadline() throws {
        let temp = TemporaryDirectory("spool-rate")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        try queue.setRateLimit(RateLimit(starts: 1, per: 30), kind: "send")
        try queue.enqueue(NewJob(kind: "send", id: "a"))
        try queue.enqueue(NewJob(kind: "send", id: "b", delay: 100))
        let start = clock.now()
        #expect(try queue.claim()?.job.id == "a")
        #expect(try queue.nextDeadline() == start.addingTimeInterval(100))
        try closeChecked(queue)
    }

    @Test(.onThePool) func aLoweredLimitCountsTheStartsOfTheOpenWindow() async throws {
        let temp = TemporaryDirectory("spool-rate")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try Self.queue(temp, clock: clock)
        try await queue.setRateLimit(RateLimit(starts: 3, per: 60), kind: "send")
        try await queue.enqueue(contentsOf: (1...4).map { NewJob(kind: "send", id: JobID("s\($0)")) })
        #expect(try await queue.claim() != nil)
        #expect(try await queue.claim() != nil)
        try await queue.setRateLimit(RateLimit(starts: 2, per: 60), kind: "send")
        #expect(try await queue.claim() == nil)
        try closeChecked(queue)
    }

    @Test func limitsOutOfRangeAreRefused() throws {
        let temp = TemporaryDirectory("spool-rate")
        defer { temp.cleanup() }
        let queue = try Self.queue(temp, clock: ManualClock())
        expectError(.invalidArgument) { try queue.setRateLimit(RateLimit(starts: 0, per: 60), kind: "send") }
        expectError(.invalidArgument) { try queue.setRateLimit(RateLimit(starts: 1, per: 0), kind: "send") }
        expectError(.invalidArgument) { try queue.setRateLimit(RateLimit(starts: 1, per: .infinity), kind: "send") }
        expectError(.invalidArgument) { try queue.setRateLimit(RateLimit(starts: 1, per: 1), kind: "") }
        #expect(try queue.setRateLimit(nil, kind: "send") == false)
        #expect(try queue.rateLimits().isEmpty)
        try closeChecked(queue)
    }

    /// The rule in the state, as apply judges it: a claim in a full window does not apply.
    @Test func applyRefusesAClaimInAFullWindow() throws {
        var state = QueueState()
        for id in ["a", "b"] {
            try state.apply(
                .enqueue(
                    .init(
                        id: id, kind: "send", payload: .unwritten, priority: 0, createdAt: 0,
                        runAt: 0, maxAttempts: 3, uniqueKey: nil)))
        }
        try state.apply(.setRateLimit(kind: "send", limit: StoredRateLimit(starts: 1, intervalMillis: 1000), at: 0))
        func claim(_ id: String, at: Int64) -> LogOperation {
            .claim(.init(id: id, token: 1, claimedAt: at, expiresAt: at + 100, monotonicExpiry: 1, bootID: "b"))
        }
        try state.apply(claim("a", at: 100))
        #expect(state.kindControls.windows["send"] == RateWindow(start: 100, count: 1))
        #expect(throws: Refusal.rateLimited(id: "b", kind: "send", until: 1100)) {
            try state.apply(claim("b", at: 1099))
        }
        try state.apply(claim("b", at: 1100))
        #expect(state.kindControls.windows["send"] == RateWindow(start: 1100, count: 1))
        #expect(throws: Refusal.rateWindowWithoutLimit(kind: "x")) {
            try state.apply(.rateWindow(kind: "x", window: RateWindow(start: 0, count: 1)))
        }
        #expect(throws: Refusal.noRateLimit(kind: "x")) { try state.apply(.setRateLimit(kind: "x", limit: nil, at: 0)) }
    }

    /// Every kind-control operation decodes to what was encoded, in a body of version 7.
    @Test func theOperationsRoundTripInABodyOfVersionSeven() throws {
        let operations: [LogOperation] = [
            .pauseKind(kind: "upload", at: 1_800_000_000_000), .resumeKind(kind: "upload", at: -1),
            .setRateLimit(kind: "send", limit: StoredRateLimit(starts: 10, intervalMillis: 60_000), at: 5),
            .setRateLimit(kind: "send", limit: nil, at: 6),
            .rateWindow(kind: "send", window: RateWindow(start: 7, count: 3)),
        ]
        let body = TransactionCodec.encode(operations.map { PlannedOperation($0) })
        #expect(body[0] == 7)
        let decoded = try body.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        #expect(decoded == operations)
        // `starts` 0 and `count` 0 are out of range: malformed, not a trap.
        var bad = ByteWriter()
        bad.writeUInt8(7)
        bad.writeVarint(1)
        KindControlCodec.encode(
            .setRateLimit(kind: "s", limit: StoredRateLimit(starts: 1, intervalMillis: 1), at: 0), into: &bad)
        var bytes = bad.bytes
        bytes[bytes.count - 2] = 0
        #expect(throws: TransactionCodec.Failure.self) {
            try bytes.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
    }
}
