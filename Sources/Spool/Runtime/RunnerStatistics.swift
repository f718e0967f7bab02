/// Counts of a runner's work so far, as ``WriterStatistics`` counts a log writer's: what a pass
/// costs is checked on them (an idle runner makes no pass; one due job, one claim).
struct RunnerStatistics: Equatable, Sendable {
    /// Passes of the scheduling loop, each one a wake-up.
    var passes = 0
    /// Claims tried.
    var claimAttempts = 0
    /// Tasks started to run handlers (a handover that carries its task on starts none).
    var handlerTasks = 0
}
