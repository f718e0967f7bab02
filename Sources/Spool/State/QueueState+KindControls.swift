/// The rules and the apply of the per-kind controls (pause, resume, rate limits; FORMAT.md, *Kind
/// controls*), and the rule they add to a claim. As every rule of the state (QueueState+Rules.swift),
/// each is judged by ``apply(_:)`` at replay and by the engine, in the trial, before it writes.
extension QueueState {
    // MARK: Rules

    /// The pause rule: a kind is paused once (a pause of a paused kind changes nothing, and writes nothing).
    func checkPause(_ kind: String) throws(Refusal) {
        guard kindControls.paused[kind] == nil else { throw .kindAlreadyPaused(kind: kind) }
    }

    /// The resume rule: only a paused kind is resumed.
    func checkResume(_ kind: String) throws(Refusal) {
        guard kindControls.paused[kind] != nil else { throw .kindNotPaused(kind: kind) }
    }

    /// The rate limit rule: a limit removed must be set.
    func checkSetRateLimit(_ kind: String, _ limit: StoredRateLimit?) throws(Refusal) {
        guard limit != nil || kindControls.limits[kind] != nil else { throw .noRateLimit(kind: kind) }
    }

    /// A window restored by a snapshot follows its kind's limit.
    func checkRateWindow(_ kind: String) throws(Refusal) {
        guard kindControls.limits[kind] != nil else { throw .rateWindowWithoutLimit(kind: kind) }
    }

    /// The start rule of a claim of job `id`, of `kind`, at `now`: the kind is not paused, and its
    /// rate limit's window is not full.
    func checkStart(of id: String, kind: String, at now: Int64) throws(Refusal) {
        guard kindControls.paused[kind] == nil else { throw .kindPaused(id: id, kind: kind) }
        if kindControls.isFull(kind, at: now) {
            throw .rateLimited(id: id, kind: kind, until: kindControls.windowEnd(of: kind) ?? now)
        }
    }

    // MARK: Apply

    /// Applies a kind control (called by ``apply(_:)``).
    mutating func applyKindControl(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .pauseKind(let kind, let at):
            try checkPause(kind)
            kindControls.paused[kind] = at
        case .resumeKind(let kind, _):
            try checkResume(kind)
            kindControls.paused[kind] = nil
        case .setRateLimit(let kind, let limit, _):
            try checkSetRateLimit(kind, limit)
            kindControls.limits[kind] = limit
            if limit == nil { kindControls.windows[kind] = nil }
        case .rateWindow(let kind, let window):
            try checkRateWindow(kind)
            kindControls.windows[kind] = window
        default:
            preconditionFailure("not a kind control: \(operation)")
        }
    }

    /// The rule of a kind control, without applying it (see ``refusal(of:)``).
    func checkKindControl(_ operation: LogOperation) throws(Refusal) {
        switch operation {
        case .pauseKind(let kind, _): try checkPause(kind)
        case .resumeKind(let kind, _): try checkResume(kind)
        case .setRateLimit(let kind, let limit, _): try checkSetRateLimit(kind, limit)
        case .rateWindow(let kind, _): try checkRateWindow(kind)
        default: preconditionFailure("not a kind control: \(operation)")
        }
    }

    /// The operations a snapshot writes for the controls, in order: pauses, then each limit followed by
    /// its window (``SnapshotWriter``).
    var kindControlOperations: [LogOperation] {
        var operations: [LogOperation] = []
        let byBytes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for kind in kindControls.paused.keys.sorted(by: byBytes) {
            operations.append(.pauseKind(kind: kind, at: kindControls.paused[kind]!))
        }
        for kind in kindControls.limits.keys.sorted(by: byBytes) {
            operations.append(.setRateLimit(kind: kind, limit: kindControls.limits[kind]!, at: 0))
            if let window = kindControls.windows[kind] { operations.append(.rateWindow(kind: kind, window: window)) }
        }
        return operations
    }
}
