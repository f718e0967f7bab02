import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Bad input gets a typed error, and nothing is written or changed.
@Suite(.blocking) struct ArgumentTests {
    @Test func everyBadArgumentIsTypedAndWritesNothing() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.maximumPayloadSize = 64
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", id: "existing"))
        let before = try readFile(logFilePath(temp.queue))
        let bad: [(String, NewJob)] = [
            ("empty kind", NewJob(kind: "")),
            ("long kind", NewJob(kind: String(repeating: "k", count: JobLimits.maxKindBytes + 1))),
            ("empty key", NewJob(kind: "k", uniqueKey: "")),
            ("long key", NewJob(kind: "k", uniqueKey: String(repeating: "é", count: JobLimits.maxUniqueKeyBytes))),
            ("empty id", NewJob(kind: "k", id: "")),
            ("payload over the limit", NewJob(kind: "k", payload: Data(count: 65))),
            ("negative delay", NewJob(kind: "k", delay: -1)),
            ("infinite delay", NewJob(kind: "k", delay: .infinity)),
            ("zero attempts", NewJob(kind: "k", maxAttempts: 0)),
            ("huge priority", NewJob(kind: "k", priority: Int(Int32.max) + 1)),
            ("duplicate id", NewJob(kind: "k", id: "existing")),
        ]
        for (name, job) in bad {
            expectError(.invalidArgument, "\(name)") { try queue.enqueue(job) }
        }
        expectError(.jobNotFound) { try queue.cancel("missing") }
        expectError(.jobNotFound) { try queue.retry("missing") }
        expectError(.jobNotFound) { try queue.complete("missing", token: LeaseToken(rawValue: 1)) }
        expectError(.leaseLost) { try queue.complete("existing", token: LeaseToken(rawValue: 1)) }
        expectError(.invalidArgument) { try queue.claim(leaseDuration: -5) }
        expectError(.invalidArgument) { try queue.claim(kind: "") }
        #expect(try readFile(logFilePath(temp.queue)) == before, "a rejected call wrote to the log")
        try closeChecked(queue)
        expectError(.closed) { try queue.enqueue(NewJob(kind: "k")) }
        expectError(.closed) { try queue.jobs() }
    }

    @Test func rejectedCallsLeaveTheLogByteForByte() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "k", id: "done"))
        try queue.complete(try #require(try queue.claim()))
        let before = try readFile(logFilePath(temp.queue))
        expectError(.invalidState) { try queue.cancel("done") }
        expectError(.invalidState) { try queue.retry("done") }
        expectError(.invalidState) { try queue.reschedule("done", runAt: Date()) }
        expectError(.leaseLost) { try queue.complete("done", token: LeaseToken(rawValue: 7)) }
        expectError(.invalidArgument) { try queue.enqueue(NewJob(kind: "")) }
        #expect(try readFile(logFilePath(temp.queue)) == before)
        try closeChecked(queue)
    }

    @Test func directoriesThatAreNotQueues() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var noCreate = testConfiguration()
        noCreate.createIfMissing = false
        expectError(.queueNotFound) { _ = try JobQueue(directory: temp.queue, configuration: noCreate) }
        #expect(!FileManager.default.fileExists(atPath: temp.queue))
        try FileManager.default.createDirectory(atPath: temp.queue, withIntermediateDirectories: true)
        try writeFile(temp.queue + "/notes.txt", Array("mine".utf8))
        expectError(.notAQueue) { _ = try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.queue) == ["notes.txt"])
        let file = temp.path + "/plain-file"
        try writeFile(file, [1])
        expectError(.notAQueue) { _ = try JobQueue(directory: file, configuration: testConfiguration()) }
    }

    @Test func aSecondOpenFailsAtOnceUntilTheFirstCloses() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let first = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        expectError(.locked) { _ = try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        try closeChecked(first)
        let second = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try closeChecked(second)
    }

    @Test func filesAreCreatedPrivateAndLinksAreNotFollowed() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try closeChecked(queue)
        var info = stat()
        #expect(stat(temp.queue, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(stat(logFilePath(temp.queue), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)

        // Replace the log with a link to a file elsewhere: open refuses and leaves both alone.
        let outside = temp.path + "/outside.log"
        try FileManager.default.moveItem(atPath: logFilePath(temp.queue), toPath: outside)
        let original = try readFile(outside)
        try FileManager.default.createSymbolicLink(atPath: logFilePath(temp.queue), withDestinationPath: outside)
        expectError(.notAQueue) { _ = try JobQueue(directory: temp.queue, configuration: testConfiguration()) }
        #expect(try readFile(outside) == original)
    }
}
