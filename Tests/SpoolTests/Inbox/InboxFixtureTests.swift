import Foundation
import Testing

@testable import Spool

/// The checked-in fixture of the producer inbox files (`format-2-inbox`): its inbox file is partly
/// ingested (FORMAT.md, *Producer inbox files*), and the log and the snapshot record how far.
@Suite struct InboxFixtureTests {
    @Test func theInboxFixtureHoldsAPartlyIngestedFile() throws {
        let temporary = TemporaryDirectory("inbox-fixture")
        defer { temporary.cleanup() }
        let copy = temporary.path + "/queue"
        try FileManager.default.copyItem(
            atPath: FormatFixture.fixturesDirectory + "/format-2-inbox/queue", toPath: copy)
        let inbox = InboxFormat.directory(ofQueue: copy)
        let names = try FileManager.default.contentsOfDirectory(atPath: inbox)
        #expect(names.count == 1)
        let name = try #require(names.first)
        let bytes = try readFile(inbox + "/" + name)
        let id = try #require(InboxFormat.fileID(fromName: name))
        #expect(Array(bytes.prefix(8)) == Array("SPOOLINB".utf8))
        let state = try QueueDirectory(path: copy, fileSystem: POSIXFileSystem()).inspect(mode: .strict) { $0.state }
        let offset = try #require(state.inboxOffsets[name], "the snapshot keeps the entry of a file that exists")
        let outcome = try bytes.withUnsafeBytes { raw -> InboxScanner.Outcome in
            #expect(try InboxScanner.checkHeader(raw, id: id, path: name))
            return try InboxScanner.scan(raw, id: id, path: name, from: 0)
        }
        #expect(outcome.records.count == 2 && !outcome.hasTornTail)
        #expect(Int(offset) == outcome.records[0].end && offset < Int64(bytes.count))
        guard case .enqueue(let job, let policy) = outcome.records[1].entries.first else {
            Issue.record("the second record is not an enqueue")
            return
        }
        #expect(job.id == "inbox-3" && policy == .append && state.jobs["inbox-3"] == nil)
        // The next open ingests the rest, and only the rest.
        let clock = ManualClock(start: FormatFixture.start)
        var configuration = FormatFixture.configuration(clock: clock)
        configuration.createIfMissing = false
        let queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(try queue.job("inbox-3")?.blockingPrerequisites == ["inbox-1"])
        #expect(try queue.job("inbox-2") != nil)
        // Read to its end: removed once it has settled.
        clock.advance(by: configuration.inboxCheckInterval)
        #expect(try queue.ingestInbox() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).isEmpty)
        try closeChecked(queue)
    }
}
