import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The command line's tags and results, run as the built executable: `spool enqueue --tag` (repeatable),
/// `spool list --tag`, `spool cancel --tag`, `spool complete --result`, and `spool show` with a job's tags, result
/// and its prerequisites' results.
@Suite(.blocking) struct ResultAndTagCommandTests {
    @Test func enqueueTagsListByTagAndShowTheResult() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let tagged = try ChildProcess.run(
            binary, ["enqueue", temporary.queue, "--kind", "upload", "--id", "u1", "--tag", "album:7", "--tag", "me"])
        #expect(tagged.status == 0, "\(tagged.output)")
        let plain = try ChildProcess.run(binary, ["enqueue", temporary.queue, "--kind", "upload", "--id", "u2"])
        #expect(plain.status == 0, "\(plain.output)")
        let empty = try ChildProcess.run(binary, ["enqueue", temporary.queue, "--kind", "upload", "--tag="])
        #expect(empty.status != 0)

        var queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        #expect(try queue.job("u1")?.tags == ["album:7", "me"])
        try queue.enqueue(NewJob(kind: "publish", id: "p", dependencies: ["u1"]))
        let lease = try #require(try queue.claim(kind: "upload"))
        #expect(lease.job.id == "u1")
        try queue.complete(lease, result: Data("https://x/1".utf8))
        try closeChecked(queue)

        let list = try ChildProcess.run(binary, ["list", temporary.queue, "--tag", "album:7", "--json"])
        #expect(list.status == 0, "\(list.output)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == ["u1"])
        #expect(listed.first?["tags"] as? [String] == ["album:7", "me"])
        #expect(listed.first?["result"] as? String == "https://x/1")

        let show = try ChildProcess.run(binary, ["show", temporary.queue, "u1"])
        #expect(show.status == 0, "\(show.output)")
        #expect(show.output.contains("tags") && show.output.contains("album:7, me"))
        #expect(show.output.contains(#"11 bytes: "https://x/1""#))
        let dependent = try ChildProcess.run(binary, ["show", temporary.queue, "p"])
        #expect(dependent.output.contains(#"result of u1"#), "\(dependent.output)")
        let json = try ChildProcess.run(binary, ["show", temporary.queue, "u2", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["tags"] as? [String] == [] && object["result"] is NSNull)
        queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        try closeChecked(queue)
    }

    /// `spool cancel DIR --tag TAG` cancels the unfinished jobs with the tag (and their dependents) and prints
    /// them; `spool complete --result` records the text as the job's result; the two ways to name jobs and
    /// the two results are each refused together.
    @Test func cancelByTagAndCompleteWithAResult() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        var queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        try queue.enqueue(NewJob(kind: "upload", id: "a1", tags: ["album:7"]))
        try queue.enqueue(NewJob(kind: "upload", id: "a2", tags: ["album:7", "me"]))
        try queue.enqueue(NewJob(kind: "publish", id: "after", dependencies: ["a2"]))
        try queue.enqueue(NewJob(kind: "upload", id: "other", tags: ["album:8"]))
        try closeChecked(queue)

        let cancelled = try ChildProcess.run(binary, ["cancel", temporary.queue, "--tag", "album:7", "--json"])
        #expect(cancelled.status == 0, "\(cancelled.output)")
        let ids = try #require(try JSONSerialization.jsonObject(with: Data(cancelled.output.utf8)) as? [String])
        #expect(Set(ids) == ["a1", "a2", "after"])
        let both = try ChildProcess.run(binary, ["cancel", temporary.queue, "other", "--tag", "album:8"])
        #expect(both.status != 0)
        let neither = try ChildProcess.run(binary, ["cancel", temporary.queue])
        #expect(neither.status != 0)

        let claim = try ChildProcess.run(binary, ["claim", temporary.queue])
        #expect(claim.status == 0, "\(claim.output)")
        let claimed = try #require(try JSONSerialization.jsonObject(with: Data(claim.output.utf8)) as? [String: Any])
        let token = try #require(claimed["token"] as? String)
        #expect(claimed["id"] as? String == "other")
        let twoResults = try ChildProcess.run(
            binary, ["complete", temporary.queue, "other", "--token", token, "--result", "x", "--result-file", "/"])
        #expect(twoResults.status != 0)
        let completed = try ChildProcess.run(
            binary, ["complete", temporary.queue, "other", "--token", token, "--result", "https://x/8"])
        #expect(completed.status == 0, "\(completed.output)")

        queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        #expect(try queue.jobs(state: .cancelled).map(\.id).sorted() == ["a1", "a2", "after"])
        #expect(try queue.job("other")?.state == .succeeded)
        #expect(try queue.job("other")?.result == Data("https://x/8".utf8))
        try closeChecked(queue)
    }
}
