// Look-ups: the ready job a claim takes, the earliest due times, the running jobs and counts by state.
extension QueueState {
    /// Whether an entry of the ready index still describes its job.
    private static func isCurrent(_ entry: ReadyIndex.Entry, in jobs: JobTable) -> Bool {
        guard let job = jobs[entry.id] else { return false }
        return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
            && !job.isBlocked
    }

    /// The job a claim at `now` should take: due, not blocked, its constraints met by ``deviceConditions``.
    mutating func bestReadyJob(at now: Int64, kind: String?) -> StoredJob? {
        bestReadyJob(at: now, kinds: KindSet(kind))
    }

    /// The job a claim at `now` should take among the jobs of `kinds`, leaving out the kinds paused or
    /// at their rate limit (``KindControls/closedKinds(at:)``: O(controlled kinds), no scan).
    mutating func bestReadyJob(at now: Int64, kinds requested: KindSet) -> StoredJob? {
        let kinds = requested.subtracting(kindControls.closedKinds(at: now))
        guard !kinds.isEmpty else { return nil }
        let jobs = self.jobs
        guard let entry = ready.best(dueAt: now, kinds: kinds, isCurrent: { Self.isCurrent($0, in: jobs) }) else {
            return nil
        }
        return jobs[entry.id]
    }

    /// The earliest due time of any job a claim could take once due (not blocked, its
    /// constraints met by ``deviceConditions``), optionally of one kind.
    mutating func earliestDue(kind: String?) -> Int64? {
        earliestDue(kinds: KindSet(kind))
    }

    /// The earliest time a claim could take a job of `kinds` (not blocked, its constraints met by
    /// ``deviceConditions``): its due time, or for a kind whose rate limit window is full the later of
    /// that and the window's end; never for a paused kind. O(buckets × full windows), no scan.
    mutating func earliestDue(kinds: KindSet) -> Int64? {
        let full = kindControls.fullWindows
        var earliest = earliestDueIgnoringControls(
            kinds: kinds.subtracting(Set(kindControls.paused.keys).union(full.map(\.kind))))
        for (kind, end) in full where kinds.contains(kind) {
            guard let due = earliestDueIgnoringControls(kinds: .only([kind])) else { continue }
            earliest = min(earliest ?? .max, max(due, end))
        }
        return earliest
    }

    /// The earliest due time of any job of `kinds` a claim could take once due, as if no kind were
    /// paused or rate-limited.
    private mutating func earliestDueIgnoringControls(kinds: KindSet) -> Int64? {
        guard !kinds.isEmpty else { return nil }
        let jobs = self.jobs
        let conditions = ready.conditions
        return ready.earliestDue(
            where: { kinds.contains($0.kind) && ($0.constraints.map(conditions.satisfies) ?? true) },
            isCurrent: { Self.isCurrent($0, in: jobs) })
    }

    /// The earliest time an unblocked enqueued job requiring exactly `constraints` (optionally of one
    /// kind) can start, whatever the device conditions: its due time, or for a kind whose rate-limit window
    /// is full the window's end if later; never for a paused kind (``KindControls/earliestStart(of:dueAt:)``).
    mutating func earliestDue(kind: String?, constraints: JobConstraints) -> Int64? {
        let jobs = self.jobs
        let controls = kindControls
        let wanted: JobConstraints? = constraints.isEmpty ? nil : constraints
        return ready.earliestDue(
            where: { (kind == nil || $0.kind == kind) && $0.constraints == wanted },
            start: { controls.earliestStart(of: $0.kind, dueAt: $1) },
            isCurrent: { Self.isCurrent($0, in: jobs) })
    }

    /// The earliest time an unblocked enqueued job can start, per constraint set, whatever the conditions
    /// (the kinds' controls apply as in ``earliestDue(kind:constraints:)``).
    mutating func earliestDueByConstraints() -> [JobConstraints: Int64] {
        let jobs = self.jobs
        let controls = kindControls
        return ready.earliestDueByConstraints(
            start: { controls.earliestStart(of: $0.kind, dueAt: $1) }, isCurrent: { Self.isCurrent($0, in: jobs) })
    }

    /// The running jobs.
    var runningJobs: [StoredJob] {
        runningIDs.compactMap { jobs[$0] }
    }

    /// How many jobs are in each state.
    var countsByState: [JobState: Int] {
        var counts: [JobState: Int] = [:]
        for job in jobs.values { counts[job.state, default: 0] += 1 }
        return counts
    }
}
