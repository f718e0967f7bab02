// What the engine changes outside apply: replay sizing, snapshot results, the cascaded ids it publishes.
extension QueueState {
    /// Returns and clears ``cascadedIDs``.
    mutating func takeCascadedIDs() -> [String] {
        defer { cascadedIDs = [] }
        return cascadedIDs
    }

    /// Sizes the job index ahead of a replay of `bytes` more log bytes (a job
    /// takes at least ~128 of them in a log written by this build), so that it
    /// does not rehash as it grows.
    mutating func reserveJobs(forLogBytes bytes: Int) {
        jobs.reserveCapacity(jobs.count + bytes / 128)
        ready.reserveCapacity(bytes / 128)
    }

    /// Gives back an index sized for far more jobs than the replay found.
    mutating func finishReplay() {
        jobs.shrinkIndexIfSparse()
        // Cascades replayed are history, not changes for the first live commit to publish.
        cascadedIDs = []
    }

    /// Points the payloads of jobs at their copies in a snapshot, for those
    /// whose payload has not changed since (compaction, once the snapshot is durable).
    mutating func relocatePayloads(_ moves: [String: (from: PayloadLocation, to: PayloadLocation)]) {
        for (id, move) in moves {
            guard var job = jobs[id], job.payload == move.from else { continue }
            job.payload = move.to
            jobs[id] = job
        }
    }

    /// Takes the summary a completed snapshot recorded.
    mutating func adoptSummary(_ summary: SnapshotSummary) {
        self.summary = summary
        expiredSinceSnapshot = 0
    }
}
