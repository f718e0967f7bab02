// An app's tests of its Spool handler, written against the public API only: no `@testable`.
import Foundation
import Spool
import SpoolTestSupport
import Testing

/// A server that answers from a script and records what it was sent.
final class FakeServer: PhotoServer, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int]
    private var sent: [(path: String, key: String)] = []

    init(answers: [Int]) { self.answers = answers }

    func upload(path: String, idempotencyKey: String) async throws -> Int {
        lock.withLock {
            sent.append((path, idempotencyKey))
            return answers.isEmpty ? 200 : answers.removeFirst()
        }
    }

    var calls: [(path: String, key: String)] { lock.withLock { sent } }
}

/// Counts calls from a `@Sendable` closure.
final class Calls<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []
    func append(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}

@Suite struct PhotoUploaderUnitTests {
    /// A claimed job's snapshot, as the runner hands it to the handler.
    let job = Job(id: "photo-1", kind: UploadPhoto.kind, state: .running, attempts: 1)

    @Test func sendsTheJobIDAsIdempotencyKey() async throws {
        let server = FakeServer(answers: [201])
        try await PhotoUploader(server: server).run(UploadPhoto(path: "/a.jpg"), JobContext(job: job))
        #expect(server.calls.map(\.path) == ["/a.jpg"])
        #expect(server.calls.map(\.key) == ["photo-1"])
    }

    @Test func aClientErrorFailsTheJobForGood() async throws {
        let uploader = PhotoUploader(server: FakeServer(answers: [404]))
        await #expect(throws: TerminalJobFailure("the server refused /a.jpg: HTTP 404")) {
            try await uploader.run(UploadPhoto(path: "/a.jpg"), JobContext(job: job))
        }
    }

    @Test func aServerErrorIsRetryable() async throws {
        let uploader = PhotoUploader(server: FakeServer(answers: [503]))
        await #expect(throws: ServerUnavailable.self) {
            try await uploader.run(UploadPhoto(path: "/a.jpg"), JobContext(job: job))
        }
    }

    @Test func aCancelledAttemptSendsNothing() async throws {
        let server = FakeServer(answers: [])
        let context = JobContext(job: job, cancellationReason: { .jobCancelled })
        #expect(context.isCancelled && context.cancellationReason == .jobCancelled)
        await #expect(throws: CancellationError.self) {
            try await PhotoUploader(server: server).run(UploadPhoto(path: "/a.jpg"), context)
        }
        #expect(server.calls.isEmpty)
    }

    @Test func aRetryAsksForALongerLease() async throws {
        let renewals = Calls<TimeInterval?>()
        var retried = job
        retried.attempts = 2
        retried.starts = 2
        let context = JobContext(job: retried, renewLease: { renewals.append($0) })
        #expect(context.attempt == 2 && context.starts == 2 && context.id == "photo-1")
        try await PhotoUploader(server: FakeServer(answers: [200])).run(UploadPhoto(path: "/a.jpg"), context)
        #expect(renewals.all == [600])
        try await PhotoUploader(server: FakeServer(answers: [200])).run(
            UploadPhoto(path: "/a.jpg"), JobContext(job: job, renewLease: { renewals.append($0) }))
        #expect(renewals.all == [600], "a first attempt renews nothing")
    }

    @Test func aLostLeaseStopsTheRetry() async throws {
        let server = FakeServer(answers: [])
        var retried = job
        retried.attempts = 3
        retried.starts = 3
        let context = JobContext(job: retried, renewLease: { _ in throw SpoolError(.leaseLost, "reclaimed") })
        await #expect(throws: SpoolError.self) {
            try await PhotoUploader(server: server).run(UploadPhoto(path: "/a.jpg"), context)
        }
        #expect(server.calls.isEmpty)
    }
}

@Suite(.blocking) struct PhotoViewTests {
    let created = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func statusLines() {
        #expect(statusText(Job(kind: UploadPhoto.kind, createdAt: created)) == "Waiting")
        #expect(
            statusText(Job(kind: UploadPhoto.kind, attempts: 1, nextRetryAt: created + 5))
                == "Retrying (attempt 2 of 5)")
        #expect(
            statusText(Job(kind: UploadPhoto.kind, blockingPrerequisites: ["a", "b"]))
                == "Waiting for 2 other upload(s)")
        let failed = Job(kind: UploadPhoto.kind, state: .failed, attempts: 5, lastError: "HTTP 503")
        #expect(failed.isFailed)
        #expect(statusText(failed) == "Failed after 5 attempts: HTTP 503")
    }

    @Test func aBuiltJobHasTheDefaultsOfAFreshJob() {
        let job = Job(kind: UploadPhoto.kind, createdAt: created)
        #expect(job.state == .enqueued && job.attempts == 0 && job.maxAttempts == RetryPolicy.default.maxAttempts)
        #expect(job.runAt == created && job.dueAt == created && job.occurrence == 1 && !job.isBlocked)
        #expect(job.id != Job(kind: UploadPhoto.kind).id, "each built job gets its own id")
    }

    @Test func backgroundRequestsFollowTheHints() {
        let hints = [
            SchedulingHint(earliestBeginDate: created, jobCount: 2, kinds: ["thumbnail"]),
            SchedulingHint(
                earliestBeginDate: created + 60, requiresNetworkConnectivity: true, kinds: [UploadPhoto.kind]),
        ]
        #expect(
            backgroundRequests(for: hints) == [
                BackgroundRequest(
                    identifier: "app.refresh", earliestBeginDate: created, requiresNetwork: false, requiresPower: false),
                BackgroundRequest(
                    identifier: "app.processing", earliestBeginDate: created + 60, requiresNetwork: true,
                    requiresPower: false),
            ])
    }

    @Test func countsLeaveOutEmptyStates() {
        let counts = QueueCounts(byState: [.enqueued: 3, .failed: 1, .running: 0])
        #expect(counts.total == 4 && counts[.failed] == 1 && counts[.running] == 0)
        #expect(counts.byState.keys.sorted { $0.rawValue < $1.rawValue } == [.enqueued, .failed])
    }

    @Test func aBuiltLeaseCarriesItsPayload() throws {
        let expiry = created + 300
        let lease = Lease(
            job: Job(kind: UploadPhoto.kind, state: .running, attempts: 1, createdAt: created),
            payload: try UploadPhoto.encode(UploadPhoto(path: "/b.jpg")), expiresAt: expiry)
        #expect(try photo(in: lease) == UploadPhoto(path: "/b.jpg"))
        #expect(lease.attempt == 1 && lease.expiresAt == expiry && lease.job.leaseExpiresAt == expiry)
        #expect(lease.job.payloadSize == lease.payload.count)
    }
}

/// A real queue and runner on a manual clock: the test waits on the runner's events, never on time.
@Suite struct PhotoUploadQueueTests {
    /// A queue in a fresh directory, on `clock`.
    static func openQueue(clock: ManualClock) throws -> (JobQueue, String) {
        let directory = FileManager.default.temporaryDirectory.path + "/app-style-\(UUID().uuidString)"
        var configuration = Configuration()
        configuration.clock = clock
        return (try JobQueue(directory: directory, configuration: configuration), directory)
    }

    @Test func aServerErrorIsRetriedAfterTheBackoffThenSucceeds() async throws {
        let clock = ManualClock()
        let (queue, directory) = try Self.openQueue(clock: clock)
        defer {
            try? queue.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let server = FakeServer(answers: [503, 200])
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        let uploader = PhotoUploader(server: server)
        try runner.register(UploadPhoto.self, handler: uploader.run)
        runner.start()

        let id = try await queue.enqueue(UploadPhoto(path: "/c.jpg"))
        await events.wait { $0.contains(.failed(id, error: "the server answered HTTP 503", terminal: false)) }
        let waiting = try #require(try queue.job(id))
        #expect(statusText(waiting) == "Retrying (attempt 2 of 8)")
        let retryAt = try #require(waiting.nextRetryAt)
        #expect(retryAt == clock.now().addingTimeInterval(5), "the kind's policy's first delay")
        #expect(!events.all.contains(.claimed(id, attempt: 2)), "nothing runs before the deadline")

        clock.advance(to: retryAt)
        await events.wait { $0.contains(.succeeded(id)) }
        #expect(events.all.contains(.renewed(id)), "the retry asked for a longer lease")
        #expect(try queue.job(id)?.state == .succeeded)
        #expect(server.calls.map(\.key) == [id.rawValue, id.rawValue], "one idempotency key across attempts")
        await runner.stop()
        #expect(events.all.last == .stopped)
    }

    @Test func aClientErrorEndsTheJobWaitingForAPerson() async throws {
        let clock = ManualClock()
        let (queue, directory) = try Self.openQueue(clock: clock)
        defer {
            try? queue.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        try runner.register(UploadPhoto.self, handler: PhotoUploader(server: FakeServer(answers: [403])).run)
        runner.start()

        let id = try await queue.enqueue(UploadPhoto(path: "/d.jpg"))
        await events.wait(for: 1) { if case .failed(id, _, terminal: true) = $0 { return true } else { return false } }
        await runner.stop()
        #expect(try queue.failedJobs().map(\.id) == [id])
        #expect(try queue.job(id).map(statusText) == "Failed after 1 attempts: the server refused /d.jpg: HTTP 403")
    }
}
