/// Orders the enqueued jobs for claiming: higher priority first, then the
/// earlier due time, then the earlier enqueue.
///
/// Jobs are grouped in buckets by (kind, priority, constraints); each bucket is
/// a min-heap on (due time, sequence). The best job due at an instant is the top
/// of the highest-priority bucket whose top is due and whose constraints the
/// current ``conditions`` satisfy, so a claim looks at one entry per bucket and
/// never at the jobs of a bucket whose constraints are unmet, however many or
/// overdue. Jobs waiting for prerequisites are not in the index at all. Entries are never removed in place: an entry whose job has changed
/// since (another ``StoredJob/scheduleVersion``, or no longer enqueued) is stale
/// and dropped when it reaches the top. The heaps are rebuilt when stale
/// entries outnumber live ones.
struct ReadyIndex: Sendable {
    struct Entry: Sendable {
        var dueAt: Int64
        var sequence: UInt64
        var id: String
        var version: UInt32
    }

    struct BucketKey: Hashable, Sendable {
        var kind: String
        var priority: Int32
        /// `nil` for unconstrained jobs (most), which every condition satisfies.
        var constraints: JobConstraints?
    }

    private var buckets: [BucketKey: Heap] = [:]
    /// Entries inserted since the last read, all of bucket ``pendingKey``, not in its heap yet:
    /// consecutive inserts of one bucket (replay inserts a job per enqueue, mostly of a few kinds)
    /// are appended here without hashing the key or sifting, and join the heap in one step before
    /// anything reads the buckets (see ``flushPending()``).
    private var pending: [Entry] = []
    /// The bucket of ``pending``, when ``hasPending`` (not optional: comparing with an
    /// optional copied the key, its string retained and released, on every insert).
    private var pendingKey = BucketKey(kind: "", priority: 0, constraints: nil)
    private var hasPending = false
    /// Entries in the heaps and ``pending``.
    private var entryCount = 0
    /// What holds on the device now (not durable: the app reports it). Buckets
    /// whose constraints these do not satisfy are skipped by ``best(dueAt:kinds:isCurrent:)``.
    var conditions = DeviceConditions.unknown
    /// Set in a trial's copy (``QueueState/trial()``), which no claim reads: inserts and rebuilds do
    /// nothing, so that the copy never copies the heaps it shares.
    var isSuspended = false

    /// Whether the jobs of a bucket may start under the current conditions.
    @inline(__always)
    func isRunnable(_ key: BucketKey) -> Bool {
        key.constraints.map(conditions.satisfies) ?? true
    }

    mutating func insert(_ job: StoredJob) {
        guard !isSuspended else { return }
        let constraints = job.constraints
        if !hasPending || job.kind != pendingKey.kind || job.priority != pendingKey.priority
            || constraints != pendingKey.constraints
        {
            flushPending()
            pendingKey = BucketKey(kind: job.kind, priority: job.priority, constraints: constraints)
            hasPending = true
        }
        pending.append(Entry(dueAt: job.dueAt, sequence: job.sequence, id: job.id, version: job.scheduleVersion))
        entryCount += 1
    }

    /// Makes room for `count` more entries inserted in a row into one bucket, as replay inserts them
    /// (see ``QueueState/reserveJobs(forLogBytes:)``), so that ``pending`` does not grow by
    /// copying. Room never filled stays untouched address space, not resident memory.
    mutating func reserveCapacity(_ count: Int) {
        pending.reserveCapacity(pending.count + count)
    }

    /// Moves the ``pending`` entries into their bucket's heap.
    private mutating func flushPending() {
        guard hasPending else { return }
        hasPending = false
        let key = pendingKey
        guard !pending.isEmpty else { return }
        if pending.count > 1024 {
            // A long list goes to the heap as it is (an empty heap takes the array itself).
            let entries = pending
            pending = []
            buckets[key, default: Heap()].push(contentsOf: entries)
        } else {
            buckets[key, default: Heap()].push(contentsOf: pending)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// The best enqueued job due at `now` among the jobs of `kinds`.
    /// `isCurrent` tells whether an entry still describes its job.
    mutating func best(dueAt now: Int64, kinds: KindSet, isCurrent: (Entry) -> Bool) -> Entry? {
        flushPending()
        var winner: (entry: Entry, priority: Int32)?
        for key in Array(buckets.keys) where kinds.contains(key.kind) && isRunnable(key) {
            guard let top = currentTop(of: key, isCurrent: isCurrent), top.dueAt <= now else { continue }
            if let current = winner {
                if QueueState.claimPrecedes(
                    priority: key.priority, dueAt: top.dueAt, sequence: top.sequence,
                    current.priority, current.entry.dueAt, current.entry.sequence)
                {
                    winner = (top, key.priority)
                }
            } else {
                winner = (top, key.priority)
            }
        }
        return winner?.entry
    }

    /// The earliest due time among the jobs of the buckets `include` selects; `start` moves a bucket's
    /// earliest due time to when its jobs can start (`nil`: never), a function that keeps the order of
    /// due times (the top of a bucket stays its earliest).
    mutating func earliestDue(
        where include: (BucketKey) -> Bool, start: (BucketKey, Int64) -> Int64? = { $1 }, isCurrent: (Entry) -> Bool
    ) -> Int64? {
        flushPending()
        var earliest: Int64?
        for key in Array(buckets.keys) where include(key) {
            guard let top = currentTop(of: key, isCurrent: isCurrent), let moment = start(key, top.dueAt) else {
                continue
            }
            earliest = min(earliest ?? moment, moment)
        }
        return earliest
    }

    /// The earliest due time per constraint set (``JobConstraints/none`` for unconstrained jobs), whatever the
    /// conditions; `start` as in ``earliestDue(where:start:isCurrent:)``.
    mutating func earliestDueByConstraints(
        start: (BucketKey, Int64) -> Int64? = { $1 }, isCurrent: (Entry) -> Bool
    ) -> [JobConstraints: Int64] {
        flushPending()
        var earliest: [JobConstraints: Int64] = [:]
        for key in Array(buckets.keys) {
            guard let top = currentTop(of: key, isCurrent: isCurrent), let moment = start(key, top.dueAt) else {
                continue
            }
            let constraints = key.constraints ?? .none
            earliest[constraints] = min(earliest[constraints] ?? moment, moment)
        }
        return earliest
    }

    /// Drops stale entries from the top of a bucket and returns the live top.
    private mutating func currentTop(of key: BucketKey, isCurrent: (Entry) -> Bool) -> Entry? {
        while let top = buckets[key]?.top {
            if isCurrent(top) { return top }
            buckets[key]?.pop()
            entryCount -= 1
        }
        buckets[key] = nil
        return nil
    }

    /// Rebuilds the heaps from the live jobs when stale entries dominate.
    mutating func compactIfNeeded(liveCount: Int, jobs: () -> [StoredJob]) {
        guard !isSuspended, entryCount > 2 * liveCount + 1024 else { return }
        buckets = [:]
        pending = []
        hasPending = false
        entryCount = 0
        for job in jobs() { insert(job) }
    }

    /// A binary min-heap of entries.
    struct Heap: Sendable {
        private(set) var items: [Entry] = []
        var top: Entry? { items.first }

        mutating func push(_ entry: Entry) {
            items.append(entry)
            var child = items.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(child, parent) else { break }
                items.swapAt(child, parent)
                child = parent
            }
        }

        /// Pushes every entry: one at a time onto a large heap, or all at once and
        /// then heapified (Floyd's bottom-up construction, linear) when they outnumber it.
        mutating func push(contentsOf entries: [Entry]) {
            guard entries.count > items.count else {
                for entry in entries { push(entry) }
                return
            }
            if items.isEmpty { items = entries } else { items.append(contentsOf: entries) }
            var parent = items.count / 2
            while parent > 0 {
                parent -= 1
                siftDown(from: parent)
            }
        }

        @discardableResult
        mutating func pop() -> Entry? {
            guard !items.isEmpty else { return nil }
            items.swapAt(0, items.count - 1)
            let popped = items.removeLast()
            siftDown(from: 0)
            return popped
        }

        /// Whether the entry at `index` comes out before the one at `other`: due earlier, or as
        /// due and enqueued first. Read in place: comparing copies of the entries retained and
        /// released each one's id, and a claim's pop compares about 2 log₂ n of them.
        @inline(__always)
        private func precedes(_ index: Int, _ other: Int) -> Bool {
            let (dueAt, otherDueAt) = (items[index].dueAt, items[other].dueAt)
            return dueAt != otherDueAt ? dueAt < otherDueAt : items[index].sequence < items[other].sequence
        }

        /// Moves the entry at `start` down until neither child precedes it.
        private mutating func siftDown(from start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count && precedes(left, smallest) { smallest = left }
                if right < items.count && precedes(right, smallest) { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }
}
