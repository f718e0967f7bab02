import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `JobQueue.update(_:constraints:)`: an unfinished job's constraints change durably (`set_constraints`, 50,
/// body version 14; FORMAT.md, *Changing a job's constraints*).
@Suite(.blocking) struct UpdateConstraintsTests {
    static let unmetered = JobConstraints(requiresUnmeteredNetwork: true)
    static let named = JobConstraints(requiresCharging: true, requiredConditions: ["signed-in"])

    /// The `setConstraints` operations the log of `directory` holds (read with the queue closed).
    private func recordedChanges(_ directory: String) throws -> [LogOperationSummary] {
        try LogInspector.records(directory: directory).flatMap(\.operations).filter { $0.name == "setConstraints" }
    }

    @Test func anUpdateIsDurableAcrossReopenAndCompaction() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = semanticsConfiguration(clock)
        configuration.autoCompaction = nil
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "upload", id: "a", constraints: Self.unmetered))
        try queue.enqueue(NewJob(kind: "upload", id: "b"))
        try queue.enqueue(NewJob(kind: "upload", id: "c", constraints: Self.unmetered))
        #expect(try queue.update("a", constraints: Self.named).constraints == Self.named)
        #expect(try queue.update("b", constraints: Self.unmetered).constraints == Self.unmetered)
        #expect(try queue.update("c", constraints: .none).constraints == .none)
        // The same constraints again change nothing and write nothing.
        #expect(try queue.update("a", constraints: Self.named).constraints == Self.named)
        try closeChecked(queue)
        #expect(try recordedChanges(temp.queue).map(\.jobID) == ["a", "b", "c"])
        #expect(
            try recordedChanges(temp.queue).map { $0.fields.first?.value }
                == [.string("charging,condition:signed-in"), .string("unmeteredNetwork"), .string("none")])

        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job("a")?.constraints == Self.named)
        #expect(try queue.job("b")?.constraints == Self.unmetered)
        #expect(try queue.job("c")?.constraints == JobConstraints.none)
        // A compaction writes each job's constraints with its restore; the log before it is gone.
        _ = try queue.compact()
        try closeChecked(queue)
        #expect(try recordedChanges(temp.queue).isEmpty)
        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job("a")?.constraints == Self.named)
        #expect(try queue.job("b")?.constraints == Self.unmetered)
        #expect(try queue.job("c")?.constraints == JobConstraints.none)
        checkInvariants(queue.engine.stateSnapshot)
        // No device condition is known: only the job whose constraints were removed is claimable.
        #expect(try queue.claim()?.job.id == "c")
        #expect(try queue.claim() == nil)
        try closeChecked(queue)
    }

    @Test(.onThePool) func aFinishedJobIsRefusedAndNothingIsWritten() async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try await queue.enqueue(NewJob(kind: "k", id: "done"))
        try await queue.complete(try #require(try await queue.claim()))
        try await queue.enqueue(NewJob(kind: "k", id: "gone"))
        try await queue.cancel("gone")
        try await queue.enqueue(NewJob(kind: "k", id: "open"))
        // The async form changes an unfinished job as the blocking one does.
        #expect(try await queue.update("open", constraints: Self.unmetered).constraints == Self.unmetered)
        expectError(.invalidState) { try queue.update("done", constraints: Self.unmetered) }
        await expectError(.invalidState) { try await queue.update("gone", constraints: Self.unmetered) }
        expectError(.jobNotFound) { try queue.update("nobody", constraints: Self.unmetered) }
        expectError(.invalidArgument) {
            try queue.update("open", constraints: JobConstraints(requiredConditions: [""]))
        }
        #expect(try queue.job("done")?.constraints == JobConstraints.none)
        try closeChecked(queue)
        #expect(try recordedChanges(temp.queue).map(\.jobID) == ["open"], "the refused changes wrote nothing")
    }

    @Test func aJobNoLongerRequiringAnUnmeteredNetworkIsClaimedOnAMeteredOne() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try queue.enqueue(NewJob(kind: "upload", id: "photo", constraints: Self.unmetered))
        // Only a metered network (cellular): the job waits.
        try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true, isNetworkUnmetered: false))
        #expect(try queue.claim() == nil)
        #expect(try queue.nextDeadline() == nil)
        // "Pause uploads on cellular" turned off: the job requires no network policy any more.
        try queue.update("photo", constraints: .none)
        #expect(try queue.nextDeadline() != nil)
        let lease = try #require(try queue.claim())
        #expect(lease.job.id == "photo" && lease.job.constraints == JobConstraints.none)
        try queue.complete(lease)
        try closeChecked(queue)
    }

    @Test func aRunningJobKeepsItsAttemptAndItsNextAttemptMeetsTheNewConstraints() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temp.queue, configuration: semanticsConfiguration(clock))
        try queue.enqueue(NewJob(kind: "upload", id: "photo"))
        let lease = try #require(try queue.claim())
        #expect(try queue.update("photo", constraints: Self.unmetered).state == .running)
        // The attempt under way is not ended by the change; it fails and is retried.
        try queue.fail(lease, error: "offline")
        clock.advance(by: 3600)
        #expect(try queue.claim() == nil, "the next attempt waits for an unmetered network")
        try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true, isNetworkUnmetered: true))
        #expect(try queue.claim()?.job.id == "photo")
        try closeChecked(queue)
    }

    /// The bytes are FORMAT.md's example (*Changing a job's constraints*); a reader refuses empty present
    /// constraints and the opcode in a body of version 13.
    @Test func setConstraintsBytes() throws {
        func decode(_ bytes: [UInt8]) throws -> [LogOperation] {
            try bytes.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
        }
        let unmetered: [UInt8] = [0x0e, 0x01, 0x32, 0x01, 0x6a, 0x01, 0x02, 0x00]
        let change = LogOperation.setConstraints(id: "j", constraints: Self.unmetered)
        #expect(TransactionCodec.encode([PlannedOperation(change)]) == unmetered)
        #expect(try decode(unmetered) == [change])
        let none: [UInt8] = [0x0e, 0x01, 0x32, 0x01, 0x6a, 0x00]
        #expect(TransactionCodec.encode([PlannedOperation(.setConstraints(id: "j", constraints: nil))]) == none)
        #expect(try decode(none) == [.setConstraints(id: "j", constraints: nil)])
        let named = LogOperation.setConstraints(id: "j", constraints: Self.named)
        #expect(try decode(TransactionCodec.encode([PlannedOperation(named)])) == [named])
        #expect(throws: TransactionCodec.Failure.self) { try decode([0x0e, 0x01, 0x32, 0x01, 0x6a, 0x01, 0x00, 0x00]) }
        // An opcode of version 14 in a body of version 13 is malformed.
        #expect(throws: TransactionCodec.Failure.self) { try decode([0x0d, 0x01, 0x32, 0x01, 0x6a, 0x00]) }
    }

    /// Replay's rule is the engine's: a `set_constraints` of a finished or unknown job does not apply.
    @Test func applyRefusesAChangeOfAFinishedOrUnknownJob() throws {
        var state = QueueState()
        try state.apply(
            .enqueue(
                .init(
                    id: "j", kind: "k", payload: RecordGenerator.payload, priority: 0, createdAt: 0, runAt: 0,
                    maxAttempts: 1, uniqueKey: nil)))
        try state.apply(.setConstraints(id: "j", constraints: Self.unmetered))
        #expect(state.jobs["j"]?.constraints == Self.unmetered)
        try state.apply(.cancel(id: "j", at: 1))
        #expect(throws: Refusal.wrongState(id: "j", action: .setConstraints, state: .cancelled)) {
            try state.apply(.setConstraints(id: "j", constraints: nil))
        }
        #expect(
            state.refusal(of: .setConstraints(id: "x", constraints: nil))
                == .noSuchJob(id: "x", action: .setConstraints))
        #expect(state.jobs["j"]?.constraints == Self.unmetered)
    }
}
