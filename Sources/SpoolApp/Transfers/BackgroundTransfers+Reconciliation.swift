import Spool

extension BackgroundTransfers {
    // MARK: The system's tasks follow the parks

    /// Job `id` was parked under `park` by this process, durably, its transfer not started yet: a transfer of
    /// an earlier park of the job that is still known here is cancelled (a new attempt never runs beside an old).
    func parked(_ id: JobID, _ park: Park) {
        let stale = state.update { state -> String? in
            let previous = state.parks.updateValue(park, forKey: id)
            guard let previous, previous.key != park.key else { return nil }
            return state.reported.remove(previous.key) == nil ? previous.key : nil
        }
        if let stale { place.start { await self.cancel(stale) } }
    }

    /// A change of the queue's jobs (``BackgroundWork`` hands each one over as the queue reports it): when
    /// a job stops being parked under one of these sessions' keys (cancelled, removed, its park's deadline
    /// passed, parked again under a new key), that transfer is cancelled, unless it reported its completion
    /// (the job left the park by it). A change read before the park was made is passed over (``Park/isOlder(_:)``).
    func jobChanged(_ change: JobChange) {
        let id: JobID
        var shown: Job?
        switch change {
        case .updated(let job):
            id = job.id
            shown = job
        case .removed(let removed):
            id = removed
        }
        let current = shown.flatMap { job in
            job.parkedKey.flatMap { isOwn($0) ? Park(key: $0, starts: job.starts) : nil }
        }
        let stale = state.update { state -> String? in
            let previous = state.parks[id]
            if let previous, let shown, previous.isOlder(shown) { return nil }
            state.parks[id] = current
            guard let previous, previous.key != current?.key else { return nil }
            return state.reported.remove(previous.key) == nil ? previous.key : nil
        }
        if let stale { place.start { await self.cancel(stale) } }
    }

    /// Cancels the transfer `key` in the session that holds it, if this process holds that session (a share
    /// extension's session is held only once the app handles its events: until then its late completion is
    /// dropped when it comes).
    func cancel(_ key: String) async {
        let holder = state.read { state in
            ([session] + Array(state.otherSessions.values)).first {
                key.hasPrefix(TransferKey.prefix(session: $0.identifier))
            }
        }
        guard let holder else { return }
        await holder.cancel(key: key)
        events.record(.transferCancelled(key: key))
    }

    // MARK: Reconciliation

    /// Reconciles the app's session with the parks: fails, by their retry policy, the jobs parked under one
    /// of its keys for at least ``reconciliationGrace`` whose transfers it no longer has (they will never
    /// report), and cancels its transfers whose jobs are no longer parked under them. ``BackgroundWork`` runs
    /// it after the session's events at a launch for them, and ``reconciliationGrace`` after the attach.
    ///
    /// - Returns: The jobs failed.
    @discardableResult
    public func reconcile() async -> [JobID] {
        await reconcile(session)
    }

    /// Reconciles the jobs parked under `session`'s keys with its pending transfers.
    func reconcile(_ session: any TransferSession) async -> [JobID] {
        let prefix = TransferKey.prefix(session: session.identifier)
        let now = queue.configuration.clock.now()
        do {
            // A producer's parked enqueue is in the log once ingested: its transfer is one of the session's.
            _ = try? await queue.ingestInbox()
            // The parks first, then the session's transfers: a park made after this read is not a candidate,
            // so a transfer started after the session was read is never taken for a dropped one.
            let candidates = try queue.parkedJobs().compactMap(\.parkedKey).filter { key in
                key.hasPrefix(prefix)
                    && now.timeIntervalSince(TransferKey(key)?.startedAt ?? .distantPast) >= Self.reconciliationGrace
            }
            let pending = await session.pendingKeys()
            let recording = state.read { Set($0.recording.keys) }
            var failed: [JobID] = []
            for key in candidates where !pending.contains(key) && !recording.contains(key) {
                do {
                    failed.append(
                        try await queue.failParked(key: key, error: "the system no longer has the transfer").id)
                } catch let error as SpoolError where error.code == .jobNotFound {
                    // Its completion was recorded meanwhile.
                }
            }
            // Then the parks again: a task listed above whose key is not parked now belongs to a park that
            // ended (parks come before their tasks start), so nothing will record its outcome.
            let parked = Set(try queue.parkedJobs().compactMap(\.parkedKey))
            var cancelled: [String] = []
            for key in pending.sorted() where key.hasPrefix(prefix) && !parked.contains(key) {
                await session.cancel(key: key)
                cancelled.append(key)
            }
            events.record(.transfersReconciled(session: session.identifier, failed: failed, cancelled: cancelled))
            return failed
        } catch {
            events.record(.transferRecordFailed(key: prefix, error: "reconciliation: \(error)"))
            return []
        }
    }
}
