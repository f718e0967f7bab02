import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Damage is said where a person looks (issue #43 item 4): a command that opens the queue as its owner says
/// on standard error what the open left aside (a damaged inbox file, with its offset and why); `spool list` and
/// `spool stats` show what they can read, name the damaged inbox file on standard error and exit with 1.
@Suite(.blocking) struct DamagedInboxCommandTests {
    @Test func enqueueNamesTheSkippedFileAndListShowsTheRest() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("damaged-inbox-cli")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "k", id: "in-the-log"))
        try queue.close()
        let producer = try QueueProducer(directory: temporary.queue, configuration: testConfiguration())
        for index in 0..<3 { try producer.enqueue(NewJob(kind: "k", id: JobID("inbox-\(index)"))) }
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let path = inbox + "/" + name
        var bytes = try readFile(path)
        let second = try inboxRecords(in: bytes, name: name, path: path)[0].end
        bytes[second + 2] ^= 0xFF
        try writeFile(path, bytes)

        let list = try RawCommand.run(binary, ["list", temporary.queue], scratch: temporary.path)
        #expect(list.status == 1, "\(list.error)")
        #expect(list.output.contains("in-the-log"), "\(list.output)")
        #expect(list.error.contains(path) && list.error.contains("\(second)"), "\(list.error)")
        let stats = try RawCommand.run(binary, ["stats", temporary.queue], scratch: temporary.path)
        #expect(stats.status == 1 && stats.output.contains("enqueued: 1"), "\(stats.output)\(stats.error)")
        #expect(stats.error.contains(path), "\(stats.error)")

        let enqueue = try RawCommand.run(
            binary, ["enqueue", temporary.queue, "--kind", "k", "--id", "added"], scratch: temporary.path)
        #expect(enqueue.status == 0, "\(enqueue.error)")
        #expect(
            enqueue.error.contains("inbox file not ingested: \(path) at offset \(second)"), "\(enqueue.error)")
        print("spool enqueue:\n" + enqueue.output + enqueue.error + "spool list:\n" + list.output + list.error)
    }

    /// Three producers' files, the first and last in name order damaged: every command shows the sound file's
    /// jobs and names both damaged files (the reader does not stop at the first), and exits with 1.
    @Test func everyDamagedFileIsNamedAndTheSoundOnesAreShown() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("damaged-inbox-files")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        try queue.close()
        for producerIndex in 0..<3 {
            let producer = try QueueProducer(directory: temporary.queue, configuration: testConfiguration())
            for index in 0..<2 { try producer.enqueue(NewJob(kind: "k", id: JobID("p\(producerIndex)-\(index)"))) }
        }
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let names = try FileManager.default.contentsOfDirectory(atPath: inbox).filter {
            InboxFormat.fileID(fromName: $0) != nil
        }.sorted()
        try #require(names.count == 3)
        var damaged: [String] = []
        for name in [names[0], names[2]] {
            let path = inbox + "/" + name
            var bytes = try readFile(path)
            let first = try inboxRecords(in: bytes, name: name, path: path)[0]
            bytes[first.end - 1] ^= 0xFF
            try writeFile(path, bytes)
            damaged.append(path)
        }
        let inspected = try LogInspector.withJobs(directory: temporary.queue) { try $0.readableAwaitingIngestion() }
        #expect(inspected.jobs.count == 2)
        #expect(inspected.jobs.allSatisfy { $0.inboxFile == names[1] })
        #expect(inspected.damagedFiles.map(\.path) == damaged)
        #expect(inspected.damagedFiles.allSatisfy { $0.code == .corruption })

        let list = try RawCommand.run(binary, ["list", temporary.queue], scratch: temporary.path)
        #expect(list.status == 1, "\(list.error)")
        #expect(list.output.contains("2 jobs awaiting ingestion"), "\(list.output)")
        let stats = try RawCommand.run(binary, ["stats", temporary.queue], scratch: temporary.path)
        #expect(stats.status == 1 && stats.output.contains("awaiting ingestion: 2"), "\(stats.output)")
        let page = temporary.path + "/report.html"
        let report = try RawCommand.run(
            binary, ["report", temporary.queue, "--html", page], scratch: temporary.path)
        #expect(report.status == 1, "\(report.error)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<b>2</b>awaiting ingestion"))
        for path in damaged {
            for output in [list.error, stats.error, report.error, html] {
                #expect(output.contains(path), "\(output)")
            }
        }
        print("spool list:\n" + list.output + list.error + "spool report:\n" + report.output + report.error)
    }
}
