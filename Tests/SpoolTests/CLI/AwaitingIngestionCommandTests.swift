import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool list`, `show`, `stats`, `report` and `verify` on a queue whose inbox holds producers' records
/// the owner has not ingested (issue #32 item 2): they show those jobs, marked as awaiting ingestion with
/// when they were acknowledged, in text and in JSON, and write nothing — not into the inbox either.
@Suite(.blocking) struct AwaitingIngestionCommandTests {
    /// Every file under `directory` (the inbox's included) and its bytes.
    private func contents(of directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory))
        for case let path as String in enumerator {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files[path] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))
            }
        }
        return files
    }

    @Test func readingCommandsShowWhatProducersAcknowledgedAndWriteNothing() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("awaiting-ingestion")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "local", id: "owned"))
        try queue.close()
        let producer = try QueueProducer(directory: temporary.queue)
        try producer.enqueue(NewJob(kind: "upload", payload: Data("photo".utf8), id: "from-extension", tags: ["trip"]))
        let later = try QueueProducer(directory: temporary.queue)
        try later.enqueue(NewJob(kind: "upload", id: "second", uniqueKey: "k"))
        let before = try contents(of: temporary.queue)

        let list = try ChildProcess.run(binary, ["list", temporary.queue])
        #expect(list.status == 0, "\(list.output)")
        #expect(list.output.contains("awaiting ingestion"), "\(list.output)")
        let lines = list.output.split(separator: "\n")
        let extensionLine = try #require(lines.first { $0.hasPrefix("from-extension") })
        let secondLine = try #require(lines.first { $0.hasPrefix("second") })
        #expect(lines.firstIndex(of: extensionLine)! < lines.firstIndex(of: secondLine)!, "in the order acknowledged")
        #expect(lines.contains { $0.hasPrefix("owned") })

        let json = try ChildProcess.run(binary, ["list", temporary.queue, "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let awaiting = array.filter { $0["state"] as? String == "awaitingIngestion" }
        #expect(awaiting.map { $0["id"] as? String } == ["from-extension", "second"])
        #expect(awaiting.allSatisfy { ($0["acknowledgedAt"] as? String)?.isEmpty == false })
        #expect(awaiting.first?["payload"] as? String == "photo" && awaiting.first?["tags"] as? [String] == ["trip"])

        let show = try ChildProcess.run(binary, ["show", temporary.queue, "from-extension"])
        #expect(show.status == 0 && show.output.contains("awaiting ingestion") && show.output.contains("acknowledged"))
        let showJSON = try ChildProcess.run(binary, ["show", temporary.queue, "second", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(showJSON.output.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "awaitingIngestion" && object["uniqueKey"] as? String == "k")

        let stats = try ChildProcess.run(binary, ["stats", temporary.queue])
        #expect(stats.output.contains("awaiting ingestion: 2"), "\(stats.output)")
        let verify = try ChildProcess.run(binary, ["verify", temporary.queue])
        #expect(verify.status == 0 && verify.output.contains("2 producer records sound"), "\(verify.output)")
        let page = temporary.path + "/report.html"
        let report = try ChildProcess.run(binary, ["report", temporary.queue, "--html", page])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(report.status == 0 && html.contains("awaiting ingestion"))

        #expect(try contents(of: temporary.queue) == before, "a reading command wrote into the queue")
    }
}
