/// What an app asks of the platform's background scheduler for one group of jobs: on
/// Apple platforms one `BGProcessingTaskRequest` (when ``requiresNetworkConnectivity`` or
/// ``requiresExternalPower``) or one `BGAppRefreshTaskRequest` per hint, submitted at
/// every launch (see the README's recipe).
public struct SchedulingHint: Sendable, Equatable {
    /// The earliest moment any job of the group could run; never before the time the hints were computed.
    public var earliestBeginDate: Date
    /// Some job of the group needs a network connection.
    public var requiresNetworkConnectivity: Bool
    /// Some job of the group needs the device to be charging.
    public var requiresExternalPower: Bool
    /// The unfinished jobs of the group.
    public var jobCount: Int
    /// Their kinds.
    public var kinds: Set<String>
    /// The platform request the hint asks for: a processing request when it names a requirement, or
    /// when it gathers groups that ``JobQueue/schedulingHints(within:)`` merged to fit the limits.
    public var request: SchedulingRequestKind

    /// Builds a hint, as ``JobQueue/schedulingHints()`` would return it: for an app's tests of the
    /// code that turns hints into the platform's requests.
    public init(
        earliestBeginDate: Date, requiresNetworkConnectivity: Bool = false, requiresExternalPower: Bool = false,
        jobCount: Int = 1, kinds: Set<String> = [], request: SchedulingRequestKind? = nil
    ) {
        self.earliestBeginDate = earliestBeginDate
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
        self.requiresExternalPower = requiresExternalPower
        self.jobCount = jobCount
        self.kinds = kinds
        self.request =
            request ?? (requiresNetworkConnectivity || requiresExternalPower ? .processing : .refresh)
    }
}

extension JobQueue {
    /// For every unfinished job, the earliest moment it could run and what it needs, grouped by
    /// the two needs the platform's scheduler understands (network, external power): one hint per
    /// group with jobs, the network-free, power-free group first.
    ///
    /// A job's earliest moment is its due time; a running job's is now (if the app dies, it runs
    /// again at the next launch), but a parked job's is its park's deadline (the system does its work
    /// meanwhile, and its completion arrives by key, not through a launch for processing: a queue whose
    /// only unfinished work is parked asks for no launch before that deadline); a blocked job's is the latest earliest moment of the prerequisites
    /// it waits for, or its own due time if later. Failed jobs wait for a person and are left out.
    /// The kinds' controls apply as they apply to claims: the jobs of a paused kind (`pause(kind:)`),
    /// and the jobs waiting for them, have no moment and are left out until the kind is resumed; a job of
    /// a kind whose rate-limit window is full has its moment at the window's end, if later.
    /// A job whose app-named conditions (``JobConstraints/requiredConditions``) do not all hold in the
    /// conditions the app last reported (``updateDeviceConditions(_:)``) asks for no launch: a launch could not
    /// run it ("signed-in" while the user is signed out); it asks again once the app reports them and the queue
    /// next changes. Other constraints (idle, battery) are not expressible to the platform: the queue still
    /// checks them when the app runs.
    ///
    /// Never more hints than iOS takes pending at once (``SchedulingLimits/iOS``: 1 refresh, 10
    /// processing requests); see ``schedulingHints(within:)``.
    public func schedulingHints() throws -> [SchedulingHint] {
        try schedulingHints(within: .iOS)
    }

    /// The hints of ``schedulingHints()``, at most as many of each request kind as `limits` allows.
    ///
    /// Processing hints past the limit are merged into the last one allowed, from the latest
    /// beginning: the merged hint begins at the earliest of them and requires only what all of them
    /// require (a launch with less than a job needs is harmless: the queue checks its constraints
    /// when the app runs; one with more could leave a job waiting for a condition it does not need).
    /// A refresh hint past the limit becomes a processing hint without requirements when one is
    /// allowed, and is left out otherwise.
    public func schedulingHints(within limits: SchedulingLimits) throws -> [SchedulingHint] {
        limits.apply(to: try groupedHints())
    }

    /// The hints, one per group of needs, before ``SchedulingLimits`` apply.
    private func groupedHints() throws -> [SchedulingHint] {
        let now = Millis.from(configuration.clock.now())
        let jobs = try engine.jobs { !$0.state.isFinished }
        let controls = try engine.kindControls()
        let conditions = engine.deviceConditions
        let byID = Dictionary(uniqueKeysWithValues: jobs.map { ($0.id, $0) })
        var earliest: [String: Int64?] = [:]
        // `nil`: no moment while a kind is paused (the job's own, or a prerequisite's).
        func earliestRun(_ job: StoredJob) -> Int64? {
            if let known = earliest[job.id] { return known }
            // A running job started already: only a pause keeps it (reclaimed after its process died) waiting.
            // A parked one waits for the system's work: nothing of it runs before its park's deadline (its
            // completion comes by key, through the system, not through a launch for processing).
            var moment =
                job.state == .running
                ? (controls.paused[job.kind] == nil ? max(now, job.park?.deadline ?? now) : nil)
                : controls.earliestStart(of: job.kind, dueAt: max(now, job.dueAt))
            // Prerequisites are enqueued earlier, so this recursion follows a chain back, without cycles.
            for prerequisite in job.waitingFor {
                guard let other = byID[prerequisite], let current = moment else { continue }
                moment = earliestRun(other).map { max(current, $0) }
            }
            earliest[job.id] = moment
            return moment
        }
        var groups: [Int: SchedulingHint] = [:]
        for job in jobs {
            let constraints = job.constraints ?? .none
            guard conditions.holdsNamedConditions(of: constraints), let start = earliestRun(job) else { continue }
            let key = (constraints.needsNetwork ? 1 : 0) + (constraints.requiresCharging ? 2 : 0)
            let moment = Millis.date(start)
            if var hint = groups[key] {
                hint.earliestBeginDate = min(hint.earliestBeginDate, moment)
                hint.jobCount += 1
                hint.kinds.insert(job.kind)
                groups[key] = hint
            } else {
                groups[key] = SchedulingHint(
                    earliestBeginDate: moment, requiresNetworkConnectivity: constraints.needsNetwork,
                    requiresExternalPower: constraints.requiresCharging, jobCount: 1, kinds: [job.kind])
            }
        }
        return groups.keys.sorted().map { groups[$0]! }
    }
}
