import Foundation
import Spool

/// `spool demo`: a guided run through the queue's life cycle on a manual clock.
enum DemoCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "demo",
        synopsis: "[DIR]",
        summary:
            "Walk through enqueue, priorities, retries, manual retry, reopen, cancel, the worker runtime, progress, "
            + "checkpoints, stop reasons, snoozes and parking across a relaunch, instantly.",
        help: """
            Uses DIR, which must be new or empty, or else a temporary directory that is
            removed at the end. Time comes from a manual clock that the demo moves by hand,
            so waiting for retry deadlines takes no time at all.
            """,
        spec: ArgumentSpec(positionals: ["DIR"], optionalPositionals: 1),
        run: run)

    /// Does the work with the parsed arguments; returns the exit status.
    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let files = FileManager.default
        let directory: String
        if let given = arguments.positional(0) {
            if let contents = try? files.contentsOfDirectory(atPath: given), !contents.isEmpty {
                throw CommandFailure.operational("the demo needs a new or empty directory; \(given) is not empty")
            }
            directory = given
        } else {
            directory =
                files.temporaryDirectory.appendingPathComponent("spool-demo-\(UUID().uuidString.prefix(8))").path
        }
        defer { if arguments.positional(0) == nil { try? files.removeItem(atPath: directory) } }
        try DemoScript(directory: directory, temporary: arguments.positional(0) == nil, console: console).run()
        return ExitStatus.success
    }
}

/// The demo's steps, sharing one queue, one manual clock and one console.
final class DemoScript: DemoNarration {
    private let directory: String
    private let temporary: Bool
    let console: Console
    let clock = ManualClock()
    let start: Date
    private(set) var queue: JobQueue

    init(directory: String, temporary: Bool, console: Console) throws {
        self.directory = directory
        self.temporary = temporary
        self.console = console
        start = clock.now()
        queue = try JobQueue(directory: directory, configuration: Self.configuration(clock))
    }

    /// The CLI's configuration with the demo's manual clock.
    private static func configuration(_ clock: ManualClock) -> Configuration {
        var configuration = QueueAccess.configuration(createIfMissing: true)
        configuration.clock = clock
        return configuration
    }

    /// Runs every step, then closes the queue.
    func run() throws {
        console.out("Spool demo: queue in \(directory)" + (temporary ? " (removed at the end)" : ""))
        console.out("Manual clock: \(ISO8601.string(from: start)) is t+0s; only the demo moves it.")
        try enqueueThree()
        try claimByPriority()
        try failUntilSpent()
        try retryByHand()
        try closeAndReopen()
        try cancelWhileRunning()
        let runtime = RuntimeDemo(queue: queue, clock: clock, start: start, console: console)
        try runBlocking { try await runtime.run() }
        try stopsAndParking(runtime)
        console.out("")
        table(try queue.jobs()).forEach(say)
        console.out("")
        console.out("Done: " + Formatting.countsLine(try queue.jobs()) + ".")
        try queue.close()
    }

    /// Step 1: a delayed job, a high-priority job, a unique job and a duplicate that is kept.
    private func enqueueThree() throws {
        step("1. Enqueue three jobs")
        try queue.enqueue(NewJob(kind: "report", id: "report", delay: 30))
        say("report  due \(t(try job("report").runAt).padding(7)) (delay 30s)")
        try queue.enqueue(NewJob(kind: "email", payload: Data("to: ada@example.com".utf8), id: "email", priority: 10))
        say("email   due \(t(try job("email").runAt).padding(7)) (priority 10)")
        try queue.enqueue(NewJob(kind: "sync", id: "sync", uniqueKey: "sync:inbox"))
        say("sync    due \(t(try job("sync").runAt).padding(7)) (unique key sync:inbox)")
        let kept = try queue.enqueue(
            NewJob(kind: "sync", id: "sync-again", uniqueKey: "sync:inbox", uniquePolicy: .keep))
        say("sync-again with unique key sync:inbox, policy keep → kept \(kept), still \(try queue.jobs().count) jobs")
    }

    /// The lease on sync taken in step 2, failed in step 3.
    private var syncLease: Lease?

    /// Step 2: claims take the highest priority first; the delayed job is not ready.
    private func claimByPriority() throws {
        step("2. Claim in priority order at t+0s")
        while let lease = try queue.claim() {
            say(
                "claim → \(lease.job.id) (priority \(lease.job.priority)), attempt \(lease.attempt)/\(lease.job.maxAttempts)"
            )
            if lease.job.id == "email" {
                say("complete email → \(try queue.complete(lease).state.rawValue)")
            } else {
                syncLease = lease
            }
        }
        say("claim → nothing ready (report is delayed); next deadline \(try queue.nextDeadline().map(t) ?? "none")")
    }

    /// Step 3: fail, move the clock to the retry deadline, claim again, until the attempts are spent.
    private func failUntilSpent() throws {
        step("3. sync fails every attempt (default policy: 5 attempts, delays 5s 15s 45s 135s)")
        guard var lease = syncLease else { throw CommandFailure.operational("demo: sync was not claimed") }
        while true {
            let job = try queue.fail(lease, error: "inbox server unreachable")
            let retry = job.nextRetryAt.map { "+\(Int64($0.timeIntervalSince(clock.now()).rounded()))s" } ?? "none"
            say(
                "\(t(clock.now()).padding(7)) attempt \(lease.attempt)/\(job.maxAttempts) failed → \(job.state.rawValue), next retry \(retry)"
            )
            guard let deadline = job.nextRetryAt else { break }
            clock.advance(by: deadline.timeIntervalSince(clock.now()))
            guard let next = try queue.claim(kind: "sync") else {
                throw CommandFailure.operational("demo: sync was not ready at its deadline")
            }
            lease = next
        }
        let failed = try queue.failedJobs()
            .map { "\($0.id) (\($0.attempts)/\($0.maxAttempts), last error \"\($0.lastError ?? "")\")" }
        say("failedJobs() → " + (failed.isEmpty ? "none" : failed.joined(separator: ", ")))
    }

    /// Step 4: a manual retry resets the attempts; the next failure schedules a retry again.
    private func retryByHand() throws {
        step("4. A person retries sync: a full budget again")
        let retried = try queue.retry("sync")
        say(
            "retry sync → \(retried.state.rawValue), attempts \(retried.attempts)/\(retried.maxAttempts), due now (\(t(retried.dueAt ?? retried.runAt)))"
        )
        guard let lease = try queue.claim(kind: "sync") else {
            throw CommandFailure.operational("demo: sync not ready")
        }
        let failed = try queue.fail(lease, error: "inbox server still unreachable")
        let retry = failed.nextRetryAt.map(t) ?? "none"
        say(
            "claim → attempt \(lease.attempt)/\(lease.job.maxAttempts) (not 6/5); it fails → \(failed.state.rawValue), next retry \(retry)"
        )
    }

    /// Step 5: close, reopen from the log, and compare every job.
    private func closeAndReopen() throws {
        step("5. Close and reopen")
        let before = try queue.jobs()
        try reopen()
        let after = try queue.jobs()
        say(
            "reopened: replayed \(queue.recoveryReport.recordsReplayed) records; every job identical to before the close: "
                + (after == before ? "yes" : "NO"))
        table(after).forEach(say)
    }

    /// Closes the queue and opens it again from its log. With `reclaimingRunningJobs`, it opens as an
    /// app's queue does (``Configuration/RunningJobsAtOpen/reclaim``): every running job that is not
    /// parked is reclaimed as an orphan.
    func reopen(reclaimingRunningJobs: Bool = false) throws {
        try queue.close()
        var configuration = Self.configuration(clock)
        if reclaimingRunningJobs { configuration.runningJobsAtOpen = .reclaim }
        queue = try JobQueue(directory: directory, configuration: configuration)
    }

    /// Step 6: cancel a claimed job; completing it afterwards fails with leaseLost.
    private func cancelWhileRunning() throws {
        step("6. Cancel a running job; its late result is refused")
        guard let lease = try queue.claim(kind: "report") else {
            throw CommandFailure.operational("demo: report not ready")
        }
        say("claim → report, attempt \(lease.attempt)/\(lease.job.maxAttempts), lease until \(t(lease.expiresAt))")
        say("cancel report → \(try queue.cancel("report").state.rawValue)")
        do {
            try queue.complete(lease)
            say("late complete → accepted (unexpected)")
        } catch SpoolError.Code.leaseLost {
            say("late complete → refused: leaseLost; the result is discarded")
        }
        table(try queue.jobs()).forEach(say)
    }

    // MARK: Output

    /// The jobs as a table with deadlines in demo time.
    private func table(_ jobs: [Job]) -> [String] {
        let rows = jobs.map { job -> [String] in
            let due =
                job.state == .running
                ? job.leaseExpiresAt.map { "lease until " + t($0) }
                : job.dueAt.map { (job.nextRetryAt != nil ? "retry " : "") + t($0) }
            return [
                job.id.rawValue, job.state.rawValue, "\(job.attempts)/\(job.maxAttempts)", due ?? "-",
                job.lastError ?? "-",
            ]
        }
        return Formatting.table(header: ["ID", "STATE", "ATTEMPTS", "DUE / NEXT RETRY", "LAST ERROR"], rows: rows)
    }
}
