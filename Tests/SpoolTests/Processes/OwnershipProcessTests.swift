import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Ownership across real processes: child `spool own` processes are `.shared` owners (see
/// ``OwnerChild``); the test process is another. No test sleeps: time is the children's clock
/// offset or this process's ``ManualClock``, and every step waits for a child's answer.
@Suite(.serialized, .blocking) struct OwnershipProcessTests {
    private func sharedConfiguration(clock: any SpoolClock) -> Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.sharing = .shared
        return configuration
    }

    private func enqueuedIDs(_ directory: String) throws -> [String] {
        try LogInspector.records(directory: directory).flatMap(\.operations).filter { $0.name == "enqueue" }
            .map(\.jobID.rawValue)
    }

    /// A stale owner: the child is stopped (SIGSTOP) between calls, its lease expires, this process
    /// takes over and writes; the child is resumed (SIGCONT) and its write is refused with
    /// `ownershipLost`; the log holds nothing of it, and this owner carries on.
    @Test func aStoppedOwnerResumedAfterATakeoverHasItsWriteRefused() throws {
        let temp = TemporaryDirectory("spool-owner-proc")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let child = try OwnerChild(binary, directory: temp.queue, ["--lease", "30"])
        #expect(child.line() == "owner")
        #expect(child.ask("enqueue child-1") == "enqueued child-1")
        #expect(kill(child.pid, SIGSTOP) == 0)
        // The child's process exists (stopped): only its lease's end lets another take over.
        let clock = ManualClock(start: Date().addingTimeInterval(3600))
        let owner = try JobQueue(directory: temp.queue, configuration: sharedConfiguration(clock: clock))
        _ = try owner.enqueue(NewJob(kind: "owned", id: "parent-1"))
        #expect(kill(child.pid, SIGCONT) == 0)
        #expect(child.ask("enqueue child-2") == "refused ownershipLost")
        #expect(child.ask("enqueue child-3") == "refused ownershipLost")
        child.finish()
        _ = try owner.enqueue(NewJob(kind: "owned", id: "parent-2"))
        #expect(try owner.jobs().map(\.id.rawValue) == ["child-1", "parent-1", "parent-2"])
        try closeChecked(owner)
        #expect(try enqueuedIDs(temp.queue) == ["child-1", "parent-1", "parent-2"])
    }

    /// The owner is killed with SIGKILL: its process is gone, so the next opener takes over at once
    /// (its lease has not expired), with every acknowledged job.
    @Test func anOwnerKilledWithSigkillIsTakenOverAtOnce() throws {
        let temp = TemporaryDirectory("spool-owner-proc")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        var acknowledged: [String] = []
        for round in 0..<5 {
            let child = try OwnerChild(binary, directory: temp.queue, ["--lease", "600"])
            #expect(child.line() == "owner", "round \(round)")
            for index in 0..<3 {
                let id = "r\(round)-\(index)"
                if child.ask("enqueue \(id)") == "enqueued \(id)" { acknowledged.append(id) }
            }
            child.send("enqueue r\(round)-unacknowledged")
            child.kill9()
            let epochBefore = try OwnershipFence.read(temp.queue + "/OWNER", fileSystem: POSIXFileSystem())?.epoch
            let owner = try JobQueue(directory: temp.queue, configuration: sharedConfiguration(clock: SystemClock()))
            let epoch = try OwnershipFence.read(temp.queue + "/OWNER", fileSystem: POSIXFileSystem())?.epoch
            #expect(epoch == epochBefore.map { $0 + 1 })
            let ids = Set(try owner.jobs().map(\.id.rawValue))
            #expect(Set(acknowledged).isSubset(of: ids), "round \(round): \(Set(acknowledged).subtracting(ids))")
            try closeChecked(owner)
        }
        #expect(acknowledged.count == 15)
    }

    /// A live owner killed while its lease holds, as seen from a process whose clock has not passed
    /// it, is refused; once the lease has expired (a clock past it), it is taken over.
    @Test func aLiveOwnersLeaseHoldsAgainstAnotherProcessUntilItExpires() throws {
        let temp = TemporaryDirectory("spool-owner-proc")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let child = try OwnerChild(binary, directory: temp.queue, ["--lease", "600"])
        #expect(child.line() == "owner")
        do {
            _ = try JobQueue(directory: temp.queue, configuration: sharedConfiguration(clock: SystemClock()))
            Issue.record("opened while another process's lease held")
        } catch let error as SpoolError {
            #expect(error.code == .ownedElsewhere && error.message.contains("process \(child.pid)"), "\(error)")
        }
        let late = ManualClock(start: Date().addingTimeInterval(601))
        let owner = try JobQueue(directory: temp.queue, configuration: sharedConfiguration(clock: late))
        #expect(child.ask("renew") == "refused ownershipLost")
        child.finish()
        try closeChecked(owner)
    }

    /// Several processes race for the role at once, round after round: exactly one becomes the
    /// owner, the others are refused with `ownedElsewhere`, and only the owner's writes reach the log.
    @Test func processesRacingForTheRoleGiveExactlyOneOwner() throws {
        let temp = TemporaryDirectory("spool-owner-proc")
        defer { temp.cleanup() }
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        var expected: [String] = []
        for round in 0..<10 {
            let children = try (0..<4).map { _ in
                try OwnerChild(binary, directory: temp.queue, ["--lease", "600", "--wait-for-go"])
            }
            for child in children { child.send("go") }
            let answers = children.map { $0.line() }
            #expect(answers.filter { $0 == "owner" }.count == 1, "round \(round): \(answers)")
            #expect(answers.filter { $0 == "refused ownedElsewhere" }.count == 3, "round \(round): \(answers)")
            for (index, child) in children.enumerated() {
                if answers[index] == "owner" {
                    let id = "r\(round)-c\(index)"
                    #expect(child.ask("enqueue \(id)") == "enqueued \(id)")
                    expected.append(id)
                } else {
                    #expect(child.line() == nil, "a refused child exits")
                }
            }
            // The owner dies without closing: the next round's racers find a lease whose process is gone.
            for child in children { child.kill9() }
        }
        #expect(try enqueuedIDs(temp.queue) == expected)
        let last = try JobQueue(directory: temp.queue, configuration: sharedConfiguration(clock: SystemClock()))
        #expect(try last.jobs().map(\.id.rawValue) == expected)
        try closeChecked(last)
    }
}
