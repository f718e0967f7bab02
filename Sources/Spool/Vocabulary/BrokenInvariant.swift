/// One invariant a queue state broke: which rule, the job it concerns (`nil` for a rule of the
/// whole state, such as a count) and what was found. See ``LogInspector/verifyInvariants(directory:)``.
public struct BrokenInvariant: Sendable, Equatable, CustomStringConvertible {
    /// The invariants of a queue state, whatever happened before.
    public enum Rule: String, Sendable, Equatable, CaseIterable {
        /// A job is filed under its own id.
        case jobFiledUnderItsID
        /// Attempts are not negative. (They may pass the job's maximum, which is not an invariant: a
        /// migration may lower the maximum below the attempts a job spent, a snapshot restores what it
        /// finds and a claim counts one more; such a job fails for good at its next failure.)
        case attemptsWithinBudget
        /// A job holds a lease exactly while it runs.
        case leaseExactlyWhileRunning
        /// A finished job has no retry deadline.
        case finishedWithoutDeadline
        /// An unfinished job waits only for unfinished prerequisites (so no job is ready or runs
        /// before its prerequisites succeeded, and the dependents of a failed job are finished).
        case waitsOnlyForUnfinished
        /// A running job waits for nothing.
        case runningWaitsForNothing
        /// A unique key is held by the last (in enqueue order) of the unfinished jobs carrying it,
        /// the others are its earlier carriers in enqueue order, and no other key is held.
        case uniqueKeyIndex
        /// The dependents index is exactly what the jobs' prerequisites say.
        case dependentsIndex
        /// The counts of enqueued, running and failed jobs and the running ids match the table.
        case countsByState
        /// The ready index holds, each once and in its own bucket, exactly the enqueued jobs
        /// that wait for nothing.
        case readyIndex
        /// The next enqueue's sequence lies after every job's.
        case nextSequence
    }

    /// The rule broken.
    public let rule: Rule
    /// The job concerned, or `nil` for a rule of the whole state.
    public let jobID: String?
    /// What was found.
    public let detail: String

    /// A broken invariant.
    public init(_ rule: Rule, jobID: String?, _ detail: String) {
        self.rule = rule
        self.jobID = jobID
        self.detail = detail
    }

    /// The rule, the job and what was found, on one line.
    public var description: String {
        "\(rule.rawValue)" + (jobID.map { " (job \($0))" } ?? "") + ": \(detail)"
    }
}
