import Foundation
import Spool

extension DemoScript {
    /// Step 11: an attempt that reports progress and checkpoints, interrupted, resumed and snoozed;
    /// then two transfers parked across a relaunch, one completed by key and one reconciled.
    func stopsAndParking(_ runtime: RuntimeDemo) throws {
        step("11. A background launch: progress, a checkpoint, time running out, a snooze, parked transfers")
        try runBlocking {
            try await runtime.interruptions()
            try await runtime.appSwitch()
        }
        let ids: [JobID] = ["upload-beach", "upload-dunes", "upload-notes"]
        let deadline = clock.now().addingTimeInterval(86_400)
        for id in ids {
            try queue.enqueue(NewJob(kind: "background-upload", id: id))
            guard let lease = try queue.claim(kind: "background-upload") else {
                throw CommandFailure.operational("demo: \(id) not ready")
            }
            if id != "upload-notes" { try queue.park(lease, key: "uploads:\(id)", deadline: deadline) }
        }
        say(
            "upload-beach, upload-dunes handed to the system: park(lease, key: \"uploads:<id>\", deadline: \(t(deadline)))"
        )
        try reopen(reclaimingRunningJobs: true)
        let parked = try queue.parkedJobs().map { "\($0.id) (\($0.state.rawValue), attempt \($0.attempts))" }
        let orphan = try job("upload-notes")
        say(
            "suspended and relaunched: parkedJobs() → \(parked.joined(separator: ", ")); "
                + "upload-notes, only leased → \(orphan.state.rawValue), attempt \(orphan.attempts) spent, last stop: \(stop(orphan))"
        )
        let completed = try queue.completeParked(key: "uploads:upload-beach")
        say(
            "the system reports uploads:upload-beach done: completeParked(key:) → \(completed.state.rawValue), "
                + "attempts \(completed.attempts)/\(completed.maxAttempts) (counted once)")
        let failed = try queue.reconcileParked(stillPending: []).map {
            "\($0.id) \($0.state.rawValue), retry \($0.nextRetryAt.map(t) ?? "none") (\($0.lastError ?? ""))"
        }
        say("the system no longer has uploads:upload-dunes: reconcileParked(stillPending: []) → " + failed.joined())
    }
}

extension RuntimeDemo {
    /// Step 11's attempts: a handler importing 10 photos reports progress and checkpoints, the
    /// system's time runs out, the next launch resumes from the checkpoint and snoozes, and the
    /// import ends on its first counted attempt.
    func interruptions() async throws {
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        let received = CheckpointLog()
        try runner.register(kind: "import-photos") { [clock] _, context in
            let checkpoint = context.lastCheckpoint.map { String(decoding: $0, as: UTF8.self) }
            received.append(checkpoint)
            switch checkpoint {
            case nil:  // Photos 1 to 3, then photo 4 takes a day of demo time.
                try await context.checkpoint(Data("3".utf8))
                context.reportProgress(completed: 3, of: 10)
                try await clock.sleep(until: clock.now().addingTimeInterval(86_400))
            case "3":  // Photos 4 to 7, then the photo server asks for a pause.
                try await context.checkpoint(Data("7".utf8))
                context.reportProgress(completed: 7, of: 10)
                try context.snooze(for: 60)
            default:
                context.reportProgress(completed: 10, of: 10)
            }
        }
        let id = try await queue.enqueue(NewJob(kind: "import-photos", id: "import-library"))
        runner.start()
        for await update in queue.progressUpdates(.id(id)) {
            guard let progress = update.progress else { continue }
            let checkpoint = try job(id).checkpoint.map { String(decoding: $0, as: UTF8.self) } ?? "none"
            say(
                "import-library, attempt 1: checkpoint \"\(checkpoint)\", progressUpdates(.id(id)) → \(photos(progress))"
            )
            break
        }
        await runner.expire()
        let expired = try job(id)
        say(
            "the system's time runs out: runner.expire() → \(expired.state.rawValue), "
                + "attempts \(expired.attempts)/\(expired.maxAttempts) (given back), last stop: \(stop(expired))")
        runner.start()
        await events.wait { $0.contains(.snoozed(id)) }
        let snoozed = try job(id)
        let due = snoozed.dueAt ?? snoozed.runAt
        say(
            "next launch, attempt \(claimedAttempts(id, events).last ?? 0) again: lastCheckpoint "
                + "\"\(received.all.dropFirst().first.flatMap { $0 } ?? "none")\", reaches "
                + "\(queue.progress(of: id).map(photos) ?? "?"), snoozes 60s → \(snoozed.state.rawValue), due \(t(due)), "
                + "attempts \(claimedAttempts(id, events).last ?? 0) → \(snoozed.attempts) (given back), "
                + "last stop: \(stop(snoozed))")
        await events.wait { $0.last == .waiting(until: due) }
        clock.advance(to: due)
        await events.wait { $0.contains(.succeeded(id)) }
        await runner.stop(.finishRunning)
        let done = try job(id)
        say(
            "\(t(due)): lastCheckpoint \"\(received.all.last.flatMap { $0 } ?? "none")\" → \(done.state.rawValue), "
                + "attempts \(done.attempts)/\(done.maxAttempts): the interruption and the snooze spent none")
    }

    /// The app leaves the foreground in the middle of an upload and comes back: the attempt is given back, the
    /// upload starts again, and the runner says when it is idle (the moment to complete a background task).
    func appSwitch() async throws {
        let events = RunnerEvents()
        let runner = try JobRunner(queue: queue, events: events)
        try runner.register(kind: "trip-upload") { [clock] _, context in
            // The first start takes a day of demo time: the app leaves the foreground before it ends.
            if context.starts == 1 { try await clock.sleep(until: clock.now().addingTimeInterval(86_400)) }
        }
        let id = try await queue.enqueue(NewJob(kind: "trip-upload", id: "upload-trip-video"))
        runner.start()
        await events.wait { $0.contains(.claimed(id, attempt: 1)) }
        await runner.suspend()
        let suspended = try job(id)
        say(
            "the app leaves the foreground mid-upload: runner.suspend() → upload-trip-video \(suspended.state.rawValue), "
                + "attempts \(suspended.attempts)/\(suspended.maxAttempts) (given back), starts \(suspended.starts)")
        runner.resume()
        await runner.idle()
        let done = try job(id)
        say(
            "it comes back: runner.resume() → upload-trip-video starts again (starts \(done.starts)) → "
                + "\(done.state.rawValue), attempts \(done.attempts)/\(done.maxAttempts); runner.idle() returns: "
                + "nothing of its kinds runs or is due → setTaskCompleted(success: true)")
        await runner.stop(.finishRunning)
    }

    /// The attempts of job `id`'s claims, in order.
    private func claimedAttempts(_ id: JobID, _ events: RunnerEvents) -> [Int] {
        events.all.compactMap { event in
            if case .claimed(id, let attempt) = event { return attempt }
            return nil
        }
    }

    /// Progress in photos: "3 of 10 photos".
    private func photos(_ progress: JobProgress) -> String {
        "\(progress.completed ?? 0) of \(progress.total ?? 0) photos"
    }
}

extension DemoNarration {
    /// A job's last stop reason in words, or "-".
    func stop(_ job: Job) -> String { job.lastStopReason?.description ?? "-" }
}

/// The checkpoints the demo's import handler received, one per attempt, in order.
private final class CheckpointLog: @unchecked Sendable {
    // @unchecked: `entries` is only touched with `lock` held.
    private let lock = NSLock()
    private var entries: [String?] = []

    /// Adds the checkpoint an attempt began with.
    func append(_ checkpoint: String?) { lock.withLock { entries.append(checkpoint) } }

    /// Every checkpoint so far.
    var all: [String?] { lock.withLock { entries } }
}
