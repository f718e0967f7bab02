import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Ownership on the simulated disk: power loss at every I/O step of a takeover, and owners racing
/// (two openers at once; a stale owner writing on several threads while another takes over).
@Suite(.blocking) struct TakeoverCrashTests {
    private static func configuration(_ disk: SimulatedDisk, _ clock: ManualClock) -> Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.fileSystem = disk
        configuration.sharing = .shared
        configuration.logFileSize = 600
        configuration.preallocationChunk = 4096
        configuration.autoCompaction = nil
        return configuration
    }

    private static func owner(_ disk: SimulatedDisk) throws -> OwnerRecord? {
        try OwnershipFence.read("/q/OWNER", fileSystem: disk)
    }

    /// The first owner's queue, its lease expired: the state every crash starts from.
    private static func setUp(_ disk: SimulatedDisk, _ clock: ManualClock) throws -> JobQueue {
        let first = try JobQueue(directory: "/q", configuration: configuration(disk, clock))
        for index in 0..<6 {
            _ = try first.enqueue(NewJob(kind: "k", payload: Data("a\(index)".utf8), id: JobID("a-\(index)")))
        }
        _ = try first.complete(try #require(try first.claim()))
        clock.advance(by: 31)
        return first
    }

    /// The takeover (open, replay, repairs) and the new owner's first writes (enough to roll the log
    /// over), crashed at every I/O step, with the unsynced changes lost, kept, or the last one torn:
    /// the next owner always opens, with a later epoch than any recorded, every job the first owner
    /// acknowledged and each of the second's either whole or absent; the stale first owner never writes.
    @Test func powerLossAtEveryStepOfATakeover() throws {
        let dryDisk = SimulatedDisk()
        let dryClock = ManualClock()
        let dryFirst = try Self.setUp(dryDisk, dryClock)
        let start = dryDisk.steps
        let dry = try JobQueue(directory: "/q", configuration: Self.configuration(dryDisk, dryClock))
        for index in 0..<4 {
            _ = try dry.enqueue(NewJob(kind: "k", payload: Data(repeating: 7, count: 200), id: JobID("b-\(index)")))
        }
        let steps = dryDisk.steps - start
        expectError(.ownershipLost) { try dryFirst.enqueue(NewJob(kind: "k", id: "stale")) }
        try closeChecked(dry)
        #expect(steps >= 8)
        var explored = 0
        for step in 1...steps {
            for survival in ["lost", "kept", "torn"] {
                let disk = SimulatedDisk()
                let clock = ManualClock()
                let first = try Self.setUp(disk, clock)
                disk.crash(atStep: disk.steps + step)
                var acknowledged: [String] = []
                do {
                    let second = try JobQueue(directory: "/q", configuration: Self.configuration(disk, clock))
                    for index in 0..<4 {
                        let id = JobID("b-\(index)")
                        _ = try second.enqueue(NewJob(kind: "k", payload: Data(repeating: 7, count: 200), id: id))
                        acknowledged.append(id.rawValue)
                    }
                } catch let error as SpoolError {
                    #expect(error.errno == EIO || error.code == .needsReopen, "step \(step): \(error)")
                }
                #expect(acknowledged.count < 4, "step \(step) did not crash")
                var surviving: [String: SimulatedDisk.Survival] = [:]
                for file in disk.pendingChanges {
                    switch survival {
                    case "kept": surviving[file.path] = .init(mask: .max, tear: .none)
                    case "torn":
                        let count = file.changes.count
                        surviving[file.path] = .init(mask: (1 << UInt64(min(count, 63))) - 1, tear: .prefix(5))
                    default: break
                    }
                }
                let image = disk.crashImage(surviving)
                let recordedEpoch = try Self.owner(image)?.epoch ?? 0
                // Every process died with the power: the next opener's clock is past every lease.
                clock.advance(by: 61)
                let next = try JobQueue(directory: "/q", configuration: Self.configuration(image, clock))
                let epoch = try #require(try Self.owner(image)).epoch
                #expect(epoch == recordedEpoch + 1 && epoch >= 2, "step \(step) \(survival)")
                let jobs = try next.jobs()
                let ids = Set(jobs.map(\.id.rawValue))
                #expect(Set((0..<6).map { "a-\($0)" }).isSubset(of: ids), "step \(step) \(survival): \(ids)")
                #expect(Set(acknowledged).isSubset(of: ids), "step \(step) \(survival)")
                for job in jobs where job.id.rawValue.hasPrefix("b-") {
                    #expect(try next.payload(of: job.id) == Data(repeating: 7, count: 200))
                }
                #expect(!ids.contains("stale"))
                checkInvariants(next.engine.stateSnapshot)
                _ = try next.enqueue(NewJob(kind: "k", id: "after"))
                try closeChecked(next)
                _ = first  // the stale first owner, on the crashed disk, is never used again
                explored += 1
            }
        }
        #expect(explored == 3 * steps)
        print("takeover crash points: \(steps) I/O steps, \(explored) crash states")
    }

    /// Two openers at once, round after round: exactly one owns the queue, the other is refused.
    @Test func twoOwnersRacingGiveExactlyOne() throws {
        for round in 0..<50 {
            let disk = SimulatedDisk()
            let clock = ManualClock()
            let outcomes = Locked<[String]>([])
            let opened = Locked<[JobQueue]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let queue = try JobQueue(directory: "/q", configuration: Self.configuration(disk, clock))
                    opened.withLock { $0.append(queue) }
                    outcomes.withLock { $0.append("owner") }
                } catch let error as SpoolError {
                    outcomes.withLock { $0.append(error.code.name) }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
            let results = outcomes.withLock { $0 }.sorted()
            #expect(results == ["ownedElsewhere", "owner"], "round \(round): \(results)")
            for queue in opened.withLock({ $0 }) { try closeChecked(queue) }
        }
    }

    /// An owner whose lease has expired enqueues on four threads while another takes over (before, or
    /// at the same time) and writes. Either
    /// the owner's first write renews its lease first (it was not stale: the opener is refused and every
    /// write is the owner's) or the takeover comes first: then every enqueue of the stale owner that
    /// returned is in the log, every one refused with `ownershipLost` is not, and the new owner's live
    /// state equals a replay of the log (a stale record written after its replay would show there).
    @Test func aStaleOwnerWritingWhileAnotherTakesOverInterleavesNothing() throws {
        var takeovers = 0
        for round in 0..<40 {
            let disk = SimulatedDisk()
            let clock = ManualClock()
            let stale = try JobQueue(directory: "/q", configuration: Self.configuration(disk, clock))
            clock.advance(by: 31)
            let acknowledged = Locked<Set<String>>([])
            let refused = Locked<Set<String>>([])
            let newOwner = Locked<Result<JobQueue, SpoolError>?>(nil)
            // Even rounds: the takeover is over before the stale owner's threads start, which then
            // write beside the new owner's writes. Odd rounds: the open itself races with them.
            let openedFirst =
                round % 2 == 0 ? try JobQueue(directory: "/q", configuration: Self.configuration(disk, clock)) : nil
            DispatchQueue.concurrentPerform(iterations: 5) { worker in
                if worker == 4 {
                    do {
                        let owner =
                            try openedFirst ?? JobQueue(directory: "/q", configuration: Self.configuration(disk, clock))
                        for index in 0..<10 { _ = try owner.enqueue(NewJob(kind: "k", id: JobID("new-\(index)"))) }
                        newOwner.withLock { $0 = .success(owner) }
                    } catch let error as SpoolError {
                        newOwner.withLock { $0 = .failure(error) }
                    } catch {
                        Issue.record("\(error)")
                    }
                    return
                }
                for index in 0..<25 {
                    let id = "stale-\(worker)-\(index)"
                    do {
                        _ = try stale.enqueue(NewJob(kind: "k", id: JobID(id)))
                        acknowledged.withLock { _ = $0.insert(id) }
                    } catch let error as SpoolError {
                        #expect(error.code == .ownershipLost, "round \(round): \(error)")
                        refused.withLock { _ = $0.insert(id) }
                    } catch {
                        Issue.record("\(error)")
                    }
                }
            }
            let (done, notDone) = (acknowledged.withLock { $0 }, refused.withLock { $0 })
            #expect(done.count + notDone.count == 100)
            switch newOwner.withLock({ $0 }) {
            case .success(let owner):
                takeovers += 1
                let ids = Set(try owner.jobs().map(\.id.rawValue))
                #expect(done.isSubset(of: ids), "round \(round): acknowledged and lost: \(done.subtracting(ids))")
                #expect(
                    ids.isDisjoint(with: notDone), "round \(round): refused but written: \(ids.intersection(notDone))")
                #expect(Set((0..<10).map { "new-\($0)" }).isSubset(of: ids))
                try? stale.close()
                try closeChecked(owner)
            case .failure(let error):
                #expect(error.code == .ownedElsewhere, "round \(round): \(error)")
                let staleIDs = Set(try stale.jobs().map(\.id.rawValue))
                #expect(notDone.isEmpty && staleIDs == done)
                try closeChecked(stale)
            case nil:
                Issue.record("round \(round): the opener reported nothing")
            }
        }
        #expect(takeovers >= 20)
        print("stale owner against a takeover: \(takeovers) of 40 rounds taken over")
    }
}
