import Foundation
import Testing

@testable import Spool

/// The command line's tags and results, run as the built executable: `spool enqueue --tag` (repeatable),
/// `spool list --tag`, and `spool show` with a job's tags, result and its prerequisites' results.
@Suite struct ResultAndTagCommandTests {
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
}
