import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Every invariant `spool verify` checks is a rule `apply` enforces (issue #43 item 1): the record that would
/// break one does not apply, so open, strict replay and `spool verify` refuse it alike, as `corruption` naming
/// the file and the record's offset, and salvage skips it. One test per case the invariants and the rules
/// disagreed on (each found by hand or by ``RecordAgreementTests``).
@Suite(.blocking) struct InvariantRuleTests {
    static let t = DiskFieldRangeTests.t
    static let lease = StoredLease(token: 1, claimedAt: t, expiresAt: t + 60_000, monotonicExpiry: 1, bootID: "b")

    static func claim(_ id: String) -> LogOperation {
        .claim(.init(id: id, token: 1, claimedAt: t, expiresAt: t + 60_000, monotonicExpiry: 1, bootID: "b"))
    }

    static func enqueue(_ id: String, dependencies: [String] = [], key: String? = nil) -> PlannedOperation {
        PlannedOperation.enqueue(
            NewEnqueue(
                id: id, kind: "k", payload: Data(), priority: 0, createdAt: t, runAt: t, maxAttempts: 3,
                uniqueKey: key, options: EnqueueOptions(dependencies: dependencies)))
    }

    static func apply(_ operations: [LogOperation], to state: inout QueueState) throws(Refusal) {
        for operation in operations { try state.apply(operation) }
    }

    /// The issue's log: `enqueue p`, `enqueue_with_options w` waiting for `p`, `claim w`. Open and `spool verify`
    /// refuse the claim's record naming its file and offset; salvage skips it and leaves `w` blocked.
    @Test func theClaimOfABlockedJobIsCorruptionForOpenAndVerifyAlike() throws {
        let temporary = TemporaryDirectory("blocked-claim")
        defer { temporary.cleanup() }
        try FileManager.default.createDirectory(atPath: temporary.queue, withIntermediateDirectories: true)
        let records = [
            [Self.enqueue("p")], [Self.enqueue("w", dependencies: ["p"])], [PlannedOperation(Self.claim("w"))],
        ]
        var bytes = FileHeader(instanceID: FormatRulesTests.instanceID, sequence: 1, firstLSN: 1).encoded()
        var claimOffset = 0
        for (index, record) in records.enumerated() {
            claimOffset = bytes.count
            bytes += FormatRulesTests.frame(
                lsn: UInt64(index + 1), groupIndex: 0, body: TransactionCodec.encode(record))
        }
        let path = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        func expectRefused(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("the claim of a blocked job applied")
            } catch let error as SpoolError {
                #expect(
                    error.code == .corruption && error.path == path && error.offset == Int64(claimOffset), "\(error)")
                #expect(error.message.contains("waits for prerequisite p"), "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
        expectRefused { _ = try LogInspector.verify(directory: temporary.queue) }
        expectRefused { _ = try JobQueue(directory: temporary.queue, configuration: testConfiguration()) }
        var salvage = testConfiguration()
        salvage.recoveryMode = .salvage
        let queue = try JobQueue(directory: temporary.queue, configuration: salvage)
        #expect(queue.recoveryReport.skipped.map(\.offset) == [Int64(claimOffset)])
        #expect(try queue.job("w")?.state == .enqueued)
        try closeChecked(queue)
    }

    /// A snapshot restoring a running job that waits (for a running job, or any) does not apply.
    @Test func aRestoredRunningJobWaitsForNothing() throws {
        var state = QueueState()
        let prerequisite = DiskFieldRangeTests.job("p", .running, sequence: 1, lease: Self.lease)
        let waiting = DiskFieldRangeTests.job("w", .running, sequence: 2, lease: Self.lease, waitingFor: ["p"])
        try state.apply(.restore(prerequisite))
        #expect(throws: Refusal.runsBeforePrerequisite(id: "w", action: .restore, prerequisite: "p")) {
            try state.apply(.restore(waiting))
        }
        #expect(state.brokenInvariants().isEmpty)
    }

    /// A restore naming a prerequisite twice would list the job twice among its dependents.
    @Test func aRestoreNamingAPrerequisiteTwiceDoesNotApply() throws {
        var state = QueueState()
        try state.apply(.restore(DiskFieldRangeTests.job("p", .enqueued, sequence: 1)))
        let twice = DiskFieldRangeTests.job("w", .cancelled, sequence: 2, finishedAt: Self.t, waitingFor: ["p", "p"])
        #expect(throws: Refusal.restoredPrerequisiteTwice(id: "w", prerequisite: "p")) {
            try state.apply(.restore(twice))
        }
    }

    /// Restores out of enqueue order would make a key's holder an earlier carrier than the job it took it
    /// from: a restore's sequence lies above every job's before it.
    @Test func restoresComeInEnqueueOrder() throws {
        var state = QueueState()
        try state.apply(.restore(DiskFieldRangeTests.job("a", .enqueued, sequence: 5, uniqueKey: "K")))
        let earlier = DiskFieldRangeTests.job("b", .enqueued, sequence: 3, uniqueKey: "K", waitingFor: ["a"])
        #expect(throws: Refusal.restoredOutOfOrder(id: "b", sequence: 3, previous: 5)) {
            try state.apply(.restore(earlier))
        }
        let same = DiskFieldRangeTests.job("c", .succeeded, sequence: 5, finishedAt: Self.t)
        #expect(throws: Refusal.restoredOutOfOrder(id: "c", sequence: 5, previous: 5)) {
            try state.apply(.restore(same))
        }
        // Nor below a job enqueued in a log file.
        try state.apply(Self.enqueue("d").operation)
        #expect(throws: Refusal.self) {
            try state.apply(.restore(DiskFieldRangeTests.job("e", .enqueued, sequence: 6)))
        }
        #expect(state.brokenInvariants().isEmpty)
    }

    /// A migration's image of a blocked job that runs does not apply; nor does a commit reviving a job whose
    /// prerequisite is gone (a cancelled dependent, its prerequisite deleted, revived enqueued).
    @Test func aMigrationKeepsTheChainRule() throws {
        var state = QueueState()
        try Self.apply(
            [Self.enqueue("p").operation, Self.enqueue("w", dependencies: ["p"]).operation], to: &state)
        var running = MigratedJob(state.jobs["w"]!)
        running.state = .running
        running.lease = Self.lease
        let blocked = state
        #expect(throws: Refusal.runsBeforePrerequisite(id: "w", action: .migrateJob, prerequisite: "p")) {
            try Self.apply(
                [.migrationBegin(number: 1, at: Self.t), .migrateJob(running), .migrationCommit(number: 1)],
                to: &state)
        }
        state = blocked
        try Self.apply([.cancel(id: "w", at: Self.t), .delete(id: "p")], to: &state)
        var revived = MigratedJob(state.jobs["w"]!)
        revived.state = .enqueued
        revived.finishedAt = nil
        #expect(throws: Refusal.migratedWaitingForFinished(id: "w", prerequisite: "p")) {
            try Self.apply(
                [.migrationBegin(number: 1, at: Self.t), .migrateJob(revived), .migrationCommit(number: 1)],
                to: &state)
        }
        #expect(state.jobs["w"]?.state == .cancelled)
        #expect(state.brokenInvariants().isEmpty)
    }

    /// Attempts may pass a job's maximum (a claim counts one more, a restore copies what it finds): not an
    /// invariant, so a state holding such a job is sound.
    @Test func attemptsPastTheMaximumAreNotABrokenInvariant() throws {
        var state = QueueState()
        try state.apply(.restore(DiskFieldRangeTests.job("a", .enqueued, sequence: 1, attempts: 5)))
        try state.apply(Self.claim("a"))
        #expect(state.jobs["a"]?.attempts == 6)
        #expect(state.brokenInvariants().isEmpty)
    }
}
