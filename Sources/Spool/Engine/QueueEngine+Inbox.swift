/// The owner's side of the producers' inbox files (FORMAT.md, *Producer inbox files*): the ingestion's
/// entry point and commit (the reading and ordering are ``InboxIngestor``'s), and what a snapshot keeps.
extension QueueEngine {
    /// The folder holding the producers' inbox files.
    var inboxPath: String { InboxFormat.directory(ofQueue: path) }

    /// Whether the queue has an inbox folder (a producer ever wrote into it).
    var hasInbox: Bool { (try? configuration.fileSystem.entryKind(at: inboxPath)) == .directory }

    /// Ingests the producers' pending records: those of every inbox file whose lock is free, merged in
    /// the order their producers acknowledged them (``InboxMerge``), go into the log with
    /// `inbox_ingested` for each file (one transaction, or a few past ``InboxIngestor/transactionTarget``
    /// bytes), and a file read to its end is removed once it has settled. A busy file (its producer is
    /// writing) waits for the next ingestion, and so do the other files' records acknowledged after its
    /// first unread one.
    ///
    /// A refused request (a cancel of a finished job, an id in use, a missing prerequisite) is dropped,
    /// as a key held under policy keep is: it never fails the ingestion.
    ///
    /// - Returns: The jobs ingested.
    /// - Throws: The first file's error (``SpoolError/Code/corruption`` naming its path and offset,
    ///   ``SpoolError/Code/newerFormat``, an I/O error), after every other file was ingested.
    func ingestInbox() throws -> Int {
        let outcome = try inbox.ingest(into: self)
        if let first = outcome.unreadable.first { throw first }
        return outcome.ingested
    }

    /// Commits the requests of `items` in order, each judged by the rules where it comes, then
    /// `inbox_ingested` for each file they came from (up to its last record among them), in one transaction.
    func commitIngestion(of items: [InboxIngestor.Item]) throws -> Pending<Int> {
        try withOpenState {
            var plan = EnqueuePlan(jobs: items.reduce(0) { $0 + $1.record.entries.count }, over: state)
            let now = nowMillis
            var enqueued = 0
            var ends: [String: Int] = [:]
            for item in items {
                let entries = item.record.entries
                for (index, entry) in entries.enumerated() {
                    switch entry {
                    case .enqueue(let job, let terms):
                        let start = Int(job.payload.offset)
                        let payload = Data(item.file.bytes[start..<(start + Int(job.payload.length))])
                        var new = NewEnqueue(job: job, payload: payload)
                        new.job.payload = .unwritten
                        if terms.ownerAttempts { new.job.maxAttempts = Int64(configuration.retryPolicy.maxAttempts) }
                        // Its tags and its own retry schedule are the entries after it (the decoder checked
                        // they name it).
                        for next in entries[(index + 1)...] {
                            if case .tags(job.id, let tags) = next {
                                new.tags = tags
                            } else if case .retrySchedule(job.id, let schedule) = next {
                                new.retrySchedule = schedule
                            } else {
                                break
                            }
                        }
                        var parkedID: String?
                        if let park = terms.park,
                            plan.addIfTaken(
                                policy: terms.policy, new,
                                then: {
                                    parkedID = $0
                                    return parkedOnArrival($0, park, at: now)
                                })
                        {
                            enqueued += 1
                            // A deadline passed before the ingestion: back by the retry policy at once, in the
                            // same record, as the reclaim of any expired park (a late completion finds no job).
                            if now >= park.deadline, let id = parkedID, let job = plan.job(id) {
                                for operation in reclaim(job, reason: Self.parkDeadlineReason, now: now) {
                                    _ = plan.addIfTaken(operation.operation)
                                }
                            }
                        } else if plan.addIfTaken(policy: terms.policy, new) {
                            // Without a park, or one the rules refuse: the job is enqueued as any other.
                            enqueued += 1
                        }
                    case .cancel(let id, let at):
                        _ = plan.addIfTaken(.cancel(id: id, at: at))
                    case .cancelTagged(let tag, let at):
                        plan.addCancels(tagged: tag, at: at)
                    case .tags, .retrySchedule:
                        // Taken with the enqueue before it, or dropped with it.
                        break
                    }
                }
                ends[item.file.name] = item.record.end
            }
            for (file, end) in ends.sorted(by: { $0.key < $1.key }) {
                _ = plan.addIfTaken(.inboxIngested(file: file, offset: Int64(end)))
            }
            return Pending(enqueued, try commit(plan.finish()))
        }
    }

    /// The claim and park of producer's job `id` that arrives parked (``InboxTerms/park``): its first attempt
    /// counted at `now`, under the configuration's lease (a parked job's runs out at its park's deadline).
    private func parkedOnArrival(_ id: String, _ park: InboxTerms.Park, at now: Int64) -> [LogOperation] {
        let claim = claimOperation(ofJob: id, at: now, duration: configuration.leaseDuration)
        guard case .claim(let lease) = claim else { return [] }
        return [claim, .park(id: id, token: lease.token, key: park.key, deadline: park.deadline)]
    }

    /// The `inbox_ingested` entries a snapshot keeps: those of the inbox files that still exist. The
    /// folder is listed, then synced: a file missing from the listing was removed before it, so the
    /// sync makes its removal durable before the snapshot forgets its entry.
    func inboxOffsetsToKeep(_ offsets: [String: Int64]) throws -> [String: Int64] {
        guard !offsets.isEmpty else { return [:] }
        let fileSystem = configuration.fileSystem
        guard try fileSystem.entryKind(at: inboxPath) == .directory else { return [:] }
        let present = Set(try fileSystem.contentsOfDirectory(at: inboxPath))
        try fileSystem.syncDirectory(at: inboxPath)
        return offsets.filter { present.contains($0.key) }
    }
}
