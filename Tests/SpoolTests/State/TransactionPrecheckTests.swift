import Foundation
import Testing

@testable import Spool

/// The engine judges every operation of a transaction by apply's rules before it appends anything,
/// each in the state the operations before it leave: a transaction whose later operation apply would
/// refuse is refused for apply's reason with nothing written, and the queue stays writable. (Before,
/// only the first operation was judged: the record was appended, apply refused the later one, and
/// the queue refused every write until reopened.)
@Suite struct TransactionPrecheckTests {
    /// Commits `operations` directly, as a planner would, and checks that the refusal names
    /// `expected` and that nothing was appended.
    private func expectRefusedBeforeAppend(
        _ operations: [PlannedOperation], in queue: JobQueue,
        _ expected: Refusal, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let engine = queue.engine
        let end = engine.writer.appendedEnd
        let lsn = engine.writer.lastAppendedLSN
        let before = comparableJobs(engine.stateSnapshot)
        do {
            try engine.lock.withLock { _ = try engine.commit(operations) }
            Issue.record("the engine took a transaction apply refuses", sourceLocation: sourceLocation)
        } catch let error as SpoolError {
            #expect(
                error.code == expected.error.code && error.message == expected.error.message
                    && error.jobID == expected.error.jobID, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
        #expect(engine.writer.appendedEnd == end, "nothing appended", sourceLocation: sourceLocation)
        #expect(engine.writer.lastAppendedLSN == lsn, sourceLocation: sourceLocation)
        #expect(comparableJobs(engine.stateSnapshot) == before, "nothing applied", sourceLocation: sourceLocation)
    }

    @Test func aTransactionWhoseLaterOperationApplyRefusesWritesNothingAndTheQueueStaysWritable() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration(clock: clock))
        try await queue.enqueue(NewJob(kind: "k", id: "a"))
        try await queue.enqueue(NewJob(kind: "k", id: "b", dependencies: ["a"]))
        let now = Millis.from(clock.now())

        // The second cancel meets a job the first one cancelled.
        expectRefusedBeforeAppend(
            [PlannedOperation(.cancel(id: "a", at: now)), PlannedOperation(.cancel(id: "a", at: now))], in: queue,
            .wrongState(id: "a", action: .cancel, state: .cancelled))
        // The cascade of the first cancel (b waits for a) reaches the job the second one names.
        expectRefusedBeforeAppend(
            [PlannedOperation(.cancel(id: "a", at: now)), PlannedOperation(.cancel(id: "b", at: now))], in: queue,
            .wrongState(id: "b", action: .cancel, state: .cancelled))
        // A second enqueue of an id the first one took.
        let new = NewEnqueue(
            id: "c", kind: "k", payload: Data([1]), priority: 0, createdAt: now, runAt: now,
            maxAttempts: 3, uniqueKey: nil)
        expectRefusedBeforeAppend([.enqueue(new), .enqueue(new)], in: queue, .idExists(id: "c", action: .enqueue))
        // A delete after the cancel of a job that is not its only unfinished dependent.
        try await queue.enqueue(NewJob(kind: "k", id: "d", dependencies: ["a"]))
        expectRefusedBeforeAppend(
            [PlannedOperation(.cancel(id: "b", at: now)), PlannedOperation(.delete(id: "a"))], in: queue,
            .awaitedByUnfinished(id: "a", action: .delete, dependent: "d"))

        // Still writable, and the log replays strictly to the live state.
        try await queue.enqueue(NewJob(kind: "k", id: "e"))
        try await queue.delete("a")
        #expect(try queue.job("b")?.state == .cancelled && queue.job("d")?.state == .cancelled)
        try closeChecked(queue)
    }
}
