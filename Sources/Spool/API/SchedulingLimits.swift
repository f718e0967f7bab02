/// The two kinds of request the platform's background scheduler takes (on Apple platforms,
/// `BGAppRefreshTaskRequest` and `BGProcessingTaskRequest`).
public enum SchedulingRequestKind: Sendable, Hashable {
    /// A short launch with no requirements (`BGAppRefreshTaskRequest`).
    case refresh
    /// A launch that may last minutes and may require a network or external power (`BGProcessingTaskRequest`).
    case processing
}

/// How many requests of each kind the platform's scheduler keeps pending at once.
public struct SchedulingLimits: Sendable, Equatable {
    /// Refresh requests pending at once, 0 or more.
    public var refreshRequests: Int
    /// Processing requests pending at once, 0 or more.
    public var processingRequests: Int

    /// Limits of `refreshRequests` and `processingRequests` (a negative value counts as 0).
    public init(refreshRequests: Int, processingRequests: Int) {
        self.refreshRequests = max(0, refreshRequests)
        self.processingRequests = max(0, processingRequests)
    }

    /// iOS's: `BGTaskScheduler` keeps at most 1 pending refresh request and 10 pending processing
    /// requests (a submit past them fails with `BGTaskScheduler.Error.Code.tooManyPendingTaskRequests`).
    public static let iOS = SchedulingLimits(refreshRequests: 1, processingRequests: 10)

    /// `hints` cut down to these limits (see ``JobQueue/schedulingHints(within:)``), in their order.
    func apply(to hints: [SchedulingHint]) -> [SchedulingHint] {
        var refresh = hints.filter { $0.request == .refresh }
        var processing = hints.filter { $0.request == .processing }
        while refresh.count > refreshRequests {
            var moved = refresh.removeLast()
            moved.request = .processing
            processing.append(moved)
        }
        guard processingRequests > 0 else { return refresh }
        // In their order; past the limit, the latest-beginning hint merges into the next latest.
        while processing.count > processingRequests {
            let latest = Self.indexOfLatest(processing)
            let removed = processing.remove(at: latest)
            let into = Self.indexOfLatest(processing)
            processing[into] = Self.merged(processing[into], removed)
        }
        return refresh + processing
    }

    /// The index of the hint that begins last (the last of equals).
    private static func indexOfLatest(_ hints: [SchedulingHint]) -> Int {
        var latest = 0
        for index in hints.indices where hints[index].earliestBeginDate >= hints[latest].earliestBeginDate {
            latest = index
        }
        return latest
    }

    /// One processing hint for the jobs of both: the earlier begin, the requirements both have.
    static func merged(_ a: SchedulingHint, _ b: SchedulingHint) -> SchedulingHint {
        SchedulingHint(
            earliestBeginDate: min(a.earliestBeginDate, b.earliestBeginDate),
            requiresNetworkConnectivity: a.requiresNetworkConnectivity && b.requiresNetworkConnectivity,
            requiresExternalPower: a.requiresExternalPower && b.requiresExternalPower,
            jobCount: a.jobCount + b.jobCount, kinds: a.kinds.union(b.kinds), request: .processing)
    }
}

extension JobQueue {
    /// The one processing request the README's recipe submits: for the unfinished job that could run
    /// first (by ``schedulingHints()``'s reading of each job's earliest moment; among equals, the one
    /// needing less), begin at that moment and require what that job requires (a network, external
    /// power). `nil` when no job is unfinished, and when every unfinished job is of a paused kind
    /// (`pause(kind:)`: nothing of it can run until a resume, which is a change of the
    /// queue to submit again after). Submit it at every launch and again after the queue changes (an
    /// enqueue, a job finishing, a resume), so that it follows the earliest due job.
    public func nextProcessingHint() throws -> SchedulingHint? {
        let all = try schedulingHints(within: SchedulingLimits(refreshRequests: 0, processingRequests: .max))
        guard
            let first = all.min(by: {
                ($0.earliestBeginDate, $0.requirementCount) < ($1.earliestBeginDate, $1.requirementCount)
            })
        else { return nil }
        var hint = first
        hint.request = .processing
        return hint
    }
}

extension SchedulingHint {
    /// How many of the platform's requirements the hint names.
    fileprivate var requirementCount: Int { (requiresNetworkConnectivity ? 1 : 0) + (requiresExternalPower ? 1 : 0) }
}
