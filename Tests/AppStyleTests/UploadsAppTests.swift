// An uploads app's life, walked with the public API only: background entry and return, a background
// launch that ends idle, transfers parked across a relaunch, a share extension's enqueue, and hints.
import Foundation
import Spool
import Testing

/// A server that holds each upload until the test lets it answer.
final class SlowServer: PhotoServer, @unchecked Sendable {
    private let lock = NSLock()
    private var released = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private(set) var started = 0

    func upload(path: String, idempotencyKey: String) async throws -> Int {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answerNow = lock.withLock {
                    started += 1
                    if released { return true }
                    waiters.append(continuation)
                    return false
                }
                if answerNow { continuation.resume() }
            }
        } onCancel: {
            let pending = lock.withLock {
                defer { waiters = [] }
                return waiters
            }
            for waiter in pending { waiter.resume() }
        }
        try Task.checkCancellation()
        return 200
    }

    /// Lets every upload, waiting or to come, answer.
    func answer() {
        let pending = lock.withLock {
            released = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in pending { waiter.resume() }
    }
}

/// The app's queue in a fresh folder of the temporary directory, on `clock`.
struct AppQueue {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("uploads-app-\(UUID().uuidString)")
    var directory: URL { folder.appendingPathComponent("jobs") }
    let clock = ManualClock()

    var configuration: Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.retryPolicy = .table([30], maxAttempts: 4)
        return configuration
    }

    func open() throws -> JobQueue { try JobQueue(directory: directory, configuration: configuration) }
    func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite struct UploadsAppTests {
    /// The app leaves the foreground in the middle of an upload and comes back, four times: no attempt is spent,
    /// and each run after the first knows it started before.
    @Test func backgroundEntryAndReturnSpendNoAttempt() async throws {
        let app = AppQueue()
        defer { app.remove() }
        let queue = try app.open()
        let server = SlowServer()
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        try runner.register(UploadPhoto.self, handler: PhotoUploader(server: server).run)
        let id = try await queue.enqueue(UploadPhoto(path: "/big.mov"))
        runner.start()
        for start in 1...4 {
            try await events.wait(for: start, timeout: 60) { $0 == .claimed(id, attempt: 1) }
            await runner.suspend()
            #expect(try queue.job(id)?.attempts == 0 && queue.job(id)?.starts == start)
            runner.resume()
        }
        server.answer()
        try await events.wait(for: .finished(id, .succeeded), timeout: 60)
        let job = try #require(try queue.job(id))
        #expect(job.attempts == 1 && job.starts == 5)
        #expect(events.all.contains(.renewed(id)), "a run after an earlier start asked for a longer lease")
        await runner.stop()
        try queue.close()
    }

    /// A background launch runs what is due and completes its task with success once the runner is idle.
    @Test func aLaunchEndsIdleWithSuccess() async throws {
        let app = AppQueue()
        defer { app.remove() }
        let queue = try app.open()
        let server = SlowServer()
        server.answer()
        let runner = try JobRunner(queue: queue)
        try runner.register(UploadPhoto.self, handler: PhotoUploader(server: server).run)
        let ids = try await queue.enqueue(contentsOf: [
            NewJob(UploadPhoto(path: "/1.jpg")), NewJob(UploadPhoto(path: "/2.jpg")),
        ])
        // What the launch handler does: start, wait for idle, complete the task.
        var taskCompleted: Bool?
        runner.start()
        await runner.idle()
        taskCompleted = true
        #expect(taskCompleted == true)
        for id in ids { #expect(try queue.job(id)?.state == .succeeded) }
        await runner.stop()
        try queue.close()
    }

    /// A background transfer is counted once whether it finishes before its handler even returns or after the
    /// app was relaunched; a second report of it changes nothing.
    @Test func aTransferIsCountedOnceBeforeAndAfterARelaunch() async throws {
        let app = AppQueue()
        defer { app.remove() }
        var queue = try app.open()
        let finishedAtOnce = Calls<String>()
        let events = RunnerEvents()
        var runner = try JobRunner(queue: queue, events: events)
        let transfers = Calls<String>()
        let handler: @Sendable (UploadPhoto, JobContext) async throws -> Void = { [queue] photo, context in
            let key = "uploads:\(context.id)"
            try await context.park(key: key, for: 24 * 3600) {
                transfers.append(key)
                // A small file: the session reports before the handler returns.
                if photo.path == "/small.jpg" {
                    try await queue.completeParked(key: key)
                    finishedAtOnce.append(key)
                }
            }
        }
        try runner.register(UploadPhoto.self, handler: handler)
        let small = try await queue.enqueue(UploadPhoto(path: "/small.jpg"))
        let large = try await queue.enqueue(UploadPhoto(path: "/large.mov"))
        runner.start()
        try await events.wait(for: .parked(large, key: "uploads:\(large)"), timeout: 60)
        await runner.idle()
        #expect(try queue.job(small)?.state == .succeeded && queue.job(small)?.attempts == 1)
        #expect(finishedAtOnce.all == ["uploads:\(small)"])
        // The app is killed while the large transfer goes on; the system relaunches it to report.
        await runner.stop()
        try queue.close()
        queue = try app.open()
        runner = try JobRunner(queue: queue)
        try runner.register(UploadPhoto.self) { _, _ in Issue.record("a parked job is not run again") }
        runner.start()
        #expect(try queue.parkedJobs().map(\.id) == [large])
        let done = try await queue.completeParked(key: "uploads:\(large)")
        #expect(done.state == .succeeded && done.attempts == 1)
        await #expect(throws: SpoolError.self) { try await queue.completeParked(key: "uploads:\(large)") }
        #expect(transfers.all.count == 2, "each transfer started once")
        await runner.stop()
        try queue.close()
    }

    /// A share extension enqueues before the app ever ran; the app's first launch finds the job, with the
    /// app's budget for a job that names none.
    @Test func anExtensionEnqueuesBeforeTheAppEverOpenedTheQueue() async throws {
        let app = AppQueue()
        defer { app.remove() }
        let producer = try QueueProducer(directory: app.directory)
        let shared = try await producer.enqueue(
            NewJob(kind: "share-link", payload: Data("https://example.com".utf8)))
        let photo = try await producer.enqueue(UploadPhoto(path: "/shared.jpg"), uniqueKey: "photo:shared")
        let queue = try app.open()
        #expect(try queue.job(shared)?.maxAttempts == 4, "the app's budget, not the extension's default")
        #expect(try queue.job(photo)?.maxAttempts == 8, "the kind's policy gives its budget")
        #expect(try queue.job(photo)?.uniqueKey == "photo:shared")
        try queue.close()
    }

    /// A queue whose only unfinished work is parked asks for no launch before the park's deadline.
    @Test func aParkedJobAsksForNoEarlyLaunch() async throws {
        let app = AppQueue()
        defer { app.remove() }
        let queue = try app.open()
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        try runner.register(UploadPhoto.self) { _, context in
            try await context.park(key: "uploads:\(context.id)", for: 6 * 3600)
        }
        let id = try await queue.enqueue(UploadPhoto(path: "/large.mov"))
        runner.start()
        try await events.wait(for: .parked(id, key: "uploads:\(id)"), timeout: 60)
        await runner.idle()
        let deadline = app.clock.now().addingTimeInterval(6 * 3600)
        #expect(try queue.nextProcessingHint().map { $0.earliestBeginDate >= deadline } ?? true)
        #expect(try queue.schedulingHints().allSatisfy { $0.earliestBeginDate >= deadline })
        await runner.stop()
        try queue.close()
    }

    /// Uploads and settings back off by their own kinds' policies, not the queue's.
    @Test func kindsRetryByTheirOwnPolicies() async throws {
        let app = AppQueue()
        defer { app.remove() }
        let queue = try app.open()
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        try runner.register(UploadPhoto.self, handler: PhotoUploader(server: FakeServer(answers: [503])).run)
        try runner.register(SyncSettings.self) { _, _ in throw ServerUnavailable(status: 502) }
        let upload = try await queue.enqueue(UploadPhoto(path: "/a.jpg"))
        let settings = try await queue.enqueue(SyncSettings(revision: 7))
        runner.start()
        try await events.wait(for: .failed(upload, error: "the server answered HTTP 503", terminal: false), timeout: 60)
        try await events.wait(
            for: .failed(settings, error: "the server answered HTTP 502", terminal: false), timeout: 60)
        await runner.stop()
        let now = app.clock.now()
        #expect(try queue.job(upload)?.nextRetryAt == now.addingTimeInterval(5))
        #expect(try queue.job(settings)?.nextRetryAt == now.addingTimeInterval(1))
        #expect(try queue.job(upload)?.maxAttempts == 8 && queue.job(settings)?.maxAttempts == 3)
        try queue.close()
    }
}
