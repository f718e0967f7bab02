import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The checked-in fixture of the producer inbox files (`format-2-inbox`): its inbox file is partly
/// ingested (FORMAT.md, *Producer inbox files*), and the log and the snapshot record how far.
@Suite(.blocking) struct InboxFixtureTests {
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
        guard case .enqueue(let job, let terms) = outcome.records[1].entries.first else {
            Issue.record("the second record is not an enqueue")
            return
        }
        #expect(job.id == "inbox-3" && terms.policy == .append && state.jobs["inbox-3"] == nil)
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

/// The checked-in fixture of producer order (`format-2-order`): two inbox files of body version 10 records,
/// each starting with `acknowledged`, one a `cancel_tagged`, whose names sort against the order of their calls.
@Suite(.blocking) struct OrderFixtureTests {
    /// Each inbox file's records, decoded.
    private func records(of queue: String) throws -> [String: [InboxScanner.Record]] {
        let inbox = InboxFormat.directory(ofQueue: queue)
        var found: [String: [InboxScanner.Record]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: inbox) {
            let id = try #require(InboxFormat.fileID(fromName: name))
            let bytes = try readFile(inbox + "/" + name)
            found[name] = try bytes.withUnsafeBytes { raw in
                #expect(try InboxScanner.checkHeader(raw, id: id, path: name))
                return try InboxScanner.scan(raw, id: id, path: name, from: 0).records
            }
        }
        return found
    }

    @Test func theFixtureHoldsStampedRecordsWhoseFileNamesSortAgainstTheirOrder() throws {
        let temporary = TemporaryDirectory("order-fixture")
        defer { temporary.cleanup() }
        let copy = temporary.path + "/queue"
        try FileManager.default.copyItem(
            atPath: FormatFixture.fixturesDirectory + "/format-2-order/queue", toPath: copy)
        let files = try records(of: copy)
        let x = try #require(files["eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.inbox"])
        let y = try #require(files["11111111111111111111111111111111.inbox"])
        #expect(x.count == 3 && y.count == 2)
        let stamps = (x + y).compactMap(\.stamp).sorted { $0.monotonic < $1.monotonic }
        #expect(stamps.count == 5 && Set(stamps.map(\.bootID)) == ["boot-0"])
        // The calls alternate x, y, x, y, x: each reading is above the one before it, across the two files.
        #expect(stamps.map(\.monotonic) == [x[0], y[0], x[1], y[1], x[2]].map { $0.stamp!.monotonic })
        #expect(y[1].entries == [.cancelTagged(tag: "trip", at: Millis.from(FormatFixture.start) + 4000)])
        // The raw bytes: version 10, then `acknowledged` first.
        let bytes = try readFile(InboxFormat.directory(ofQueue: copy) + "/11111111111111111111111111111111.inbox")
        let body = InboxFormat.headerSize + LogFormat.frameHeaderSize
        #expect(bytes[body] == 10 && bytes[body + 2] == 42)
    }

    /// Opened file by file (as builds before producer order ingested), the same bytes give another state:
    /// the fixture pins the merge.
    @Test func fileByFileTheFixtureWouldOpenToAnotherState() throws {
        let temporary = TemporaryDirectory("order-fixture-unmerged")
        defer { temporary.cleanup() }
        let copy = temporary.path + "/queue"
        try FileManager.default.copyItem(
            atPath: FormatFixture.fixturesDirectory + "/format-2-order/queue", toPath: copy)
        let clock = ManualClock(start: FormatFixture.start)
        clock.advance(by: 5)
        var configuration = FormatFixture.configuration(clock: clock)
        configuration.inboxOrder = .fileByFile
        let queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(try queue.job("order-1") == nil, "dropped: order-2, ingested first, held the key")
        #expect(try queue.job("order-3")?.state == .enqueued, "its cancel by tag came first")
        try closeChecked(queue)
    }
}

/// The checked-in fixture of a producer's terms (`format-2-terms`): inbox records of body version 12 holding
/// `owner_attempts` and `park_on_ingest`, ingested into claims and parks, and one of version 10.
@Suite(.blocking) struct TermsFixtureTests {
    /// The body version of each record of the inbox file `name` of `queue`, and the records.
    private func records(_ name: String, of queue: String) throws -> (versions: [UInt8], records: [InboxScanner.Record])
    {
        let path = InboxFormat.directory(ofQueue: queue) + "/" + name
        let bytes = try readFile(path)
        let id = try #require(InboxFormat.fileID(fromName: name))
        let outcome = try bytes.withUnsafeBytes { try InboxScanner.scan($0, id: id, path: path, from: 0) }
        var start = InboxFormat.headerSize
        var versions: [UInt8] = []
        for record in outcome.records {
            versions.append(bytes[start + LogFormat.frameHeaderSize])
            start = record.end
        }
        return (versions, outcome.records)
    }

    @Test func theTermsFixtureHoldsRecordsOfVersionTwelveAndTheirIngestion() throws {
        let temporary = TemporaryDirectory("terms-fixture")
        defer { temporary.cleanup() }
        let copy = temporary.path + "/queue"
        try FileManager.default.copyItem(
            atPath: FormatFixture.fixturesDirectory + "/format-2-terms/queue", toPath: copy)
        let x = try records(String(repeating: "a", count: 32) + ".inbox", of: copy)
        #expect(x.versions == [12, 12, 12])
        let terms = x.records.compactMap { record -> InboxTerms? in
            guard case .enqueue(_, let terms)? = record.entries.first else { return nil }
            return terms
        }
        #expect(terms.map(\.ownerAttempts) == [true, true, false])
        #expect(terms.map { $0.park?.key } == ["upload:1", "taken", "upload:3"])
        #expect(terms[2].policy == .replace)
        // The tags follow the terms.
        #expect(x.records[0].entries.count == 2)
        let y = try records(String(repeating: "b", count: 32) + ".inbox", of: copy)
        #expect(y.versions == [12, 10])

        let state = try QueueDirectory(path: copy, fileSystem: POSIXFileSystem()).inspect(mode: .strict) { $0.state }
        #expect(state.jobs["terms-1"]?.park?.key == "upload:1" && state.jobs["terms-1"]?.maxAttempts == 3)
        #expect(state.jobs["terms-2"]?.state == .enqueued && state.jobs["terms-2"]?.maxAttempts == 3)
        #expect(state.jobs["terms-3"]?.park?.key == "upload:3" && state.jobs["terms-3"]?.maxAttempts == 2)
        #expect(state.jobs["terms-4"] == nil)

        // Past the second producer's calls, by the clock that stamped them.
        let clock = ManualClock(start: FormatFixture.start)
        clock.advance(by: 10)
        var configuration = FormatFixture.configuration(clock: clock)
        configuration.createIfMissing = false
        let queue = try JobQueue(directory: copy, configuration: configuration)
        #expect(try queue.job("terms-4")?.maxAttempts == 3)
        #expect(try queue.job("terms-5")?.maxAttempts == 1)
        #expect(try queue.completeParked(key: "upload:1").state == .succeeded)
        try closeChecked(queue)
    }
}
