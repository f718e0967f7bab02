extension JobRunner {
    /// How a ``JobRunner`` runs jobs.
    public struct Options: Sendable {
        /// The most handlers running at once, over all kinds. At least 1, or ``JobRunner/init(queue:options:)``
        /// throws ``SpoolError/Code/invalidArgument``.
        public var maxConcurrentJobs: Int
        /// The lease each claim takes, in seconds; the queue's ``Configuration/leaseDuration`` when `nil`.
        /// The runner renews it at half its length while the handler runs. Positive and below 10⁹, or
        /// ``JobRunner/init(queue:options:)`` throws ``SpoolError/Code/invalidArgument``.
        public var leaseDuration: TimeInterval?
        /// What happens to due jobs of a kind no handler is registered for.
        public var unknownKinds: UnknownKindPolicy
        /// Where the runner's tasks start (``taskExecutor``).
        var place = TaskPlace.pool

        /// Where the runner's tasks run: its loop and every handler (and what they start as child tasks) on
        /// `executor`, so that an app or a test can keep them off threads it needs; Swift's global concurrent
        /// pool when `nil` (the default). Each task is created with `Task(executorPreference:)`.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public var taskExecutor: (any TaskExecutor)? {
            get { place.executor }
            set { place.executor = newValue }
        }

        /// Options with at most `maxConcurrentJobs` handlers at once (4 by default).
        public init(
            maxConcurrentJobs: Int = 4, leaseDuration: TimeInterval? = nil,
            unknownKinds: UnknownKindPolicy = .wait
        ) {
            self.maxConcurrentJobs = maxConcurrentJobs
            self.leaseDuration = leaseDuration
            self.unknownKinds = unknownKinds
        }
    }

    /// How the handler of one kind runs.
    public struct KindOptions: Sendable {
        /// The most handlers of this kind running at once; only the runner's overall limit when `nil`.
        /// At least 1 when set, or ``JobRunner/register(kind:options:handler:)`` throws ``SpoolError/Code/invalidArgument``.
        public var maxConcurrentJobs: Int?
        /// Seconds an attempt may run. A handler still running then is cancelled and the attempt is
        /// recorded as a retryable failure, "timed out after N s"; no limit when `nil`. A positive finite
        /// number when set, or ``JobRunner/register(kind:options:handler:)`` throws ``SpoolError/Code/invalidArgument``.
        public var timeout: TimeInterval?

        /// Options for one kind; no limit of its own and no timeout by default.
        public init(maxConcurrentJobs: Int? = nil, timeout: TimeInterval? = nil) {
            self.maxConcurrentJobs = maxConcurrentJobs
            self.timeout = timeout
        }
    }

    /// What a runner does with due jobs of a kind that has no registered handler.
    public enum UnknownKindPolicy: Sendable, Equatable {
        /// Leave them enqueued, visible in ``JobQueue/jobs(state:kind:)`` and
        /// ``JobRunner/unhandledJobs()``, until a handler is registered (the default: another
        /// build, or a later registration, may know the kind).
        case wait
        /// Claim them and fail them for good with the error "unknown kind: …". The claim counts
        /// one attempt, as every claim does; the failure is terminal, so the job is never retried.
        case fail
    }

    /// What ``JobRunner/stop(_:)`` does with the handlers still running.
    public enum StopMode: Sendable, Equatable {
        /// Let them finish and record their results.
        case finishRunning
        /// Cancel their tasks. A handler that still returns normally has its success recorded;
        /// one that throws (`CancellationError` or any other error) has its attempt recorded as a
        /// retryable failure, "stopped", so the job goes back to enqueued after the retry delay
        /// (or ends failed when that was its last attempt) — never left running under a lease.
        /// A ``TerminalJobFailure`` is recorded as terminal. ``Job/lastStopReason`` is
        /// ``StopReason/runnerStopped`` for an attempt that threw.
        case cancelRunning
        /// Give the running attempts back (``JobQueue/release(_:reason:)-8hql8``, reason
        /// ``StopReason/runnerStopped``) and cancel their handlers' tasks: each job goes back to
        /// enqueued, due at once, without spending an attempt; whatever its handler does afterwards is
        /// discarded. The release is recorded before the handler is cancelled. For an app that stops
        /// its work for a reason that is not the jobs' fault (``JobRunner/expire()`` does the same for
        /// the system's background time).
        case releaseRunning
    }
}
