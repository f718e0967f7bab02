import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Job results (#19 item 1): recorded with the success, bounded, handed to the dependents, kept
/// through reopen and compaction until retention removes the job.
@Suite(.blocking) struct ResultTests {
    static func configuration(_ clock: ManualClock) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.autoCompaction = nil
        return configuration
    }

    @Test func aResultIsDurableThroughReopenAndCompaction() throws {
        let temp = TemporaryDirectory("spool-results")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(clock))
        try queue.enqueue(NewJob(kind: "resize", id: "r"))
        try queue.enqueue(NewJob(kind: "plain", id: "p"))
        let done = try queue.complete(try #require(try queue.claim(kind: "resize")), result: Data("1024x768".utf8))
        #expect(done.state == .succeeded && done.result == Data("1024x768".utf8))
        try queue.complete(try #require(try queue.claim(kind: "plain")))
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(clock))
        #expect(try queue.job("r")?.result == Data("1024x768".utf8))
        #expect(try queue.job("p")?.result == nil)
        clock.advance(by: 1)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(clock))
        #expect(try queue.job("r")?.result == Data("1024x768".utf8), "the snapshot carries the result")
        #expect(try queue.job("p")?.result == nil)
        try closeChecked(queue)
    }

    @Test func aResultOverTheLimitIsATypedErrorAndWritesNothing() throws {
        let temp = TemporaryDirectory("spool-results")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(ManualClock()))
        try queue.enqueue(NewJob(kind: "resize", id: "r"))
        let lease = try #require(try queue.claim())
        let before = try directoryContents(temp.queue)
        expectError(.invalidArgument) { try queue.complete(lease, result: Data(count: JobLimits.maxResultBytes + 1)) }
        #expect(try directoryContents(temp.queue) == before, "nothing written")
        #expect(try queue.job("r")?.state == .running)
        let done = try queue.complete(lease, result: Data(count: JobLimits.maxResultBytes))
        #expect(done.result?.count == JobLimits.maxResultBytes)
        try closeChecked(queue)
    }

    @Test(.onThePool) func theAsyncTwinRecordsAResultAndRefusesAnOversizedOne() async throws {
        let temp = TemporaryDirectory("spool-results")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: Self.configuration(ManualClock()))
        try await queue.enqueue(NewJob(kind: "resize", id: "r"))
        let lease = try #require(try await queue.claim())
        let before = try directoryContents(temp.queue)
        await expectError(.invalidArgument) {
            try await queue.complete(lease, result: Data(count: JobLimits.maxResultBytes + 1))
        }
        #expect(try directoryContents(temp.queue) == before, "nothing written")
        let done = try await queue.complete(lease, result: Data([1, 2]))
        #expect(done.result == Data([1, 2]))
        try closeChecked(queue)
    }

    @Test func aDependentKeepsItsPrerequisitesResultsThroughCompactionAndExpiry() throws {
        let temp = TemporaryDirectory("spool-results")
        defer { temp.cleanup() }
        let clock = ManualClock()
        var configuration = Self.configuration(clock)
        configuration.retention = 60
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "upload", id: "up"))
        try queue.enqueue(NewJob(kind: "thumb", id: "th"))
        try queue.enqueue(NewJob(kind: "publish", id: "pub", dependencies: ["up", "th"]))
        try queue.complete(try #require(try queue.claim(kind: "upload")), result: Data("https://x/1".utf8))
        #expect(try queue.job("pub")?.prerequisiteResults == ["up": Data("https://x/1".utf8)])
        try queue.complete(try #require(try queue.claim(kind: "thumb")))
        // A job enqueued after its prerequisite succeeded gets the result at its enqueue.
        try queue.enqueue(NewJob(kind: "notify", id: "late", dependencies: ["up"]))
        #expect(try queue.job("late")?.prerequisiteResults == ["up": Data("https://x/1".utf8)])
        // Retention expires the prerequisites; the dependents keep their copies.
        clock.advance(by: 120)
        _ = try queue.compact()
        try closeChecked(queue)
        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try queue.job("up") == nil)
        #expect(try queue.job("pub")?.prerequisiteResults == ["up": Data("https://x/1".utf8)])
        #expect(try queue.job("late")?.prerequisiteResults == ["up": Data("https://x/1".utf8)])
        try closeChecked(queue)
    }

    @Test(.onThePool) func aHandlersResultReachesItsDependentsHandler() async throws {
        let fixture = try RuntimeFixture(options: JobRunner.Options(maxConcurrentJobs: 1))
        let received = Locked<[JobID: Data]?>(nil)
        try fixture.runner.register(kind: "upload") { _, context in
            try context.setResult(Data("first".utf8))
            try context.setResult(Data("https://x/photo".utf8))
        }
        try fixture.runner.register(kind: "publish") { _, context in
            received.withLock { $0 = context.prerequisiteResults }
        }
        let upload = try await fixture.queue.enqueue(NewJob(kind: "upload", id: "up"))
        let publish = try await fixture.queue.enqueue(NewJob(kind: "publish", id: "pub", dependencies: [upload]))
        fixture.runner.start()
        await fixture.waitForEvent(after: 0) { $0 == .succeeded(publish) }
        #expect(received.withLock { $0 } == [upload: Data("https://x/photo".utf8)])
        #expect(try fixture.job(upload).result == Data("https://x/photo".utf8), "the last one set")
        #expect(try fixture.job(publish).result == nil)
        try await fixture.tearDown()
    }

    @Test(.onThePool) func aHandlerThatFailsRecordsNoResult() async throws {
        let fixture = try RuntimeFixture(retryPolicy: .table([0], maxAttempts: 1))
        try fixture.runner.register(kind: "upload") { _, context in
            try context.setResult(Data("partial".utf8))
            throw TerminalJobFailure("no network")
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "upload"))
        fixture.runner.start()
        await fixture.waitForEvent(after: 0) { $0.isFailure }
        #expect(try fixture.job(id).state == .failed && fixture.job(id).result == nil)
        try await fixture.tearDown()
    }

    @Test(.onThePool) func anOversizedResultInAHandlerIsATypedError() async throws {
        let context = JobContext(job: Job(kind: "upload", state: .running, attempts: 1))
        #expect(throws: SpoolError.self) { try context.setResult(Data(count: JobLimits.maxResultBytes + 1)) }
        try context.setResult(Data(count: JobLimits.maxResultBytes))
        #expect(context.prerequisiteResults.isEmpty)
    }

    /// The rule lives in the state: a `result` of a job that does not exist does not apply, at
    /// replay as in the engine's trial; a result applies before its `complete` in one record.
    @Test func applyTakesAResultBeforeItsCompleteAndRefusesOneOfAnUnknownJob() throws {
        var state = QueueState()
        #expect(state.refusal(of: .result(id: "x", data: [1])) == .noSuchJob(id: "x", action: .result))
        #expect(throws: Refusal.self) { try state.apply(.result(id: "x", data: [1])) }
        let payload = PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0)
        try state.apply(
            .enqueue(
                .init(
                    id: "a", kind: "k", payload: payload, priority: 0, createdAt: 0, runAt: 0, maxAttempts: 1,
                    uniqueKey: nil)))
        var options = EnqueueOptions()
        options.dependencies = ["a"]
        try state.apply(
            .enqueue(
                .init(
                    id: "b", kind: "k", payload: payload, priority: 0, createdAt: 0, runAt: 0, maxAttempts: 1,
                    uniqueKey: nil, options: options)))
        try state.apply(
            .claim(.init(id: "a", token: 7, claimedAt: 1, expiresAt: 100, monotonicExpiry: 100, bootID: "b")))
        try state.apply(.result(id: "a", data: [9]))
        try state.apply(.complete(id: "a", token: 7, at: 2))
        #expect(state.jobs["a"]?.result == [9])
        #expect(state.jobs["b"]?.prerequisiteResults == ["a": [9]] && state.jobs["b"]?.waitingFor == [])
    }
}

/// The bytes of the result and tag operations are FORMAT.md's (*Results and tags*), and a reader refuses
/// what is out of their ranges.
@Suite(.blocking) struct ResultFormatTests {
    private func decode(_ bytes: [UInt8]) throws -> [LogOperation] {
        try bytes.withUnsafeBytes { try TransactionCodec.decode($0, fileSequence: 1, bodyOffset: 0) }
    }

    @Test func resultOperationBytes() throws {
        let result: [UInt8] = [0x09, 0x01, 0x27, 0x01, 0x6a, 0x02, 0x6f, 0x6b]
        #expect(TransactionCodec.encode([PlannedOperation(.result(id: "j", data: Array("ok".utf8)))]) == result)
        #expect(try decode(result) == [.result(id: "j", data: Array("ok".utf8))])
        let tags: [UInt8] = [0x09, 0x01, 0x26, 0x01, 0x6a, 0x02, 0x01, 0x61, 0x01, 0x62]
        #expect(TransactionCodec.encode([PlannedOperation(.tags(id: "j", tags: ["a", "b"]))]) == tags)
        #expect(try decode(tags) == [.tags(id: "j", tags: ["a", "b"])])
        let kept = LogOperation.prerequisiteResult(id: "j", prerequisite: "p", data: [0, 255])
        #expect(try decode(TransactionCodec.encode([PlannedOperation(kept)])) == [kept])
    }

    @Test func aResultOpcodeInABodyOfVersionEightIsMalformed() {
        #expect(throws: TransactionCodec.Failure.self) { try decode([0x08, 0x01, 0x27, 0x01, 0x6a, 0x02, 0x6f, 0x6b]) }
    }

    @Test func tagsOutOfOrderEmptyOrTooManyAndAnOversizedResultAreUndecodable() {
        // "b" before "a"; the same tag twice; no tag; an empty tag.
        for body: [UInt8] in [
            [0x09, 0x01, 0x26, 0x01, 0x6a, 0x02, 0x01, 0x62, 0x01, 0x61],
            [0x09, 0x01, 0x26, 0x01, 0x6a, 0x02, 0x01, 0x61, 0x01, 0x61],
            [0x09, 0x01, 0x26, 0x01, 0x6a, 0x00],
            [0x09, 0x01, 0x26, 0x01, 0x6a, 0x01, 0x00],
        ] {
            #expect(throws: TransactionCodec.Failure.self, "\(body)") { try decode(body) }
        }
        let many = (0...JobLimits.maxTags).map { String(format: "t%03d", $0) }
        #expect(throws: TransactionCodec.Failure.self) {
            try decode(TransactionCodec.encode([PlannedOperation(.tags(id: "j", tags: many))]))
        }
        let big = [UInt8](repeating: 0, count: JobLimits.maxResultBytes + 1)
        #expect(throws: TransactionCodec.Failure.self) {
            try decode(TransactionCodec.encode([PlannedOperation(.result(id: "j", data: big))]))
        }
    }
}
