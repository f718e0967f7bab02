extension QueueState {
    /// Every invariant this state breaks (see ``BrokenInvariant/Rule``); empty for a sound state.
    ///
    /// Only a caller pays for it: it walks every job and a copy of the ready index, and
    /// nothing in the engine calls it (tests do at each queue's teardown, `spool verify` after its replay).
    func brokenInvariants() -> [BrokenInvariant] {
        var broken: [BrokenInvariant] = []
        func report(_ rule: BrokenInvariant.Rule, _ jobID: String?, _ detail: String) {
            broken.append(BrokenInvariant(rule, jobID: jobID, detail))
        }
        var carriers: [String: [StoredJob]] = [:]
        var derivedDependents: [String: Set<String>] = [:]
        var enqueued = 0
        var running = 0
        var failed = 0
        var runningSet = Set<String>()
        var readyByBucket: [ReadyIndex.BucketKey: Set<String>] = [:]
        for (id, job) in jobs {
            if id != job.id { report(.jobFiledUnderItsID, id, "filed under \(id), names \(job.id)") }
            if job.attempts < 0 {
                report(.attemptsWithinBudget, id, "attempts \(job.attempts) of \(job.maxAttempts)")
            }
            if (job.state == .running) != (job.lease != nil) {
                report(
                    .leaseExactlyWhileRunning, id,
                    "\(job.state.rawValue) " + (job.lease == nil ? "without" : "with") + " a lease")
            }
            if job.state.isFinished, job.nextRetryAt != nil {
                report(.finishedWithoutDeadline, id, "\(job.state.rawValue) with a retry deadline")
            }
            if job.sequence >= nextSequence {
                report(.nextSequence, id, "sequence \(job.sequence), next sequence \(nextSequence)")
            }
            if let key = job.uniqueKey, !job.state.isFinished { carriers[key, default: []].append(job) }
            for prerequisite in job.waitingFor {
                derivedDependents[prerequisite, default: []].insert(id)
                if !job.state.isFinished, jobs[prerequisite]?.state.isFinished != false {
                    report(
                        .waitsOnlyForUnfinished, id,
                        "waits for \(prerequisite), which is \(jobs[prerequisite]?.state.rawValue ?? "gone")")
                }
            }
            if job.state == .running, !job.waitingFor.isEmpty {
                report(.runningWaitsForNothing, id, "runs before its prerequisites \(job.waitingFor)")
            }
            switch job.state {
            case .enqueued: enqueued += 1
            case .running:
                running += 1
                runningSet.insert(id)
            case .failed: failed += 1
            default: break
            }
            if job.state == .enqueued, !job.isBlocked {
                let key = ReadyIndex.BucketKey(kind: job.kind, priority: job.priority, constraints: job.constraints)
                readyByBucket[key, default: []].insert(id)
            }
        }
        for (key, jobs) in carriers {
            let ordered = jobs.inEnqueueOrder().map(\.id)
            if uniqueKeys[key] != ordered.last {
                report(
                    .uniqueKeyIndex, uniqueKeys[key],
                    "key \(key) held by \(uniqueKeys[key] ?? "nobody"), carriers \(ordered)")
            }
            if (earlierKeyCarriers[key] ?? []) != Array(ordered.dropLast()) {
                report(
                    .uniqueKeyIndex, ordered.last,
                    "earlier carriers of \(key): \(earlierKeyCarriers[key] ?? []), carriers \(ordered)")
            }
        }
        for (key, holder) in uniqueKeys where carriers[key] == nil {
            report(.uniqueKeyIndex, holder, "key \(key) held by a job that does not carry it unfinished")
        }
        for key in earlierKeyCarriers.keys where carriers[key] == nil {
            report(.uniqueKeyIndex, nil, "earlier carriers of key \(key), which no unfinished job carries")
        }
        let indexed = dependents.mapValues(Set.init)
        for prerequisite in Set(indexed.keys).union(derivedDependents.keys)
        where indexed[prerequisite] != derivedDependents[prerequisite] {
            report(
                .dependentsIndex, prerequisite,
                "dependents \(indexed[prerequisite].map { $0.sorted() } ?? []), prerequisites say \(derivedDependents[prerequisite].map { $0.sorted() } ?? [])"
            )
        }
        for prerequisite in dependents.keys where dependents[prerequisite]!.count != indexed[prerequisite]!.count {
            report(.dependentsIndex, prerequisite, "a dependent listed twice: \(dependents[prerequisite]!)")
        }
        if enqueuedCount != enqueued {
            report(.countsByState, nil, "enqueued count \(enqueuedCount), table \(enqueued)")
        }
        if runningCount != running { report(.countsByState, nil, "running count \(runningCount), table \(running)") }
        if failedCount != failed { report(.countsByState, nil, "failed count \(failedCount), table \(failed)") }
        if runningIDs != runningSet {
            report(.countsByState, nil, "running ids \(runningIDs.sorted()), table \(runningSet.sorted())")
        }
        broken += readyIndexBreaks(expected: readyByBucket)
        return broken
    }

    /// Drains a copy of the ready index bucket by bucket: each current entry must name a job the
    /// table files in that bucket, once, and every ready job must be found.
    private func readyIndexBreaks(expected: [ReadyIndex.BucketKey: Set<String>]) -> [BrokenInvariant] {
        var broken: [BrokenInvariant] = []
        var index = ready
        let jobs = self.jobs
        // Whether an entry still describes its job, as the claim path judges it.
        func isCurrent(_ entry: ReadyIndex.Entry) -> Bool {
            guard let job = jobs[entry.id] else { return false }
            return job.state == .enqueued && job.scheduleVersion == entry.version && job.sequence == entry.sequence
                && !job.isBlocked
        }
        var found = Set<String>()
        for (key, ids) in expected {
            var drained = Set<String>()
            while true {
                var top: ReadyIndex.Entry?
                // Taken entries count as stale, so each call drops the previous top and shows the next.
                _ = index.earliestDue(
                    where: { $0 == key },
                    isCurrent: { entry in
                        guard isCurrent(entry), !drained.contains(entry.id) else { return false }
                        top = entry
                        return true
                    })
                guard let entry = top else { break }
                drained.insert(entry.id)
                if !ids.contains(entry.id) {
                    broken.append(
                        BrokenInvariant(
                            .readyIndex, jobID: entry.id,
                            "filed in the ready bucket of kind \(key.kind), priority \(key.priority), not its own"))
                }
            }
            for missing in ids.subtracting(drained) {
                broken.append(BrokenInvariant(.readyIndex, jobID: missing, "ready, not in the ready index"))
            }
            found.formUnion(drained)
        }
        var stray: ReadyIndex.Entry?
        _ = index.earliestDue(
            where: { expected[$0] == nil },
            isCurrent: { entry in
                if isCurrent(entry), stray == nil { stray = entry }
                return false
            })
        if let stray, !found.contains(stray.id) {
            broken.append(
                BrokenInvariant(.readyIndex, jobID: stray.id, "in a ready bucket that no ready job belongs to"))
        }
        return broken
    }
}
