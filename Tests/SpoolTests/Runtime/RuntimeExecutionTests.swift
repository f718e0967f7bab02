import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The worker runtime runs handlers and records what they return: once per claimed job,
/// within its concurrency limits, typed parameters decoded, failures classified.
@Suite struct RuntimeExecutionTests {
    @Test func eachJobRunsOnceWithItsDecodedParametersAndItsIDAsIdempotencyKey() async throws {
        let fixture = try RuntimeFixture()
        let seen = Locked<[(JobID, UploadPhoto, Int)]>([])
        try fixture.runner.register(UploadPhoto.self) { photo, context in
            #expect(context.job.state == .running && context.job.kind == UploadPhoto.kind)
            seen.withLock { $0.append((context.id, photo, context.attempt)) }
        }
        let photos = (1...3).map { UploadPhoto(path: "/photos/\($0).heic", size: $0 * 100) }
        var ids: [JobID] = []
        for photo in photos { ids.append(try await fixture.queue.enqueue(photo)) }
        // The log holds opaque bytes: the JSON of the parameters, keys sorted.
        #expect(
            String(decoding: try fixture.queue.payload(of: ids[0]), as: UTF8.self)
                == #"{"path":"\/photos\/1.heic","size":100}"#)
        fixture.runner.start()
        await fixture.events.wait(for: 3) { $0.isSuccess }
        let runs = seen.withLock { $0 }
        #expect(runs.count == 3)
        #expect(Set(runs.map(\.0)) == Set(ids), "each job once, by its own id")
        for (id, photo, attempt) in runs {
            #expect(photos[ids.firstIndex(of: id)!] == photo)
            #expect(attempt == 1)
            #expect(try fixture.job(id).state == .succeeded)
        }
        try await fixture.tearDown()
        #expect(seen.withLock { $0.count } == 3, "nothing ran twice")
    }

    @Test func typedJobsEnqueueInBatchesAndKeepTheirOptions() async throws {
        let fixture = try RuntimeFixture()
        let ids = try await fixture.queue.enqueue(contentsOf: [
            try NewJob(UploadPhoto(path: "a", size: 1), id: "first", priority: 3, uniqueKey: "photo:a"),
            try NewJob(UploadPhoto(path: "a", size: 2), uniqueKey: "photo:a"),
        ])
        #expect(ids == ["first", "first"], "the unique key applies to typed jobs too")
        let job = try fixture.job("first")
        #expect(job.kind == UploadPhoto.kind && job.priority == 3)
        #expect(try UploadPhoto.decode(try fixture.queue.payload(of: "first")) == UploadPhoto(path: "a", size: 1))
        try await fixture.tearDown()
    }

    @Test func concurrencyLimitsOverallAndPerKindAreNeverExceeded() async throws {
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 3))
        struct Counts { var total = 0, maxTotal = 0, perKind: [String: Int] = [:], maxPerKind: [String: Int] = [:] }
        let counts = Locked(Counts())
        let permits = Locked(0)
        let checkpoints = Checkpoints()
        let handler: @Sendable (Data, JobContext) async throws -> Void = { _, context in
            let kind = context.job.kind
            counts.withLock { counts in
                counts.total += 1
                counts.maxTotal = max(counts.maxTotal, counts.total)
                counts.perKind[kind, default: 0] += 1
                counts.maxPerKind[kind] = max(counts.maxPerKind[kind] ?? 0, counts.perKind[kind]!)
            }
            checkpoints.reach("started")
            // Wait for a permit from the test.
            while permits.withLock({ permits in
                if permits > 0 {
                    permits -= 1
                    return false
                }
                return true
            }) {
                await checkpoints.wait(for: "permit", count: checkpoints.count("permit") + 1)
            }
            counts.withLock { counts in
                counts.total -= 1
                counts.perKind[kind]! -= 1
            }
        }
        try fixture.runner.register(kind: "a", options: .init(maxConcurrentJobs: 1), handler: handler)
        try fixture.runner.register(kind: "b", handler: handler)
        for index in 0..<4 { try await fixture.queue.enqueue(NewJob(kind: "a", id: JobID("a\(index)"))) }
        for index in 0..<5 { try await fixture.queue.enqueue(NewJob(kind: "b", id: JobID("b\(index)"))) }
        fixture.runner.start()
        // Three start (one a, two b) and the runner waits: no slot is free.
        await checkpoints.wait(for: "started", count: 3)
        await fixture.waitForIdle(after: 0)
        #expect(counts.withLock { ($0.total, $0.perKind["a"]) } == (3, 1))
        for finished in 1...9 {
            permits.withLock { $0 += 1 }
            checkpoints.reach("permit")
            await fixture.events.wait(for: finished) { $0.isSuccess }
        }
        let final = counts.withLock { $0 }
        #expect(final.maxTotal == 3, "the overall limit is reached and never exceeded")
        #expect(final.maxPerKind["a"] == 1, "kind a never runs twice at once")
        #expect((2...3).contains(final.maxPerKind["b"] ?? 0), "kind b takes the slots kind a may not")
        #expect(try fixture.queue.counts()[.succeeded] == 9)
        try await fixture.tearDown()
    }

    @Test func aTerminalFailureEndsTheJobFailedWithItsReason() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "charge") { _, _ in throw TerminalJobFailure("the card was declined") }
        let id = try await fixture.queue.enqueue(NewJob(kind: "charge"))
        fixture.runner.start()
        await fixture.events.wait { $0.isFailure }
        let job = try fixture.job(id)
        #expect(job.state == .failed && job.isFailed)
        #expect(job.attempts == 1 && job.maxAttempts == 5, "terminal, with attempts left")
        #expect(job.lastError == "the card was declined")
        #expect(fixture.events.all.contains(.failed(id, error: "the card was declined", terminal: true)))
        try await fixture.tearDown()
    }

    @Test func aThrownErrorIsARetryableFailure() async throws {
        struct Offline: Error, CustomStringConvertible { var description: String { "offline" } }
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "sync") { _, _ in throw Offline() }
        let id = try await fixture.queue.enqueue(NewJob(kind: "sync"))
        let start = fixture.clock.now()
        fixture.runner.start()
        await fixture.events.wait { $0.isFailure }
        let job = try fixture.job(id)
        #expect(job.state == .enqueued && job.attempts == 1 && job.lastError == "offline")
        #expect(job.nextRetryAt == start.addingTimeInterval(5))
        try await fixture.tearDown()
    }

    @Test func aPayloadThatNoLongerDecodesIsATerminalFailureAndTheHandlerIsNotCalled() async throws {
        let fixture = try RuntimeFixture()
        let called = Locked(false)
        try fixture.runner.register(UploadPhoto.self) { _, _ in called.withLock { $0 = true } }
        // An older build wrote other parameters under the same kind.
        let id = try await fixture.queue.enqueue(NewJob(kind: UploadPhoto.kind, payload: Data(#"{"file":"x"}"#.utf8)))
        fixture.runner.start()
        await fixture.events.wait { $0.isFailure }
        let job = try fixture.job(id)
        #expect(job.state == .failed && job.attempts == 1 && job.nextRetryAt == nil, "never a retry loop")
        #expect(
            job.lastError?.hasPrefix("undecodable payload: the parameters of kind upload-photo do not decode") == true)
        #expect(called.withLock { $0 } == false)
        try await fixture.tearDown()
    }

    @Test func jobsOfUnknownKindsWaitByDefaultAndRunOnceAHandlerIsRegistered() async throws {
        let fixture = try RuntimeFixture()
        try fixture.runner.register(kind: "known") { _, _ in }
        let mystery = try await fixture.queue.enqueue(NewJob(kind: "mystery", priority: 5))
        let known = try await fixture.queue.enqueue(NewJob(kind: "known"))
        fixture.runner.start()
        await fixture.events.wait { $0 == .succeeded(known) }
        await fixture.waitForIdle(after: fixture.eventCount)
        #expect(try fixture.job(mystery).state == .enqueued)
        #expect(try fixture.job(mystery).attempts == 0, "never claimed")
        #expect(try fixture.runner.unhandledJobs().map(\.id) == [mystery])
        #expect(!fixture.events.all.contains(where: { $0.jobID == mystery }))
        try fixture.runner.register(kind: "mystery") { _, _ in }
        await fixture.events.wait { $0 == .succeeded(mystery) }
        #expect(try fixture.runner.unhandledJobs().isEmpty)
        try await fixture.tearDown()
    }

    @Test func jobsOfUnknownKindsFailForGoodWhenConfigured() async throws {
        let fixture = try RuntimeFixture(options: .init(unknownKinds: .fail))
        try fixture.runner.register(kind: "known") { _, _ in }
        let mystery = try await fixture.queue.enqueue(NewJob(kind: "mystery"))
        let known = try await fixture.queue.enqueue(NewJob(kind: "known"))
        fixture.runner.start()
        await fixture.events.wait { $0 == .succeeded(known) }
        await fixture.events.wait { $0.isFailure }
        try await fixture.events.wait(for: .finished(mystery, .failed), timeout: hangGuard)
        let job = try fixture.job(mystery)
        #expect(job.state == .failed && job.nextRetryAt == nil, "terminal: never a retry loop")
        #expect(job.attempts == 1, "the claim used to fail it counts one attempt")
        #expect(job.lastError == "unknown kind: no handler is registered for kind mystery")
        #expect(fixture.events.all.filter { $0.jobID == mystery }.count == 3, "claimed, failed, finished: nothing else")
        try await fixture.tearDown()
    }
}
