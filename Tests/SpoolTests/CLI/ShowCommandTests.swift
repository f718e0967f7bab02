import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool show`, run as the built executable: every field of a job, for scripts and for people.
@Suite(.blocking) struct ShowCommandTests {
    @Test func aJobsConstraintsPrerequisitesAndScheduleAreShown() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        try queue.enqueue(NewJob(kind: "k", id: "first"))
        let constraints = JobConstraints(
            requiresUnmeteredNetwork: true, requiresCharging: true,
            requiredConditions: ["signed-in"])
        try queue.enqueue(
            NewJob(
                kind: "sync", payload: Data("p".utf8), id: "second", dependencies: ["first"],
                constraints: constraints))
        try queue.enqueue(NewJob(kind: "refresh", id: "third", periodic: PeriodicSchedule(interval: 3600, flex: 600)))
        try closeChecked(queue)

        let json = try ChildProcess.run(binary, ["show", temporary.queue, "second", "--json"])
        #expect(json.status == 0, "\(json.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let shown = try #require(object["constraints"] as? [String: Any])
        #expect(shown["requiresUnmeteredNetwork"] as? Bool == true && shown["requiresCharging"] as? Bool == true)
        #expect(shown["requiresDeviceIdle"] as? Bool == false)
        #expect(shown["requiredConditions"] as? [String] == ["signed-in"])
        #expect(object["blockedBy"] as? [String] == ["first"])
        #expect(object["periodic"] is NSNull && object["occurrence"] as? Int == 1)
        #expect(object["dueAt"] is String && object["finishedAt"] is NSNull && object["leaseExpiresAt"] is NSNull)
        #expect(object["payload"] as? String == "p")

        let repeating = try ChildProcess.run(binary, ["show", temporary.queue, "third", "--json"])
        let third = try #require(try JSONSerialization.jsonObject(with: Data(repeating.output.utf8)) as? [String: Any])
        let periodic = try #require(third["periodic"] as? [String: Any])
        #expect(periodic["intervalSeconds"] as? Double == 3600 && periodic["flexSeconds"] as? Double == 600)
        #expect(third["blockedBy"] as? [String] == [])

        let text = try ChildProcess.run(binary, ["show", temporary.queue, "second"])
        #expect(text.status == 0)
        #expect(
            text.output.contains("requires")
                && text.output.contains("unmetered network, charging, condition signed-in"),
            "\(text.output)")
        #expect(text.output.contains("blocked by") && text.output.contains("first"), "\(text.output)")
        let repeatingText = try ChildProcess.run(binary, ["show", temporary.queue, "third"])
        #expect(repeatingText.output.contains("every 1h (flex 10m), occurrence 1"), "\(repeatingText.output)")
    }

    @Test func showAndListPrintTheLastStopReason() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        try queue.enqueue(NewJob(kind: "upload", id: "expired"))
        try queue.enqueue(NewJob(kind: "upload", id: "fresh"))
        try queue.release(try #require(try queue.claim(kind: "upload")), reason: .systemTimeExpired)
        try closeChecked(queue)

        let show = try ChildProcess.run(binary, ["show", temporary.queue, "expired"])
        #expect(show.status == 0, "\(show.output)")
        let lines = show.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("last stop") && $0.hasSuffix("system time expired") }, "\(show.output)")
        #expect(lines.contains { $0.hasPrefix("attempts") && $0.hasSuffix("0 of 5") }, "given back: \(show.output)")
        let fresh = try ChildProcess.run(binary, ["show", temporary.queue, "fresh"])
        #expect(fresh.output.split(separator: "\n").contains { $0.hasPrefix("last stop") && $0.hasSuffix("-") })
        let json = try ChildProcess.run(binary, ["show", temporary.queue, "expired", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["lastStopReason"] as? String == "system time expired")

        let list = try ChildProcess.run(binary, ["list", temporary.queue])
        #expect(list.status == 0, "\(list.output)")
        let rows = list.output.split(separator: "\n").map(String.init)
        #expect(rows.first?.contains("LAST STOP") == true, "\(list.output)")
        #expect(rows.contains { $0.hasPrefix("expired") && $0.contains("system time expired") }, "\(list.output)")
    }
}
