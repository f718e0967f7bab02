/// The per-kind controls of the state (durable, set by their own operations): paused kinds, rate
/// limits, and each rate-limited kind's current window of starts.
///
/// Every question a claim asks of them costs the number of controlled kinds (a handful), never the
/// number of jobs: claims stay O(buckets) (see ``ReadyIndex``).
struct KindControls: Sendable, Equatable {
    /// Paused kind → when the pause was asked (ms since 1970).
    var paused: [String: Int64] = [:]
    /// Rate-limited kind → its limit.
    var limits: [String: StoredRateLimit] = [:]
    /// Rate-limited kind → its current window (absent before the kind's first start under its limit).
    var windows: [String: RateWindow] = [:]

    /// Whether nothing is controlled (no record need carry these into a snapshot).
    var isEmpty: Bool { paused.isEmpty && limits.isEmpty }

    /// When the window of `kind` ends (exclusive), if the kind has a limit and a window.
    func windowEnd(of kind: String) -> Int64? {
        guard let limit = limits[kind], let window = windows[kind] else { return nil }
        let (end, overflow) = window.start.addingReportingOverflow(limit.intervalMillis)
        return overflow ? .max : end
    }

    /// Whether the window of `kind` holds as many starts as its limit allows at `now`: a claim then takes none.
    func isFull(_ kind: String, at now: Int64) -> Bool {
        guard let limit = limits[kind], let window = windows[kind], let end = windowEnd(of: kind) else {
            return false
        }
        return window.count >= limit.starts && now < end
    }

    /// The earliest a job of `kind` due at `due` can start by the kind's controls: never (`nil`) while the
    /// kind is paused; for a kind whose window is full, the later of `due` and the window's end (the next
    /// claim then opens a new window); otherwise `due`. The deadline queries and the scheduling hints ask
    /// here; claims ask ``closedKinds(at:)``, which says the same of one instant.
    func earliestStart(of kind: String, dueAt due: Int64) -> Int64? {
        guard paused[kind] == nil else { return nil }
        guard let limit = limits[kind], let window = windows[kind], window.count >= limit.starts,
            let end = windowEnd(of: kind)
        else { return due }
        return max(due, end)
    }

    /// The kinds a claim at `now` takes no job of: the paused ones, and those whose window is full.
    func closedKinds(at now: Int64) -> Set<String> {
        var closed = Set(paused.keys)
        for kind in limits.keys where isFull(kind, at: now) { closed.insert(kind) }
        return closed
    }

    /// The kinds whose window holds its limit's starts, with when that window ends: a job of such a kind
    /// can start at the later of its due time and that end (once the end passed, the next claim opens a
    /// new window). Paused kinds are left out (they start at no time).
    var fullWindows: [(kind: String, end: Int64)] {
        limits.compactMap { kind, limit in
            guard paused[kind] == nil, let window = windows[kind], window.count >= limit.starts,
                let end = windowEnd(of: kind)
            else { return nil }
            return (kind, end)
        }
    }

    /// Counts a start (a claim) of `kind` at `now`: into the current window while it lasts, or into a
    /// new window opened by this start. Kinds without a limit count nothing.
    mutating func countStart(of kind: String, at now: Int64) {
        guard limits[kind] != nil else { return }
        if let window = windows[kind], let end = windowEnd(of: kind), now < end {
            windows[kind]?.count = window.count == .max ? .max : window.count + 1
        } else {
            windows[kind] = RateWindow(start: now, count: 1)
        }
    }
}

extension KindSet {
    /// The set without the kinds of `kinds`: O(`kinds`), whatever the jobs.
    func subtracting(_ kinds: Set<String>) -> KindSet {
        guard !kinds.isEmpty else { return self }
        switch self {
        case .all: return .allExcept(kinds)
        case .only(let own): return .only(own.subtracting(kinds))
        case .allExcept(let excluded): return .allExcept(excluded.union(kinds))
        }
    }
}
