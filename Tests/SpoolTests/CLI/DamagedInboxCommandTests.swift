import Foundation
import Testing

@testable import Spool

/// Damage is said where a person looks (issue #43 item 4): a command that opens the queue as its owner says
/// on standard error what the open left aside (a damaged inbox file, with its offset and why); `spool list` and
/// `spool stats` show what they can read, name the damaged inbox file on standard error and exit with 1.
@Suite struct DamagedInboxCommandTests {
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
        let second = try bytes.withUnsafeBytes { raw in
            try InboxScanner.scan(raw, id: InboxFormat.fileID(fromName: name)!, path: path, from: 0).records[0].end
        }
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
}
