import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Job tags (#19 item 2): validated, durable with the job, queried, observed, and cancelled by tag
/// with the chain rule.
@Suite(.blocking) struct TagTests {
    static func configuration(_ clock: ManualClock) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.autoCompaction = nil
        return configuration
    }

    @Test func tagsAreDurableThroughReopenAndCompaction() throws {
        let temp = TemporaryDirectory("spool-tags")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(clock))
        try queue.enqueue(NewJob(kind: "upload", id: "u1", tags: ["album:7", "user:ana"]))
        try queue.enqueue(contentsOf: [
            NewJob(kind: "upload", id: "u2", tags: ["album:7"]), NewJob(kind: "upload", id: "u3"),
        ])
        #expect(try queue.job("u1")?.tags == ["album:7", "user:ana"])
        #expect(try queue.jobs(tagged: "album:7").map(\.id) == ["u1", "u2"])
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(clock))
        #expect(try queue.jobs(tagged: "album:7").map(\.id) == ["u1", "u2"])
        #expect(try queue.jobs(tagged: "user:ana").map(\.id) == ["u1"])
        #expect(try queue.job("u3")?.tags == [])
        try queue.complete(try #require(try queue.claim()))
        clock.advance(by: 1)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(clock))
        #expect(try queue.jobs(tagged: "album:7").map(\.id) == ["u1", "u2"], "the snapshot carries the tags")
        #expect(try queue.jobs(tagged: "album:7", state: .succeeded).map(\.id) == ["u1"])
        #expect(try queue.job("u1")?.tags == ["album:7", "user:ana"])
        try closeChecked(queue)
    }

    @Test func invalidTagsAreTypedErrorsAndWriteNothing() throws {
        let temp = TemporaryDirectory("spool-tags")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(ManualClock()))
        try queue.enqueue(NewJob(kind: "upload", id: "before"))
        let before = try directoryContents(temp.queue)
        let tooMany = Set((0...JobLimits.maxTags).map { "t\($0)" })
        for tags: Set<String> in [[""], [String(repeating: "t", count: JobLimits.maxTagBytes + 1)], tooMany] {
            expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "upload", tags: tags)) }
            expectError(.invalidArgument) {
                try queue.enqueue(contentsOf: [NewJob(kind: "upload"), NewJob(kind: "upload", tags: tags)])
            }
        }
        expectError(.invalidArgument) { try queue.jobs(tagged: "") }
        expectError(.invalidArgument) { try queue.cancel(tagged: String(repeating: "t", count: 129)) }
        #expect(try directoryContents(temp.queue) == before, "nothing written")
        let limits = Set(
            (1...JobLimits.maxTags).map { String(repeating: "é", count: JobLimits.maxTagBytes / 2) + "\($0)" })
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "upload", tags: limits)) }
        let fitting = Set(
            (1...JobLimits.maxTags).map { String(format: "%03d", $0) + String(repeating: "t", count: 125) })
        try queue.enqueue(NewJob(kind: "upload", id: "full", tags: fitting))
        #expect(try queue.job("full")?.tags == fitting)
        try closeChecked(queue)
    }

    @Test func cancelByTagTakesTheDependentsInOneRecord() throws {
        let temp = TemporaryDirectory("spool-tags")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(ManualClock()))
        try queue.enqueue(NewJob(kind: "upload", id: "a", tags: ["album:7"]))
        try queue.enqueue(NewJob(kind: "upload", id: "b", tags: ["album:7"]))
        try queue.enqueue(NewJob(kind: "publish", id: "c", dependencies: ["a"]))
        try queue.enqueue(NewJob(kind: "notify", id: "d", dependencies: ["c"]))
        try queue.enqueue(NewJob(kind: "upload", id: "other", tags: ["album:8"]))
        let running = try #require(try queue.claim(kind: "upload"))
        #expect(running.job.id == "a")
        let lsn = queue.engine.writer.lastAppendedLSN
        let cancelled = try queue.cancel(tagged: "album:7")
        #expect(cancelled.map(\.id) == ["a", "b", "c", "d"])
        #expect(cancelled.allSatisfy { $0.state == .cancelled })
        #expect(queue.engine.writer.lastAppendedLSN == lsn + 1, "one record")
        #expect(try queue.job("other")?.state == .enqueued)
        expectError(.leaseLost) { try queue.complete(running) }
        #expect(try queue.cancel(tagged: "album:7").isEmpty, "nothing unfinished: nothing written")
        #expect(queue.engine.writer.lastAppendedLSN == lsn + 1)
        try closeChecked(queue)
    }

    @Test(.onThePool) func changesFollowATag() async throws {
        let temp = TemporaryDirectory("spool-tags")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(ManualClock()))
        try await queue.enqueue(NewJob(kind: "upload", id: "a", tags: ["album:7"]))
        try await queue.enqueue(NewJob(kind: "upload", id: "b"))
        var changes = queue.changes(.tag("album:7")).makeAsyncIterator()
        #expect(await changes.next() == .updated(try #require(try queue.job("a"))))
        try await queue.cancel("b")
        try await queue.enqueue(NewJob(kind: "upload", id: "c", tags: ["album:7"]))
        #expect(await changes.next() == .updated(try #require(try queue.job("c"))), "b is not followed")
        try await queue.delete("a")
        #expect(await changes.next() == .removed("a"))
        try closeChecked(queue)
    }

    @Test func aProducersTaggedJobIsIngestedWithItsTags() throws {
        let temp = TemporaryDirectory("spool-tags")
        defer { temp.cleanup() }
        var configuration = Self.configuration(ManualClock())
        configuration.sharing = .shared
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        let producer = try QueueProducer(directory: temp.queue, configuration: configuration)
        try producer.enqueue(NewJob(kind: "upload", id: "p1", tags: ["album:7"]))
        try producer.enqueue(contentsOf: [
            NewJob(kind: "upload", id: "p2", uniqueKey: "k", uniquePolicy: .replace, tags: ["b", "a"]),
            NewJob(kind: "upload", id: "p3"),
        ])
        expectError(.invalidArgument) { try producer.enqueue(NewJob(kind: "upload", tags: [""])) }
        #expect(try queue.ingestInbox() == 3)
        #expect(try queue.job("p1")?.tags == ["album:7"])
        #expect(try queue.job("p2")?.tags == ["a", "b"])
        #expect(try queue.job("p3")?.tags == [])
        try closeChecked(queue)
    }
}
