extension JobContext {
    /// Reports how far the attempt has come: observable at once by ``JobQueue/progress(of:)`` and
    /// ``JobQueue/progressUpdates(_:)``, per job and per kind. Memory only, never written to the log:
    /// call it as often as the work allows (observers see the latest, coalesced). Nothing of it
    /// survives a crash; a checkpoint is what a next attempt finds again.
    ///
    /// On iOS, a `BGContinuedProcessingTask` must report progress for the system to keep it running:
    /// forward these reports to its `progress` (see <doc:BackgroundLaunchesOnIOS>).
    ///
    /// A report after the attempt ended (the job was cancelled, the lease lost) is ignored, as is
    /// every report from a context built with ``init(job:cancellationReason:renewLease:park:checkpoint:clock:)``.
    public func reportProgress(_ progress: JobProgress) {
        if case .runner(let runner, let token) = source { runner.reportProgress(token, progress) }
    }

    /// Reports `completed` of `total` units done ("3 of 10 photos"). See ``reportProgress(_:)``.
    public func reportProgress(completed: Int, of total: Int) {
        reportProgress(JobProgress(completed: completed, of: total))
    }
}

extension JobRunner {
    /// Publishes an attempt's progress, while the attempt under `token` is not settled and its job runs under it.
    func reportProgress(_ token: LeaseToken, _ progress: JobProgress) {
        guard let job = state.withLock({ $0.executions[token].flatMap { $0.isSettled ? nil : $0.lease.job } }) else {
            return
        }
        queue.engine.reportProgress(id: job.id.rawValue, token: token, progress)
    }
}
