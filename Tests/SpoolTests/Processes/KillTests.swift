import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Real processes: a child `spool exercise` enqueues, claims, completes and fails
/// jobs, printing each acknowledgement; it is killed with SIGKILL after a random
/// number of them, and every acknowledged fact must be found on reopen.
@Suite(.serialized, .blocking) struct KillTests {
    static let kills = Int(ProcessInfo.processInfo.environment["SPOOL_KILLS"] ?? "") ?? 200

    @Test func everyAcknowledgedOperationSurvivesKillNine() throws {
        let temp = TemporaryDirectory("spool-kill")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        var generator = SeededGenerator(seed: 99)
        var acknowledged: [String: String] = [:]  // id → last acknowledged event
        for round in 0..<Self.kills {
            let stopAfter = Int.random(in: 1...40, using: &generator)
            let lines = try ChildProcess.runAndKill(
                binary, ["exercise", temp.queue, "--seed", "\(round)"],
                afterLines: stopAfter)
            for line in lines {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                acknowledged[parts[1]] = parts[0]
            }
            let queue = try JobQueue(directory: temp.queue, configuration: Configuration())
            let state = queue.engine.stateSnapshot
            checkInvariants(state)
            #expect(state.runningCount == 0, "round \(round): a running job survived open")
            for (id, event) in acknowledged {
                let job = try #require(try queue.job(JobID(id)), "round \(round): acknowledged job \(id) is missing")
                switch event {
                case "completed": #expect(job.state == .succeeded, "round \(round): \(id) \(job.state)")
                case "failed": #expect(job.state == .failed, "round \(round): \(id) \(job.state)")
                case "claimed", "retrying": #expect(job.attempts >= 1, "round \(round): \(id) lost its attempt")
                default: break
                }
            }
            try closeChecked(queue)
        }
        #expect(acknowledged.count > Self.kills, "the children acknowledged too little to prove anything")
    }
}

extension KillTests {
    @Test func anOpenInAnotherProcessFailsAtOnceWithLocked() throws {
        let temp = TemporaryDirectory("spool-lock")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        var outcome: SpoolError.Code?
        _ = try ChildProcess.runAndKill(binary, ["exercise", temp.queue, "--threads", "1"], afterLines: 3) {
            // The child holds the queue open now.
            do {
                _ = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            } catch let error as SpoolError {
                outcome = error.code
            } catch {}
        }
        #expect(outcome == .locked)
        // Once the child is gone, the lock is free.
        try JobQueue(directory: temp.queue, configuration: testConfiguration()).close()
    }
}
