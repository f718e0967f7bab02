/// The scheduling loop: one task that claims, renews, times out and notices
/// cancelled jobs, then sleeps until the next deadline or change.
extension JobRunner {
    /// Runs the loop beside a task that forwards the queue's changes to it; returns
    /// once the runner has stopped and every task it started has ended.
    func runLoop(_ subscription: ChangeSubscription) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [wakeup] in
                while let changes = await subscription.next() {
                    wakeup.post { reasons in
                        reasons.changedJobIDs.formUnion(changes.jobIDs)
                        if changes.environmentChanged { reasons.environmentChanged = true }
                    }
                }
                // The feed ended by itself (not by this task's cancellation): the queue closed.
                if !Task.isCancelled { wakeup.post { $0.queueClosed = true } }
            }
            startWatchingInbox()
            await schedule()
            stopWatchingInbox()
            group.cancelAll()
        }
        await awaitRetiredTasks()
        wakeup.loopRuns(false)
        state.withLock { state in
            state.phase = .idle
            state.loop = nil
            state.changeSubscriber = nil
            state.loopWakeBound = nil
        }
        events?.record(.stopped)
    }

    /// Passes until the runner stops and no attempt is left.
    private func schedule() async {
        /// The instant of the last claim that found nothing due.
        var lastEmptyClaim: Int64?
        /// When the loop last looked into the inbox (monotonic nanoseconds).
        var lastIngestion: UInt64?
        while true {
            let reasons = wakeup.take()
            state.withLock { $0.statistics.passes += 1 }
            await awaitRetiredTasks()
            if reasons.queueClosed {
                stopByItself(
                    SpoolError(.closed, "the queue was closed while the runner ran", path: queue.directory),
                    cancelRunning: true)
            }
            // `environmentChanged` needs nothing more: every pass claims afresh, and the
            // claim is where the queue decides what may run now.
            await settleLostAttempts(reasons.changedJobIDs)
            await releaseForStop()
            cancelForStop()
            if reasons.environmentChanged { await releaseUnmetConstraints() }
            let now = clock.now()
            await renewDueLeases(now: now)
            renewOwnership()
            await timeOutOverdueAttempts(now: now)
            let monotonic = clock.monotonicNanoseconds()
            if ingestsInbox(at: monotonic, for: reasons, lastIngestion: lastIngestion) {
                lastIngestion = await ingestInbox() ? monotonic : nil
            }
            if let emptyAt = await claimWhileSlotsFree() { lastEmptyClaim = emptyAt }
            let (stopping, holdsNothing) = state.withLock { ($0.phase == .stopping, $0.executions.isEmpty) }
            if stopping && holdsNothing { return }
            // Nothing runs and the claims found nothing due: idle, unless a change came meanwhile.
            if !stopping, holdsNothing, wakeup.settleIdle() { events?.record(.idle) }
            let deadline = nextWake(lastEmptyClaim: lastEmptyClaim)
            events?.record(.waiting(until: deadline))
            await waitForWake(until: deadline)
        }
    }

    /// Waits for the handler tasks whose attempt is over (they end right after it),
    /// so that none outlives the runner and the list stays short.
    private func awaitRetiredTasks() async {
        let retired = state.withLock { state -> [Task<Void, Never>] in
            defer { state.retiredTasks = [] }
            return state.retiredTasks
        }
        for task in retired { await task.value }
    }

    /// Suspends until something is posted or the clock reaches `deadline`.
    private func waitForWake(until deadline: Date?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [wakeup] in await wakeup.wait() }
            if let deadline {
                group.addTask { [clock] in try? await clock.sleep(until: deadline) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The earliest of: the next due time among the kinds the runner could claim now, the expiry
    /// of a lease it does not hold on a job of those kinds, each attempt's next lease renewal and
    /// timeout; `nil` when there is none (wait for a change).
    ///
    /// A due time at or before the last claim that found nothing is left out: a job
    /// that was due then and not claimed cannot be claimed until something changes,
    /// and sleeping "until" a past instant would spin.
    private func nextWake(lastEmptyClaim: Int64?) -> Date? {
        var candidates: [Date] = []
        let kinds = claimableKinds()
        let (now, monotonic) = (clock.now(), clock.monotonicNanoseconds())
        let ownTokens = state.withLock { state -> Set<UInt64> in
            for execution in state.executions.values where !execution.isSettled {
                candidates.append(execution.nextDeadline(now: now, monotonic: monotonic))
            }
            // The loop wakes by the earliest of these at the latest (a handover's attempt compares with it).
            state.loopWakeBound = candidates.min()
            return Set(state.executions.keys.map(\.rawValue))
        }
        if let kinds, let due = try? queue.engine.earliestDue(kinds: kinds),
            lastEmptyClaim.map({ due > $0 }) ?? true
        {
            candidates.append(Millis.date(due))
        }
        // A job running under a lease this runner does not hold (another process's, kept at open, or
        // a manual claim) comes back only by a claim once that lease expires, and no change marks it.
        if let kinds, let expiry = try? queue.engine.earliestLeaseExpiry(kinds: kinds, excludingTokens: ownTokens) {
            candidates.append(Millis.date(expiry))
        }
        if let renewal = ownershipRenewalDue { candidates.append(renewal) }
        // The bounded fallback of the producers' inbox, for a runner the system gave no watcher: looked into at
        // least this often while there is one. With a watcher, the watcher wakes a pass that ingests.
        if !inbox.isWatching, queue.engine.hasInbox {
            candidates.append(now.addingTimeInterval(queue.configuration.inboxCheckInterval))
        }
        return candidates.min()
    }

    /// The kinds the runner may claim now: those with a handler (or every kind, when unknown
    /// kinds are failed) whose limit is not reached; `nil` when the runner claims nothing now.
    /// With `freeing`, as if the attempt under that lease had already left its slot (the
    /// handover of a finished attempt, ``recordAndHandOver(_:of:)``).
    func claimableKinds(freeing freed: LeaseToken? = nil) -> KindSet? {
        state.withLock { state in
            let freedKind = freed.flatMap { state.executions[$0]?.kind }
            let occupied = state.executions.count - (freedKind == nil ? 0 : 1)
            guard state.phase == .running, occupied < options.maxConcurrentJobs else { return nil }
            let saturated = Set(
                state.registrations.compactMap { kind, registration -> String? in
                    guard let limit = registration.options.maxConcurrentJobs else { return nil }
                    return state.runningCount(of: kind) - (freedKind == kind ? 1 : 0) >= limit ? kind : nil
                })
            switch options.unknownKinds {
            case .wait:
                let kinds = Set(state.registrations.keys).subtracting(saturated)
                return kinds.isEmpty ? nil : .only(kinds)
            case .fail:
                return .allExcept(saturated)
            }
        }
    }

    /// Claims and starts jobs while a slot is free and a job is due. Returns the instant
    /// of a claim that found nothing, if one did.
    private func claimWhileSlotsFree() async -> Int64? {
        while let kinds = claimableKinds() {
            let now = Millis.from(clock.now())
            let lease: Lease?
            do {
                // The runner's one claim: what the queue lets run now, among these kinds.
                lease = try await queue.claim(kinds: kinds, leaseDuration: leaseDuration)
            } catch {
                stopByItself(error, cancelRunning: false)
                return nil
            }
            state.withLock { $0.statistics.claimAttempts += 1 }
            guard let lease else { return now }
            if case .stopping = await start(lease) { return nil }
        }
        return nil
    }

    /// Starts the handler of a job just claimed (by the loop or by a handover, which passes the
    /// finished attempt whose slot the job takes over as `previous`, and `carryingOn` when it
    /// calls from that attempt's task), or records why it does not run.
    @discardableResult
    func start(_ lease: Lease, replacing previous: LeaseToken? = nil, carryingOn: Bool = false) async -> Start {
        events?.record(.claimed(lease.job.id, attempt: lease.attempt))
        if state.withLock({ $0.phase == .stopping && $0.cancelOnStop }) {
            // A stop asking to cancel running handlers came while the claim was syncing: start no new
            // side effect. The claim has counted the attempt; it is recorded as a retryable failure.
            if let reason = state.withLock({ $0.releaseOnStop }) {
                await record(.released(reason), of: lease)
            } else {
                await record(
                    .failed(
                        error: "stopped: the runner was stopped before the handler started", terminal: false,
                        reason: .runnerStopped),
                    of: lease)
            }
            return .stopping
        }
        if let registration = state.withLock({ $0.registrations[lease.job.kind] }) {
            if let attempt = begin(lease, registration, replacing: previous, carryingOn: carryingOn) {
                return .carriesOn(attempt)
            }
        } else {
            await record(
                .failed(error: "unknown kind: no handler is registered for kind \(lease.job.kind)", terminal: true),
                of: lease)
        }
        return .started
    }

    /// What ``start(_:replacing:carryingOn:)`` did with a claimed job.
    enum Start {
        /// A stop that cancels came meanwhile: the attempt was recorded as stopped, not run.
        case stopping
        /// Its handler runs in a task of its own, or its attempt was recorded as not runnable (unknown kind).
        case started
        /// Its handler is to run next in the caller's task (a handover carried on, ``begin(_:_:replacing:carryingOn:)``).
        case carriesOn(Attempt)
    }

    /// Cancels the attempts whose job changed so that it is no longer running under
    /// their lease: cancelled, deleted, or reclaimed.
    func settleLostAttempts(_ changedIDs: Set<String>) async {
        guard !changedIDs.isEmpty else { return }
        let candidates = state.withLock { state in
            state.executions.filter { !$0.value.isSettled && changedIDs.contains($0.value.lease.job.id.rawValue) }
                .map { ($0.key, $0.value.lease.job.id) }
        }
        for (token, id) in candidates {
            let stored: StoredJob?
            do {
                stored = try queue.engine.job(id)
            } catch {
                continue  // closed: the end of the change feed stops the runner
            }
            if let stored, stored.state == .running, stored.lease?.token == token.rawValue { continue }
            settle(token, cancelling: stored == nil || stored?.state == .cancelled ? .jobCancelled : .leaseLost)
            if let stored, stored.state.isFinished { events?.record(.finished(id, stored.state)) }
        }
    }

    /// Marks an attempt settled, with nothing to record, and cancels its handler.
    private func settle(_ token: LeaseToken, cancelling reason: JobContext.CancellationReason) {
        let cancelled = state.withLock { state -> (Task<Void, Never>?, JobID)? in
            guard var execution = state.executions[token], !execution.isSettled else { return nil }
            execution.isSettled = true
            execution.cancellation = reason
            state.executions[token] = execution
            return (execution.task, execution.lease.job.id)
        }
        guard let (task, id) = cancelled else { return }
        events?.record(.cancelledHandler(id, reason))  // before the handler can end and be discarded
        task?.cancel()
    }

    /// During a stop that cancels, cancels every handler not cancelled yet.
    private func cancelForStop() {
        let cancelled = state.withLock { state -> [(Task<Void, Never>?, JobID)] in
            guard state.phase == .stopping, state.cancelOnStop else { return [] }
            var cancelled: [(Task<Void, Never>?, JobID)] = []
            for (token, execution) in state.executions where execution.cancellation == nil {
                state.executions[token]?.cancellation = .runnerStopped
                cancelled.append((execution.task, execution.lease.job.id))
            }
            return cancelled
        }
        for (task, id) in cancelled {
            events?.record(.cancelledHandler(id, .runnerStopped))
            task?.cancel()
        }
    }

    /// Renews the leases due for renewal (half way through their current term, see
    /// ``Execution/renewalDue(now:monotonic:)``), each by the runner's lease duration or, when more
    /// is left of a lease extended by hand, by what is left.
    private func renewDueLeases(now: Date) async {
        let monotonic = clock.monotonicNanoseconds()
        let due = state.withLock { state in
            state.executions.filter {
                !$0.value.isSettled && $0.value.renewalDue(now: now, monotonic: monotonic) <= now
            }
            .map { ($0.key, $0.value.lease) }
        }
        for (token, lease) in due {
            do {
                // Never shorter than what is left of a lease the handler extended by hand.
                let length = max(leaseDuration, lease.expiresAt.timeIntervalSince(now))
                let (renewed, lsn) = try await queue.renewRecorded(lease, for: length)
                state.withLock { $0.executions[token]?.adopt(renewed, term: length, lsn: lsn) }
                events?.record(.renewed(lease.job.id))
            } catch SpoolError.Code.leaseLost {
                let stored = try? queue.engine.job(lease.job.id)
                settle(token, cancelling: stored == nil || stored?.state == .cancelled ? .jobCancelled : .leaseLost)
            } catch {
                // The queue refuses writes: try again at the next half lease rather than at once.
                state.withLock { $0.executions[token]?.renewalRetryAt = now.addingTimeInterval(leaseDuration / 2) }
                stopByItself(error, cancelRunning: false)
            }
        }
    }

    /// Cancels the handlers whose kind's timeout has passed and records their attempts as retryable failures.
    private func timeOutOverdueAttempts(now: Date) async {
        let overdue = state.withLock { state -> [(Task<Void, Never>?, Lease, TimeInterval)] in
            var overdue: [(Task<Void, Never>?, Lease, TimeInterval)] = []
            for (token, execution) in state.executions where !execution.isSettled {
                guard let timeout = execution.timeout, let timeoutAt = execution.timeoutAt, timeoutAt <= now
                else { continue }
                state.executions[token]?.isSettled = true
                state.executions[token]?.cancellation = .timedOut
                overdue.append((execution.task, execution.lease, timeout))
            }
            return overdue
        }
        for (task, lease, timeout) in overdue {
            events?.record(.cancelledHandler(lease.job.id, .timedOut))
            task?.cancel()
            await record(
                .failed(error: "timed out after \(Self.seconds(timeout))", terminal: false, reason: .timedOut),
                of: lease)
        }
    }

    /// Stops claiming because of `error` (the first one is kept); with `cancelRunning`, cancels the handlers too.
    func stopByItself(_ error: any Error, cancelRunning: Bool) {
        let failure = error as? SpoolError ?? SpoolError(.ioFailure, "\(error)")
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
            if state.phase == .running { state.phase = .stopping }
            if cancelRunning { state.cancelOnStop = true }
        }
    }

    /// Seconds as text: "30 s", "1.5 s".
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value)) s" : "\(value) s"
    }
}
