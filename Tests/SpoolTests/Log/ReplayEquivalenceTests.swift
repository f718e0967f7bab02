import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The live state and the state replay rebuilds from the log are the same,
/// after any sequence of operations.
@Suite(.blocking) struct ReplayEquivalenceTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func replayEqualsTheLiveStateAfterRandomOperations(seed: UInt64) throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var generator = SeededGenerator(seed: seed)
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.retryPolicy = .table([1, 3], maxAttempts: 3)
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        var leases: [Lease] = []
        var ids: [JobID] = []
        for step in 0..<300 {
            let choice = Int.random(in: 0..<100, using: &generator)
            do {
                switch choice {
                case 0..<30:
                    let key = Bool.random(using: &generator) ? "key-\(Int.random(in: 0..<5, using: &generator))" : nil
                    let options = Int.random(in: 0..<8, using: &generator)
                    let dependency = options == 1 || options == 2 ? ids.randomElement(using: &generator) : nil
                    let id = try queue.enqueue(
                        NewJob(
                            kind: ["a", "b"].randomElement(using: &generator)!,
                            payload: Data((0..<Int.random(in: 0..<40, using: &generator)).map { UInt8($0 & 0xFF) }),
                            priority: Int.random(in: -1...1, using: &generator),
                            delay: Double(Int.random(in: 0...3, using: &generator)),
                            uniqueKey: key,
                            uniquePolicy: [.keep, .replace, .append].randomElement(using: &generator)!,
                            dependencies: dependency.map { [$0] } ?? [],
                            constraints: options == 3 ? JobConstraints(requiresNetwork: true) : .none,
                            periodic: options == 4 ? PeriodicSchedule(interval: 900) : nil))
                    ids.append(id)
                case 30..<50:
                    if let lease = try queue.claim(leaseDuration: Double(Int.random(in: 1...10, using: &generator))) {
                        leases.append(lease)
                    }
                case 50..<62:
                    if !leases.isEmpty {
                        try queue.complete(leases.remove(at: Int.random(in: 0..<leases.count, using: &generator)))
                    }
                case 62..<74:
                    if !leases.isEmpty {
                        try queue.fail(
                            leases.remove(at: Int.random(in: 0..<leases.count, using: &generator)),
                            error: "e\(step)", terminal: Int.random(in: 0..<5, using: &generator) == 0)
                    }
                case 74..<79:
                    if let id = ids.randomElement(using: &generator) { try queue.cancel(id) }
                case 79..<84:
                    if let id = ids.randomElement(using: &generator) { try queue.retry(id) }
                case 84..<87:
                    if let id = ids.randomElement(using: &generator) {
                        try queue.reschedule(
                            id, runAt: clock.now().addingTimeInterval(Double(Int.random(in: 0...5, using: &generator))))
                    }
                case 87..<89:
                    if let id = ids.randomElement(using: &generator) { try queue.delete(id) }
                case 89..<93:
                    if let lease = leases.randomElement(using: &generator) { try queue.renew(lease, for: 5) }
                case 93..<95:
                    try queue.reclaimExpiredLeases()
                case 95:
                    try queue.updateDeviceConditions(
                        DeviceConditions(isNetworkAvailable: Bool.random(using: &generator)))
                case 96:
                    if Bool.random(using: &generator) {
                        try queue.cancel(kind: ["a", "b"].randomElement(using: &generator)!)
                    } else {
                        try queue.cancel(uniqueKey: "key-\(Int.random(in: 0..<5, using: &generator))")
                    }
                default:
                    clock.advance(by: Double(Int.random(in: 1...4, using: &generator)))
                }
            } catch let error as SpoolError {
                // Refusals of operations that do not fit (a stale lease, a finished job) are expected.
                // invalidArgument: a prerequisite that was deleted, or a periodic job in a chain.
                let expected: Set<String> = [
                    "leaseLost", "invalidState", "jobNotFound", "uniqueKeyConflict", "invalidArgument",
                ]
                #expect(expected.contains(error.code.name), "step \(step): \(error)")
            }
            if step % 50 == 49 {
                let live = queue.engine.stateSnapshot
                checkInvariants(live)
                let replayed = try LogReplay(directory: temp.queue, fileSystem: POSIXFileSystem(), mode: .strict).run()
                #expect(comparableJobs(replayed.state) == comparableJobs(live), "seed \(seed) step \(step)")
                #expect(replayed.state.uniqueKeys == live.uniqueKeys)
                #expect(replayed.state.earlierKeyCarriers == live.earlierKeyCarriers)
                #expect(replayed.state.dependents == live.dependents)
                #expect(replayed.state.nextSequence == live.nextSequence)
                var liveCopy = live
                var replayedCopy = replayed.state
                replayedCopy.deviceConditions = live.deviceConditions
                #expect(
                    liveCopy.bestReadyJob(at: Millis.from(clock.now()), kind: nil)?.id
                        == replayedCopy.bestReadyJob(at: Millis.from(clock.now()), kind: nil)?.id)
            }
        }
        try closeChecked(queue)
    }
}
