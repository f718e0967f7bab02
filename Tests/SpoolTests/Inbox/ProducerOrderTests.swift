import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Producer calls are applied in the order they were acknowledged (FORMAT.md, *Producer inbox files*,
/// "Order"): a call that returned before another began, in any producer, is applied first, whatever the
/// names of their inbox files. In one process on a shared ``ManualClock`` that moves between calls, as
/// the system's clock does; the process test (`ProducerOrderProcessTests`) runs it across processes.
@Suite(.blocking) struct ProducerOrderTests {
    static let directory = "/q"

    /// Two producers whose inbox files' names sort against the order of their calls (`late` names its
    /// files `ffff…`, `early` names them `0000…`), and an owner, on one disk and one clock.
    final class Setup {
        let disk = SimulatedDisk()
        let clock = ManualClock()
        let queue: JobQueue
        let first: QueueProducer
        let second: QueueProducer

        init(order: InboxOrder = .merged) throws {
            try disk.createDirectory(at: ProducerOrderTests.directory)
            var configuration = Configuration()
            configuration.fileSystem = disk
            configuration.clock = clock
            configuration.inboxOrder = order
            queue = try JobQueue(directory: ProducerOrderTests.directory, configuration: configuration)
            let counter = Locked(UInt8(0))
            // Every new file of `first` sorts after every file of `second`.
            func ids(_ high: UInt8) -> @Sendable () -> [UInt8] {
                {
                    [high]
                        + [UInt8](
                            repeating: counter.withLock {
                                $0 &+= 1
                                return $0
                            }, count: 15)
                }
            }
            first = try QueueProducer(
                directory: ProducerOrderTests.directory, configuration: configuration, fileIDs: ids(0xff))
            second = try QueueProducer(
                directory: ProducerOrderTests.directory, configuration: configuration, fileIDs: ids(0x00))
        }

        /// Runs one producer call after the clock moved on: each call returns before the next begins.
        func call(_ body: () throws -> Void) throws {
            clock.advance(by: 1e-6)
            try body()
        }
    }

    /// The four chains of the issue, each started by `first` and continued by `second` after it returned.
    /// Returns the chains whose outcome shows the second call applied before the first.
    static func inversions(order: InboxOrder) throws -> [String] {
        let setup = try Setup(order: order)
        let (first, second) = (setup.first, setup.second)
        try setup.call { try first.enqueue(NewJob(kind: "x", id: "append-a", uniqueKey: "k1")) }
        try setup.call {
            try second.enqueue(NewJob(kind: "x", id: "append-b", uniqueKey: "k1", uniquePolicy: .append))
        }
        try setup.call { try first.enqueue(NewJob(kind: "x", id: "replace-a", uniqueKey: "k2")) }
        try setup.call {
            try second.enqueue(NewJob(kind: "x", id: "replace-b", uniqueKey: "k2", uniquePolicy: .replace))
        }
        try setup.call { try first.enqueue(NewJob(kind: "y", id: "cancel-a")) }
        try setup.call { try second.cancel("cancel-a") }
        try setup.call {
            try first.enqueue(contentsOf: [
                NewJob(kind: "y", id: "tag-a", tags: ["t"]), NewJob(kind: "y", id: "tag-b", tags: ["t"]),
            ])
        }
        try setup.call { try second.cancel(tagged: "t") }
        _ = try setup.queue.ingestInbox()
        let queue = setup.queue
        var inverted: [String] = []
        if try queue.job("append-a") == nil || queue.job("append-b")?.blockingPrerequisites != ["append-a"] {
            inverted.append("append")
        }
        if try queue.job("replace-a")?.state != .cancelled || queue.job("replace-b")?.uniqueKey != "k2" {
            inverted.append("replace")
        }
        if try queue.job("cancel-a")?.state != .cancelled { inverted.append("cancel") }
        if try queue.jobs(tagged: "t", state: .cancelled).count != 2 { inverted.append("cancel by tag") }
        try closeChecked(queue)
        return inverted
    }

    @Test func aCallThatReturnedFirstIsAppliedFirstAcrossProducers() throws {
        #expect(try Self.inversions(order: .merged) == [])
    }

    /// The same chains ingested file by file (as builds before producer order did) come out inverted:
    /// the test above would see it.
    @Test func fileByFileTheSameChainsAreInverted() throws {
        #expect(try Self.inversions(order: .fileByFile) == ["append", "replace", "cancel", "cancel by tag"])
    }

    /// A file whose producer holds its lock (mid-call, or stopped there) is read without the lock: its
    /// complete records take their place in the merge, and the other files' later records wait for none.
    @Test func aBusyFilesCompleteRecordsAreMergedInTheirPlace() throws {
        let setup = try Setup()
        try setup.call { try setup.first.enqueue(NewJob(kind: "x", id: "a", uniqueKey: "k")) }
        let inbox = InboxFormat.directory(ofQueue: Self.directory)
        let name = try #require(try setup.disk.contentsOfDirectory(at: inbox).first)
        let held = try setup.disk.openFile(at: inbox + "/" + name, mode: .readWrite)
        #expect(try held.tryLockFile())
        try setup.call {
            try setup.second.enqueue(NewJob(kind: "x", id: "b", uniqueKey: "k", uniquePolicy: .append))
        }
        #expect(try setup.queue.ingestInbox() == 2)
        #expect(try setup.queue.job("b")?.blockingPrerequisites == ["a"])
        held.unlockFile()
        try closeChecked(setup.queue)
    }

    /// A record stamped after the owner read its clock (a producer's call between that reading and the
    /// listing) waits for the next ingestion, and so does every later record of its file.
    @Test func aRecordReadAfterTheOwnersReadingWaitsForTheNextIngestion() throws {
        let disk = SimulatedDisk()
        try ProducerIngestionTests.makeQueue(disk)
        let clock = ManualClock()
        var owner = ProducerIngestionTests.configuration(disk)
        owner.clock = clock
        // The owner's clock moves on by 10 s once it read it and opens a file: a producer's call in between.
        owner.fileSystem = InboxOpenHook(disk: disk) { clock.advance(by: 10) }
        let queue = try JobQueue(directory: Self.directory, configuration: owner)
        var configuration = ProducerIngestionTests.configuration(disk)
        let ahead = ManualClock()
        ahead.advance(by: 10)
        configuration.clock = ahead
        try QueueProducer(directory: Self.directory, configuration: configuration).enqueue(
            NewJob(kind: "x", id: "later"))
        configuration.clock = clock
        try QueueProducer(directory: Self.directory, configuration: configuration).enqueue(
            NewJob(kind: "x", id: "now"))
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.job("now") != nil && queue.job("later") == nil)
        #expect(try queue.ingestInbox() == 1)
        #expect(try queue.job("later") != nil)
        checkInvariants(queue.engine.stateSnapshot)
        try queue.close()
    }

    /// A record of this boot stamped above the owner's clock read after its file (2^64 − 1 ns, say) is no
    /// producer's: `corruption` naming the file and the record's offset, for the ingestion and for `spool
    /// verify`, instead of holding back the records after it for ever; the other files are ingested.
    @Test func aStampAboveTheOwnersClockReadAfterTheFileIsCorruption() throws {
        let temporary = TemporaryDirectory("stamp")
        defer { temporary.cleanup() }
        let clock = SystemClock()
        try JobQueue(directory: temporary.queue, configuration: Configuration()).close()
        let producer = try QueueProducer(directory: temporary.queue)
        try producer.enqueue(NewJob(kind: "x", id: "genuine"))
        // A record stamped 2^64 − 1 ns of this boot, then the genuine one renumbered after it.
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let id = try #require(InboxFormat.fileID(fromName: name))
        let new = NewEnqueue(
            id: "hostile", kind: "x", payload: Data(), priority: 0, createdAt: 0, runAt: 0, maxAttempts: 3,
            uniqueKey: nil)
        let stamp = InboxStamp(bootID: clock.bootIdentifier(), monotonic: .max, at: 0)
        var bytes = try readFile(inbox + "/" + name)
        let genuineEnd = Self.frameEnd(bytes, at: InboxFormat.headerSize)
        var genuine = Array(bytes[InboxFormat.headerSize..<genuineEnd])
        var hostile = InboxCodec.encode(
            [.enqueue(new, InboxTerms())], stamp: stamp, headroom: LogFormat.frameHeaderSize)
        let seed = InboxFormat.checksumSeed(id: id)
        RecordFrame.seal(&hostile, type: .transaction, lsn: 1, groupIndex: 0, seed: seed)
        RecordFrame.seal(&genuine, type: .transaction, lsn: 2, groupIndex: 0, seed: seed)
        bytes = Array(bytes[..<InboxFormat.headerSize]) + hostile + genuine
        try writeFile(inbox + "/" + name, bytes)
        func expectRefused(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) took the file")
            } catch let error as SpoolError {
                #expect(error.code == .corruption && error.path == inbox + "/" + name, "\(what): \(error)")
                #expect(error.offset == Int64(InboxFormat.headerSize), "\(what): \(error)")
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        expectRefused("verify") { _ = try LogInspector.verify(directory: temporary.queue) }
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        #expect(queue.recoveryReport.inboxFilesNotIngested.count == 1)
        expectRefused("ingestion") { _ = try queue.ingestInbox() }
        try queue.close()
    }

    static func frameEnd(_ bytes: [UInt8], at offset: Int) -> Int {
        RecordFrame.end(
            ofFrameAt: offset, bodyLength: bytes.withUnsafeBytes { RecordFrame.declaredBodyLength($0, frameAt: offset) }
        )
    }

    /// Inbox records are numbered 1, 2, 3 … in their file, as the log's are: a record repeated with its number
    /// (after its first copy was ingested, or before) is `corruption` naming the file and the copy's offset,
    /// for the ingestion and for `spool verify`; the job is not ingested twice.
    @Test func aRepeatedInboxRecordNumberIsCorruption() throws {
        let temporary = TemporaryDirectory("numbers")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        let producer = try QueueProducer(directory: temporary.queue, configuration: testConfiguration())
        try producer.enqueue(NewJob(kind: "x", id: "once"))
        #expect(try queue.ingestInbox() == 1)
        let inbox = InboxFormat.directory(ofQueue: temporary.queue)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox).first)
        let path = inbox + "/" + name
        var bytes = try readFile(path)
        let end = Self.frameEnd(bytes, at: InboxFormat.headerSize)
        bytes.replaceSubrange(end..<(2 * end - InboxFormat.headerSize), with: bytes[InboxFormat.headerSize..<end])
        try writeFile(path, bytes)
        for (what, attempt) in [
            ("ingestion", { _ = try queue.ingestInbox() }),
            ("verify", { _ = try LogInspector.verify(directory: temporary.queue) }),
        ] as [(String, () throws -> Void)] {
            do {
                try attempt()
                Issue.record("\(what) took a repeated record")
            } catch let error as SpoolError {
                #expect(
                    error.code == .corruption && error.path == path && error.offset == Int64(end), "\(what): \(error)")
                #expect(error.message.contains("repeated"), "\(what): \(error)")
            }
        }
        #expect(try queue.jobs().count == 1)
        try queue.close()
    }

    /// Records without a stamp (written by builds before producer order) are ingested first, file by file
    /// in name order, as those builds ingested them.
    @Test func recordsOfBuildsBeforeTheStampComeFirst() throws {
        let setup = try Setup()
        try setup.call { try setup.first.enqueue(NewJob(kind: "x", id: "stamped", uniqueKey: "k")) }
        // An old build's file (version 8 record, no stamp), written after.
        let id = [UInt8](repeating: 0x77, count: 16)
        let new = NewEnqueue(
            id: "old", kind: "x", payload: Data(), priority: 0, createdAt: 0, runAt: 0, maxAttempts: 3, uniqueKey: "k")
        var frame = InboxCodec.encode([.enqueue(new, InboxTerms())], stamp: nil, headroom: LogFormat.frameHeaderSize)
        RecordFrame.seal(&frame, type: .transaction, lsn: 1, groupIndex: 0, seed: InboxFormat.checksumSeed(id: id))
        let path = InboxFormat.directory(ofQueue: Self.directory) + "/" + InboxFormat.fileName(id: id)
        try setup.disk.openFile(at: path, mode: .createNew).write(InboxFormat.header(id: id) + frame, at: 0)
        #expect(try setup.queue.ingestInbox() == 1)
        #expect(try setup.queue.job("old") != nil && setup.queue.job("stamped") == nil, "the old record took the key")
        try closeChecked(setup.queue)
    }
}
