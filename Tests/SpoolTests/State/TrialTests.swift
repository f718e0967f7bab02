import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A trial (``QueueState/trial()``): apply on a copy that shares the state's storage. Its job table
/// behaves as the table it shares with the changes made, and leaves that table as it was.
@Suite(.blocking) struct TrialTests {
    private func job(_ id: String, sequence: UInt64) -> StoredJob {
        StoredJob(
            id: id, kind: "k", state: .enqueued, attempts: 0, maxAttempts: 3, priority: 0, sequence: sequence,
            createdAt: 0, runAt: 0, nextRetryAt: nil, finishedAt: nil, uniqueKey: nil, lastError: nil,
            payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0), lease: nil)
    }

    @Test func aTrialTableMatchesADictionaryAndLeavesTheSharedTableAsItWas() {
        var generator = SeededGenerator(seed: 7)
        var base = JobTable()
        var baseModel: [String: StoredJob] = [:]
        for index in 0..<500 {
            base["j\(index)"] = job("j\(index)", sequence: UInt64(index))
            baseModel["j\(index)"] = base["j\(index)"]
        }
        var trial = base
        trial.startTrial()
        var model = baseModel
        for step in 0..<5_000 {
            let id = "j\(Int.random(in: 0..<1_000, using: &generator))"
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                let value = job(id, sequence: UInt64(10_000 + step))
                trial[id] = value
                model[id] = value
            case 1:
                guard !trial.contains(id) else { continue }
                trial.insertNew(job(id, sequence: UInt64(10_000 + step)))
                model[id] = job(id, sequence: UInt64(10_000 + step))
            case 2:
                guard let position = trial.position(of: id) else { continue }
                var changed = trial[position: position]
                changed.attempts += 1
                trial.replace(at: position, with: changed)
                model[id] = changed
            default:
                trial[id] = nil
                model[id] = nil
            }
            #expect(trial.count == model.count && trial[id] == model[id] && trial.contains(id) == (model[id] != nil))
        }
        #expect((0..<1_000).allSatisfy { trial["j\($0)"] == model["j\($0)"] })
        #expect(Dictionary(uniqueKeysWithValues: trial.map { ($0.key, $0.value) }) == model)
        #expect(trial.values.count == model.count && trial.isEmpty == model.isEmpty)
        #expect(
            Dictionary(uniqueKeysWithValues: base.map { ($0.key, $0.value) }) == baseModel,
            "the shared table is unchanged")
    }

    @Test func aTransactionAppliedToATrialGivesTheStateApplyGivesAndLeavesTheStateAlone() throws {
        var state = QueueState()
        let at: Int64 = 1_000
        func enqueue(_ id: String, after: [String] = [], key: String? = nil) -> LogOperation {
            var options = EnqueueOptions()
            options.dependencies = after
            return .enqueue(
                .init(
                    id: id, kind: "k", payload: .unwritten, priority: 0, createdAt: at,
                    runAt: at, maxAttempts: 3, uniqueKey: key, options: options))
        }
        for operation in [enqueue("a", key: "u"), enqueue("b", after: ["a"]), enqueue("c", after: ["b"]), enqueue("d")]
        {
            try state.apply(operation)
        }
        let before = state
        let transaction: [LogOperation] = [
            .cancel(id: "a", at: at), enqueue("e", key: "u"), .delete(id: "a"), .expire(id: "c"),
        ]
        var trial = state.trial()
        var copy = state
        for operation in transaction {
            try trial.apply(operation)
            try copy.apply(operation)
        }
        #expect(comparableJobs(trial) == comparableJobs(copy))
        #expect(trial.uniqueKeys == copy.uniqueKeys && trial.dependents == copy.dependents)
        #expect(comparableJobs(state) == comparableJobs(before) && state.uniqueKeys == before.uniqueKeys)
        // What the commit asks before appending: every operation, each after the ones before it.
        #expect(
            state.refusal(
                ofTransaction: transaction.map { PlannedOperation($0, payload: $0.writesPayload ? Data() : nil) })
                == nil)
        #expect(
            state.refusal(ofTransaction: [
                PlannedOperation(.cancel(id: "a", at: at)), PlannedOperation(.cancel(id: "c", at: at)),
            ])
                == .wrongState(id: "c", action: .cancel, state: .cancelled))
    }
}
