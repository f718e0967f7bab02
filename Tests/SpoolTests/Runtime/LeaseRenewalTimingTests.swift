import Foundation
import Testing

@testable import Spool

/// The runner renews a lease half way through its current term, measured from the lease's own
/// recorded times — not from when the renewal returned — so a clock moving while a renewal is in
/// flight never puts the next renewal at the expiry, where a claim would take the job away.
@Suite struct LeaseRenewalTimingTests {
    static let lease: TimeInterval = 60

    @Test func theClockMovingWhileARenewalIsInFlightNeverSchedulesTheNextAtTheExpiry() async throws {
        let temp = TemporaryDirectory("spool-renewal")
        defer { temp.cleanup() }
        let clock = ManualClock()
        let fileSystem = SyncHookFileSystem()
        var configuration = testConfiguration(clock: clock)
        configuration.fileSystem = fileSystem
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, options: .init(leaseDuration: Self.lease), events: events)
        let gate = Gate()
        let checkpoints = Checkpoints()
        try runner.register(kind: "long") { _, _ in
            checkpoints.reach("running")
            try await gate.wait()
        }
        let id = try await queue.enqueue(NewJob(kind: "long"))
        runner.start()
        await checkpoints.wait(for: "running")
        /// Waits until the loop, after the first `index` events and one matching `seen`, is about
        /// to sleep until an instant still ahead; returns that instant.
        @Sendable func nextSleep(after index: Int, seen: @escaping @Sendable (RunnerEvents.Event) -> Bool) async
            -> Date?
        {
            await events.wait { events in
                guard events.dropFirst(index).contains(where: seen), case .waiting(let until?) = events.last else {
                    return false
                }
                return until > clock.now()
            }
            if case .waiting(let until?) = events.all.last { return until }
            return nil
        }
        var deadline = try #require(await nextSleep(after: 0, seen: \.isClaim))
        for round in 0..<40 {
            let held = try #require(try queue.engine.job(id)?.lease)
            guard Millis.from(deadline) < held.expiresAt else {
                Issue.record(
                    "round \(round): the runner sleeps until \(deadline), the lease expires at \(Millis.date(held.expiresAt))"
                )
                break
            }
            // The renewal's record is applied at the deadline; the clock moves half a lease before
            // its call returns (the worst case of the old rule: the next renewal at the expiry).
            fileSystem.nextSync.withLock { $0 = { clock.advance(by: Self.lease / 2) } }
            let before = events.all.count
            clock.advance(to: deadline)
            // A claim at that instant must not take the job: its lease runs at least half a term on.
            let reclaimed = try await queue.reclaimExpiredLeases()
            guard reclaimed.isEmpty else {
                Issue.record("round \(round): the job was reclaimed from its handler")
                break
            }
            deadline = try #require(await nextSleep(after: before, seen: \.isRenewal), "round \(round)")
            #expect(try queue.job(id)?.state == .running && queue.job(id)?.attempts == 1, "round \(round)")
        }
        gate.open()
        await runner.stop(.finishRunning)
        #expect(try queue.job(id)?.state == .succeeded)
        #expect(!events.all.contains { if case .cancelledHandler = $0 { return true } else { return false } })
        try closeChecked(queue)
    }
}
