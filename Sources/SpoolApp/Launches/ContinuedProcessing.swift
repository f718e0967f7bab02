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

/// The jobs a continued-processing launch carries on, their progress forwarded to the launch
/// (`JobContext/reportProgress(_:)`): each job counts 1,000 units, a finished one all of them, a running
/// one its reported fraction. The launch succeeds when every job succeeded.
enum ContinuedJobs {
    static let unitsPerJob: Int64 = 1_000

    /// Reports the jobs' progress until every one is finished; returns whether all succeeded.
    static func follow(_ ids: [JobID], of queue: JobQueue, reportingTo task: any ProgressReportingLaunch)
        async -> Bool
    {
        let wanted = Set(ids)
        let total = Int64(ids.count) * unitsPerJob
        let tally = Locked(Tally())
        // A job that is not there (deleted, dropped by retention) counts as finished, without success.
        for id in wanted where (try? queue.job(id)) == nil { _ = tally.withLock { $0.gone.insert(id) } }
        func report() {
            let done = tally.withLock { $0.units(of: wanted) }
            task.reportProgress(completed: done, total: total)
        }
        report()
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                if tally.withLock({ $0.allFinished(wanted) }) { return tally.withLock { $0.allSucceeded(wanted) } }
                for await change in queue.changes() {
                    let finished = tally.withLock { tally -> Bool in
                        switch change {
                        case .updated(let job) where wanted.contains(job.id): tally.states[job.id] = job.state
                        case .removed(let id) where wanted.contains(id): tally.gone.insert(id)
                        default: break
                        }
                        return tally.allFinished(wanted)
                    }
                    report()
                    if finished { return tally.withLock { $0.allSucceeded(wanted) } }
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
        /// Jobs that are not there any more.
        var gone: Set<JobID> = []

        func isFinished(_ id: JobID) -> Bool { gone.contains(id) || (states[id]?.isFinished ?? false) }
        func allFinished(_ ids: Set<JobID>) -> Bool { ids.allSatisfy(isFinished) }
        func allSucceeded(_ ids: Set<JobID>) -> Bool {
            ids.allSatisfy { !gone.contains($0) && states[$0] == .succeeded }
        }

        func units(of ids: Set<JobID>) -> Int64 {
            ids.reduce(0) { sum, id in
                if isFinished(id) { return sum + ContinuedJobs.unitsPerJob }
                let fraction = min(1, max(0, fractions[id] ?? 0))
                return sum + Int64(fraction * Double(ContinuedJobs.unitsPerJob))
            }
        }
    }
}
