import Spool

/// A launch that carries on work the user started and shows its progress in the system's UI (on iOS 26
/// a `BGContinuedProcessingTask`).
public protocol ProgressReportingLaunch: LaunchedTask {
    /// Shows `completed` of `total` units done.
    func reportProgress(completed: Int64, total: Int64)
    /// Changes the title and subtitle the system shows.
    func updateTitle(_ title: String, subtitle: String)
}

/// The platform's scheduler of continued-processing launches (on iOS 26 `BGTaskScheduler` with
/// `BGContinuedProcessingTaskRequest`). Tests give a fake.
public protocol ContinuedProcessingScheduling: Sendable {
    /// Registers `handler` for continued-processing launches under `identifier`.
    func registerContinued(identifier: String, handler: @escaping @Sendable (any ProgressReportingLaunch) -> Void)
        -> Bool
    /// Asks to continue the work now, in the background, under `identifier`, showing `title` and `subtitle`.
    func submitContinued(identifier: String, title: String, subtitle: String) throws
}

/// Runs the runner in a continued-processing launch until the given jobs are finished, forwarding their
/// progress (``JobContext/reportProgress(_:)``) to the launch: each job counts 1,000 units, a finished one
/// all of them, a running one its reported fraction. Completes with success when every job succeeded,
/// without when one failed or was cancelled, and, when the system's time runs out, gives the running
/// attempts back first (``JobRunner/expire()``).
final class ContinuedJobs: Sendable {
    static let unitsPerJob: Int64 = 1_000

    private let queue: JobQueue
    private let runner: JobRunner
    private let phase: AppPhase
    private let events: EventLog

    init(queue: JobQueue, runner: JobRunner, phase: AppPhase, events: EventLog) {
        self.queue = queue
        self.runner = runner
        self.phase = phase
        self.events = events
    }

    func run(_ ids: [JobID], in task: any ProgressReportingLaunch) {
        let completion = LaunchCompletion(task)
        events.record(.launchStarted(identifier: task.identifier))
        phase.launchBegan()
        task.setExpirationHandler { [runner, phase, events] in
            guard completion.expire() else { return }
            Task {
                await runner.expire()
                Self.end(completion, expired: true, success: false, runner: runner, phase: phase, events: events)
            }
        }
        Task { [queue, runner, phase, events] in
            runner.start()
            let succeeded = await Self.follow(ids, of: queue, reportingTo: task)
            guard completion.isRunning else { return }
            if phase.isLastLaunchInBackground { await runner.suspend() }
            Self.end(completion, expired: false, success: succeeded, runner: runner, phase: phase, events: events)
        }
    }

    /// Reports the jobs' progress until every one is finished; returns whether all succeeded.
    private static func follow(_ ids: [JobID], of queue: JobQueue, reportingTo task: any ProgressReportingLaunch)
        async -> Bool
    {
        let wanted = Set(ids)
        let total = Int64(ids.count) * unitsPerJob
        let tally = Locked(Tally())
        func report() {
            let done = tally.withLock { $0.units(of: wanted) }
            task.reportProgress(completed: done, total: total)
        }
        report()
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                for await change in queue.changes() {
                    guard case .updated(let job) = change, wanted.contains(job.id) else { continue }
                    let finished = tally.withLock { tally -> Bool in
                        tally.states[job.id] = job.state
                        return wanted.allSatisfy { tally.states[$0]?.isFinished ?? false }
                    }
                    report()
                    if finished {
                        return tally.withLock { tally in wanted.allSatisfy { tally.states[$0] == .succeeded } }
                    }
                }
                return false
            }
            group.addTask {
                for await update in queue.progressUpdates() where wanted.contains(update.id) {
                    tally.withLock { $0.fractions[update.id] = update.progress?.fraction ?? 0 }
                    report()
                }
                return nil
            }
            var outcome = false
            for await result in group {
                if let result {
                    outcome = result
                    group.cancelAll()
                }
            }
            return outcome
        }
    }

    /// What the jobs have done.
    private struct Tally {
        var states: [JobID: JobState] = [:]
        var fractions: [JobID: Double] = [:]

        func units(of ids: Set<JobID>) -> Int64 {
            ids.reduce(0) { sum, id in
                if states[id]?.isFinished ?? false { return sum + ContinuedJobs.unitsPerJob }
                let fraction = min(1, max(0, fractions[id] ?? 0))
                return sum + Int64(fraction * Double(ContinuedJobs.unitsPerJob))
            }
        }
    }

    private static func end(
        _ completion: LaunchCompletion, expired: Bool, success: Bool, runner: JobRunner, phase: AppPhase,
        events: EventLog
    ) {
        guard completion.finish(expired: expired) else { return }
        phase.launchEnded()
        // An expired launch stopped the runner: an app in the foreground runs it again.
        if expired, phase.isForeground { runner.resume() }
        events.record(
            expired
                ? .launchExpired(identifier: completion.identifier)
                : .launchCompleted(identifier: completion.identifier))
        completion.complete(success: success)
    }
}
