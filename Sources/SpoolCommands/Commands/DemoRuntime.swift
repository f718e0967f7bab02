import Dispatch
import Foundation
import Spool

/// The demo's typed job: a photo to resize, stored as JSON.
struct ResizePhoto: JobKind {
    static let kind = "resize-photo"
    var name: String
    var width: Int
}

/// An error whose description is its message.
private struct DemoError: Error, CustomStringConvertible {
    let description: String
}

/// The steps of `spool demo` that show the worker runtime: a ``JobRunner`` on the
/// demo's manual clock. The demo waits on the runner's events, never on time.
struct RuntimeDemo: DemoNarration, Sendable {
    let queue: JobQueue
    let clock: ManualClock
    /// The instant shown as t+0s.
    let start: Date
    let console: Console

    /// Runs steps 7 to 10, then stops the runner.
    func run() async throws {
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, options: .init(maxConcurrentJobs: 2), events: events)
        try register(on: runner)
        try await handlers(runner, events)
        try await backoff(events)
        try await cancelRunning(events)
        try await chain(events)
        step("Stop the runner, letting running handlers finish")
        await runner.stop(.finishRunning)
        say(
            "stopped: \(runner.isRunning ? "still running (unexpected)" : "no handler left running"), "
                + "\(try queue.jobs(state: .running).count) jobs running")
    }

    /// The demo's handlers.
    private func register(on runner: JobRunner) throws {
        try runner.register(kind: "publish-album") { _, _ in }
        try runner.register(kind: "notify-friends") { _, _ in }
        try runner.register(kind: "convert-video") { _, _ in throw TerminalJobFailure("unsupported codec: ProRes RAW") }
        try runner.register(ResizePhoto.self) { _, _ in }
        try runner.register(kind: "flaky-upload") { _, context in
            if context.attempt < 4 { throw DemoError(description: "HTTP 503 from the upload server") }
        }
        try runner.register(kind: "long-upload") { [clock] _, _ in
            // An upload that takes a day of demo time: only cancellation ends it early.
            try await clock.sleep(until: clock.now().addingTimeInterval(86_400))
        }
    }

    /// Step 7: typed jobs run by their handler, two at a time.
    private func handlers(_ runner: JobRunner, _ events: RunnerEvents) async throws {
        step("7. A worker runtime: JobRunner with handlers by kind, at most 2 at once")
        say("handlers: resize-photo (typed: ResizePhoto {name, width}), flaky-upload, long-upload")
        let ids = [
            try await queue.enqueue(ResizePhoto(name: "beach.heic", width: 1024), id: "resize-beach"),
            try await queue.enqueue(ResizePhoto(name: "dunes.heic", width: 2048), id: "resize-dunes"),
        ]
        runner.start()
        say("start → the runner claims due jobs; when none is due it sleeps until the next deadline or change")
        await events.wait { events in ids.allSatisfy { events.contains(.succeeded($0)) } }
        for id in ids {
            let payload = String(decoding: try queue.payload(of: id), as: UTF8.self)
            say("\(id) payload \(payload) → \(try job(id).state.rawValue), attempt \(try job(id).attempts)")
        }
        let unhandled = try runner.unhandledJobs().map(\.id.rawValue).joined(separator: ", ")
        say("no handler for kind sync: its job waits, enqueued; runner.unhandledJobs() → [\(unhandled)]")
    }

    /// Step 8: a handler that fails three times; the demo moves the clock to each retry deadline.
    private func backoff(_ events: RunnerEvents) async throws {
        step("8. flaky-upload fails until its fourth attempt (backoff 5s, 15s, 45s, …)")
        let id = try await queue.enqueue(NewJob(kind: "flaky-upload", id: "upload-video"))
        for attempt in 1... {
            await events.wait { events in
                events.filter { event in
                    switch event {
                    case .succeeded(id), .failed(id, _, _): return true
                    default: return false
                    }
                }.count >= attempt
            }
            let job = try job(id)
            guard let retry = job.nextRetryAt else {
                say("\(t(clock.now()).padding(8)) attempt \(attempt)/\(job.maxAttempts) → \(job.state.rawValue)")
                break
            }
            say(
                "\(t(clock.now()).padding(8)) attempt \(attempt)/\(job.maxAttempts) failed (\(job.lastError ?? "")) "
                    + "→ next retry \(t(retry))")
            await events.wait { $0.last == .waiting(until: retry) }
            say(
                "\(t(clock.now()).padding(8)) the runner sleeps until \(t(retry)) exactly; the demo moves the clock there"
            )
            clock.advance(to: retry)
        }
    }

    /// Step 9: cancelling a job while its handler runs.
    private func cancelRunning(_ events: RunnerEvents) async throws {
        step("9. Cancel a running job: its handler's task is cancelled, its result discarded")
        let id = try await queue.enqueue(NewJob(kind: "long-upload", id: "upload-album"))
        await events.wait { $0.contains(.claimed(id, attempt: 1)) }
        say("upload-album → \(try job(id).state.rawValue), attempt 1, its handler mid-upload")
        let cancelled = try await queue.cancel(id)
        say("cancel upload-album → \(cancelled.state.rawValue), durably")
        await events.wait { $0.contains(.discarded(id)) }
        let reason = events.all.lazy.compactMap { event -> JobContext.CancellationReason? in
            if case .cancelledHandler(id, let reason) = event { return reason }
            return nil
        }.first
        say(
            "the runner saw the change and cancelled the handler (\(reason.map { "\($0)" } ?? "?")); "
                + "what it returned was discarded")
        say(
            "upload-album is \(try job(id).state.rawValue), attempts \(try job(id).attempts)/\(try job(id).maxAttempts)"
        )
    }

    /// Step 10: chains. A job runs only after its prerequisites succeed and while its
    /// constraints hold; a prerequisite that fails for good cancels the jobs waiting for it.
    private func chain(_ events: RunnerEvents) async throws {
        step("10. A chain: resize → publish (needs a network) → notify; a failed prerequisite cancels its dependents")
        let resize = try await queue.enqueue(ResizePhoto(name: "album-cover.heic", width: 512), id: "resize-cover")
        let publish = try await queue.enqueue(
            NewJob(
                kind: "publish-album", id: "publish-album", dependencies: [resize],
                constraints: JobConstraints(requiresNetwork: true)))
        let notify = try await queue.enqueue(
            NewJob(kind: "notify-friends", id: "notify-friends", dependencies: [publish]))
        say("publish-album waits for resize-cover and needs a network; notify-friends waits for publish-album")
        await events.wait { $0.contains(.succeeded(resize)) }
        say(
            "resize-cover → \(try job(resize).state.rawValue); publish-album is no longer blocked but "
                + "stays \(try job(publish).state.rawValue): the device reports no network yet")
        try queue.updateDeviceConditions(DeviceConditions(isNetworkAvailable: true))
        say("the app reports a network → the runner wakes at once")
        await events.wait { $0.contains(.succeeded(notify)) }
        say(
            "publish-album → \(try job(publish).state.rawValue), then notify-friends → \(try job(notify).state.rawValue)"
        )
        let convert = try await queue.enqueue(NewJob(kind: "convert-video", id: "convert-video"))
        let share = try await queue.enqueue(NewJob(kind: "publish-album", id: "share-video", dependencies: [convert]))
        await events.wait { $0.contains(.failed(convert, error: "unsupported codec: ProRes RAW", terminal: true)) }
        say(
            "convert-video throws TerminalJobFailure → \(try job(convert).state.rawValue) for good "
                + "(\(try job(convert).lastError ?? ""))")
        say("share-video, waiting for it, → \(try job(share).state.rawValue) in the same record")
    }
}

/// Runs `work` to its end from synchronous code. Only for the command line's main
/// thread, which is not one of the threads async tasks run on, so blocking it cannot
/// starve the work it waits for.
package func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<T>()
    Task {
        box.result = await Result { try await work() }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// The result handed from the task to the waiting thread.
private final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: written once by the task before `done.signal()`, read after `done.wait()`.
    var result: Result<T, any Error>?
}

extension Result where Failure == any Error {
    fileprivate init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
