import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The `spool` commands against a queue another process owns (issue #16): reading commands read at once
/// without a lock; `cancel` goes through the inbox like `enqueue`; other changing commands fail at once
/// naming the owner unless `--take-over` takes the role of an owner whose lease expired.
@Suite(.blocking) struct SharedOwnerCommandTests {
    /// A `.shared` owner's configuration; `clock` sets the wall time its lease is recorded in.
    private static func shared(_ clock: ManualClock = ManualClock()) -> Configuration {
        var configuration = Configuration()
        configuration.sharing = .shared
        configuration.clock = clock
        return configuration
    }

    /// A clock far in the past of the commands' real clock: the owner's lease has expired for them.
    private static func expiredClock() -> ManualClock { ManualClock(start: Date(timeIntervalSince1970: 1_600_000_000)) }

    private static func run(_ arguments: [String], _ temporary: TemporaryDirectory) throws -> RawCommand.Result {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        return try RawCommand.run(binary, arguments, scratch: temporary.path)
    }

    @Test(arguments: [
        ["show", "a"], ["show", "a", "--json"], ["list"], ["stats"], ["verify"], ["dump"], ["report", "--html"],
    ])
    func aReadingCommandRunsAtOnceWhileAnExclusiveOwnerHasTheQueueOpen(_ command: [String]) throws {
        let temporary = TemporaryDirectory("cli-read-live")
        defer { temporary.cleanup() }
        // An exclusive owner holds LOCK for as long as the queue is open: a command that took a shared lock
        // would wait for it, then fail with locked.
        let owner = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        try owner.enqueue(NewJob(kind: "k", payload: Data("p".utf8), id: "a"))
        let started = Date()
        let html = command.last == "--html" ? [temporary.path + "/report.html"] : []
        let result = try Self.run([command[0], temporary.queue] + command.dropFirst() + html, temporary)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(command): \(result.status) \(result.error)")
        #expect(elapsed < 4, "\(command) took \(elapsed) s")
        if command[0] == "show" || command[0] == "list" || command[0] == "dump" {
            #expect(result.output.contains("enqueued") || result.output.contains("\"a\""), "\(result.output)")
        }
        try closeChecked(owner)
    }

    @Test func showSeesWhatALiveSharedOwnerWrote() throws {
        let temporary = TemporaryDirectory("cli-show-shared")
        defer { temporary.cleanup() }
        let owner = try JobQueue(directory: temporary.queue, configuration: Self.shared())
        try owner.enqueue(NewJob(kind: "mail", payload: Data("hi".utf8), id: "m1"))
        let lease = try #require(try owner.claim())
        let result = try Self.run(["show", temporary.queue, "m1", "--json"], temporary)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("\"running\""), "\(result.output)")
        _ = try owner.complete(lease)
        let after = try Self.run(["show", temporary.queue, "m1", "--json"], temporary)
        #expect(after.output.contains("\"succeeded\""), "\(after.output)")
        try closeChecked(owner)
    }

    @Test(arguments: [false, true])
    func cancelIntoASharedQueueIsARequestTheOwnerApplies(leaseExpired: Bool) throws {
        let temporary = TemporaryDirectory("cli-cancel-shared")
        defer { temporary.cleanup() }
        let clock = leaseExpired ? Self.expiredClock() : ManualClock()
        let owner = try JobQueue(directory: temporary.queue, configuration: Self.shared(clock))
        try owner.enqueue(NewJob(kind: "mail", id: "m1"))
        let result = try Self.run(["cancel", temporary.queue, "m1"], temporary)
        #expect(result.status == 0 && result.output == "m1\n", "\(result.status) \(result.output) \(result.error)")
        #expect(result.error.contains("request") && result.error.contains("ingests"), "\(result.error)")
        #expect(try owner.job("m1")?.state == .enqueued, "a request: nothing changes before ingestion")
        // The command did not take the owner's role, even with its lease expired.
        try owner.renewOwnership()
        _ = try owner.ingestInbox()
        #expect(try owner.job("m1")?.state == .cancelled)
        let json = try Self.run(["cancel", temporary.queue, "m1", "--json"], temporary)
        #expect(json.status == 0 && json.output == "{\"id\":\"m1\",\"request\":\"cancel\"}\n", "\(json.output)")
        try closeChecked(owner)
    }

    @Test func enqueueIntoASharedQueueWhoseLeaseExpiredGoesThroughTheInbox() throws {
        let temporary = TemporaryDirectory("cli-enqueue-expired")
        defer { temporary.cleanup() }
        let owner = try JobQueue(directory: temporary.queue, configuration: Self.shared(Self.expiredClock()))
        let result = try Self.run(["enqueue", temporary.queue, "--kind", "mail", "--id", "e1"], temporary)
        #expect(result.status == 0 && result.output == "e1\n", "\(result.status) \(result.error)")
        #expect(result.error.contains("inbox"), "\(result.error)")
        try owner.renewOwnership()
        #expect(try owner.ingestInbox() == 1)
        #expect(try owner.job("e1")?.state == .enqueued)
        try closeChecked(owner)
    }

    @Test(arguments: [false, true])
    func aChangingCommandFailsAtOnceNamingTheSharedOwner(leaseExpired: Bool) throws {
        let temporary = TemporaryDirectory("cli-owned")
        defer { temporary.cleanup() }
        let clock = leaseExpired ? Self.expiredClock() : ManualClock()
        let owner = try JobQueue(directory: temporary.queue, configuration: Self.shared(clock))
        try owner.enqueue(NewJob(kind: "mail", id: "m1"))
        let pid = ProcessInfo.processInfo.processIdentifier
        let commands: [[String]] = [
            ["claim", temporary.queue], ["retry", temporary.queue, "m1"], ["compact", temporary.queue],
            ["pause", temporary.queue, "mail"], ["resume", temporary.queue, "mail"],
            ["complete", temporary.queue, "m1", "--token", "0000000000000001"],
            ["fail", temporary.queue, "m1", "--token", "0000000000000001", "--error", "x"],
        ]
        for command in commands {
            let started = Date()
            let result = try Self.run(command, temporary)
            #expect(Date().timeIntervalSince(started) < 4, "\(command[0]) waited")
            #expect(result.status == 1, "\(command[0]): \(result.status)")
            #expect(result.error.contains("ownedElsewhere"), "\(command[0]): \(result.error)")
            #expect(result.error.contains("process \(pid)"), "\(command[0]): \(result.error)")
            #expect(result.error.contains("--take-over"), "\(command[0]): \(result.error)")
            #expect(result.error.contains(leaseExpired ? "expired" : "holds until"), "\(result.error)")
        }
        // None of them took the role.
        try owner.renewOwnership()
        #expect(try owner.job("m1")?.state == .enqueued)
        try closeChecked(owner)
    }

    @Test func takeOverTakesTheRoleOfAnOwnerWhoseLeaseExpiredButNotOfALiveOne() throws {
        let temporary = TemporaryDirectory("cli-take-over")
        defer { temporary.cleanup() }
        let live = try JobQueue(directory: temporary.queue, configuration: Self.shared())
        let refused = try Self.run(["claim", temporary.queue, "--take-over"], temporary)
        #expect(refused.status == 1 && refused.error.contains("ownedElsewhere"), "\(refused.error)")
        try live.close()

        // Due by the command's clock: enqueued at the expired owner's time, long ago.
        let expired = try JobQueue(directory: temporary.queue, configuration: Self.shared(Self.expiredClock()))
        try expired.enqueue(NewJob(kind: "mail", id: "m1"))
        let claimed = try Self.run(["claim", temporary.queue, "--take-over"], temporary)
        #expect(claimed.status == 0 && claimed.output.contains("\"m1\""), "\(claimed.status) \(claimed.error)")
        expectError(.ownershipLost, "the command took the role over") { try expired.renewOwnership() }
        try? expired.close()
    }

    @Test func theUsageTextSaysWhatTheCommandsDo() throws {
        let temporary = TemporaryDirectory("cli-usage-shared")
        defer { temporary.cleanup() }
        let result = try Self.run(["--help"], temporary)
        #expect(!result.output.contains("a command waits up to 5 s for another to finish"), "\(result.output)")
        #expect(result.output.contains("take no lock"), "\(result.output)")
        #expect(result.output.contains("--take-over"), "\(result.output)")
        let verify = try Self.run(["verify", "--help"], temporary)
        #expect(!verify.output.contains("shared lock"), "\(verify.output)")
    }
}
