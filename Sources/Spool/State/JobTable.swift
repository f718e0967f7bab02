/// The jobs of a ``QueueState``, by id: a dense array of jobs plus an index from
/// id to position.
///
/// Laid out for memory and replay speed: a `[String: StoredJob]` dictionary
/// keeps every ~130-byte job in a hash slot, and its slots run 1.3 to 2.7 times
/// the job count (load factor and power-of-two growth), so each job paid for
/// the empty slots too, and every growth moved whole jobs. Here the jobs sit
/// packed in an array, and the index is an open-addressing table of 8-byte
/// entries (the id's 32-bit hash and the job's position): a probe compares
/// hashes, not strings, and growing it moves entries without hashing any id
/// again. Removal moves the last job into the hole, so the array stays dense;
/// the order of ``values`` is therefore arbitrary, as a dictionary's is.
///
/// It reads like a dictionary keyed by id: `table[id]` gets, sets and (with
/// `nil`) removes a job.
///
/// A table may be a trial (``startTrial()``, for ``QueueState/trial()``): its changes then go to an
/// overlay of the jobs changed, added or removed, and the table it was copied from stays shared,
/// uncopied. Positions past the array's end are the overlay's.
struct JobTable: Sendable {
    private var slots: [StoredJob] = []
    private var index = HashIndex()
    /// A trial's changes (`nil` for a table of its own, as every table but a trial is).
    private var overlay: Overlay?

    /// What a trial changed over the table it shares: the jobs changed or added (in a table of
    /// their own, shadowing `slots`) and the ids removed.
    fileprivate struct Overlay: Sendable {
        var slots: [StoredJob] = []
        var index = HashIndex()
        /// The ids removed since the trial began (an id added again leaves the set).
        var removed: Set<String> = []
        /// Jobs added less jobs removed.
        var countChange = 0
    }

    var count: Int { slots.count + (overlay?.countChange ?? 0) }
    /// Jobs the index holds room for.
    var indexCapacity: Int { index.capacity }
    /// Jobs the array holds room for.
    var arrayCapacity: Int { slots.capacity }
    var isEmpty: Bool { count == 0 }

    /// Every job, in no particular order.
    var values: [StoredJob] {
        guard let overlay else { return slots }
        return slots.filter {
            !overlay.removed.contains($0.id) && overlay.find($0.id, hash: HashIndex.hash($0.id)) == nil
        }
            + overlay.slots.filter { !overlay.removed.contains($0.id) }
    }

    /// Makes this copy a trial: its changes go to an overlay, leaving the table it shares as it is.
    /// A trial's copy is a trial too.
    mutating func startTrial() {
        if overlay == nil { overlay = Overlay() }
    }

    /// Whether a job has this id (without copying the job out, as `table[id] != nil` would).
    func contains(_ id: String) -> Bool {
        locate(id, hash: HashIndex.hash(id)) != nil
    }

    /// The hash the index files `id` under, for a ``contains(_:hash:)`` then ``insertNew(_:hash:)``
    /// that hash the id once (an enqueue checks its id, then adds the job).
    static func hash(of id: String) -> UInt32 { HashIndex.hash(id) }

    /// Whether a job has this id, whose ``hash(of:)`` is `hash`.
    func contains(_ id: String, hash: UInt32) -> Bool {
        locate(id, hash: hash) != nil
    }

    /// Where the job with this id sits, for reading it with ``subscript(position:)`` and writing
    /// it back with ``replace(at:with:)`` on one probe (the subscript probes once per get and set).
    func position(of id: String) -> Int? {
        locate(id, hash: HashIndex.hash(id))
    }

    /// Reads the index bucket where the lookup of an id with this ``hash(of:)`` starts, so that
    /// the lookup finds it in the cache (see ``JobIndexWarmer``). Returns what it read.
    @inline(__always)
    func readBucket(hash: UInt32) -> UInt64 { index.readBucket(hash: hash) }

    /// The job at a ``position(of:)``.
    subscript(position position: Int) -> StoredJob {
        position < slots.count ? slots[position] : overlay!.slots[position - slots.count]
    }

    /// Replaces the job at a ``position(of:)`` with a new value of the same job.
    mutating func replace(at position: Int, with job: StoredJob) {
        precondition(self[position: position].id == job.id, "a job stored under another id")
        guard overlay != nil else {
            slots[position] = job
            return
        }
        if position < slots.count {
            overlay!.put(job, hash: HashIndex.hash(job.id))
        } else {
            overlay!.slots[position - slots.count] = job
        }
    }

    /// The job with this id; setting `nil` removes it.
    subscript(id: String) -> StoredJob? {
        get {
            guard let position = locate(id, hash: HashIndex.hash(id)) else { return nil }
            return self[position: position]
        }
        set {
            let hash = HashIndex.hash(id)
            if overlay != nil { return setInTrial(id, hash: hash, to: newValue) }
            if let job = newValue {
                precondition(job.id == id, "a job stored under another id")
                if let position = find(id, hash: hash)?.position {
                    slots[position] = job
                } else {
                    precondition(slots.count < Int(UInt32.max - 1), "more jobs than a job table holds")
                    index.insert(hash: hash, position: slots.count, growingFor: slots.count + 1)
                    slots.append(job)
                }
            } else if let (bucket, position) = find(id, hash: hash) {
                index.remove(at: bucket)
                let last = slots.removeLast()
                if position < slots.count {
                    slots[position] = last
                    let moved = find(last.id, hash: HashIndex.hash(last.id), at: slots.count)!
                    index.move(bucket: moved.bucket, to: position)
                }
            }
        }
    }

    /// Adds a job whose id the table does not hold (the caller has checked with ``contains(_:)``):
    /// one probe fewer than setting it through the subscript, which looks for the id first.
    /// `hash`, when given, is the id's ``hash(of:)``.
    mutating func insertNew(_ job: consuming StoredJob, hash: UInt32? = nil) {
        if overlay != nil { return overlay!.add(job, hash: hash ?? HashIndex.hash(job.id)) }
        precondition(slots.count < Int(UInt32.max - 1), "more jobs than a job table holds")
        index.insert(hash: hash ?? HashIndex.hash(job.id), position: slots.count, growingFor: slots.count + 1)
        slots.append(job)
    }

    /// The ``position(of:)`` of the job with `id`: in a trial, its overlay's, unless removed, or else the shared table's.
    @inline(__always)
    private func locate(_ id: String, hash: UInt32) -> Int? {
        if overlay != nil { return locateInTrial(id, hash: hash) }
        return find(id, hash: hash)?.position
    }

    private func locateInTrial(_ id: String, hash: UInt32) -> Int? {
        if !overlay!.removed.isEmpty, overlay!.removed.contains(id) { return nil }
        if let position = overlay!.find(id, hash: hash) { return slots.count + position }
        return find(id, hash: hash)?.position
    }

    private mutating func setInTrial(_ id: String, hash: UInt32, to job: StoredJob?) {
        let exists = locateInTrial(id, hash: hash) != nil
        if let job {
            precondition(job.id == id, "a job stored under another id")
            if exists { overlay!.put(job, hash: hash) } else { overlay!.add(job, hash: hash) }
        } else if exists {
            overlay!.removed.insert(id)
            overlay!.countChange -= 1
        }
    }

    /// The bucket and position of the job with `id`; with `at`, the entry
    /// pointing at that position instead (a job about to move).
    private func find(_ id: String, hash: UInt32, at: Int? = nil) -> (bucket: Int, position: Int)? {
        index.firstMatch(hash: hash) { position in
            if let at { return position == at }
            return slots[position].id == id
        }
    }

    /// Makes room in the index for `count` jobs in all, so that growing to it
    /// moves nothing (see ``shrinkIndexIfSparse()``).
    mutating func reserveIndexCapacity(_ count: Int) {
        index.reserve(count)
    }

    /// Makes room for `count` jobs in all, in the index and the array, so that growing to it
    /// moves nothing: replay sizes both from the log's bytes. Before, the array doubled its way
    /// up, copying every job about once more and touching twice its final memory. Room reserved
    /// and never filled stays untouched address space, not resident memory (a large allocation
    /// is mapped lazily); ``shrinkIndexIfSparse()`` gives it back when it is far too large.
    mutating func reserveCapacity(_ count: Int) {
        if overlay != nil {
            // A trial's own jobs: room for `count` more (a batch's size).
            overlay!.index.reserve(count)
            return overlay!.slots.reserveCapacity(count)
        }
        index.reserve(count)
        slots.reserveCapacity(count)
    }

    /// Rebuilds the index, and packs the array, at the size of the jobs they hold when
    /// they were sized for over four times as many (a log of mostly obsolete records, after replay).
    mutating func shrinkIndexIfSparse() {
        guard overlay == nil else { return }
        if slots.capacity > 4 * Swift.max(slots.count, 1024) {
            var packed: [StoredJob] = []
            packed.reserveCapacity(slots.count)
            packed.append(contentsOf: slots)
            slots = packed
        }
        guard index.capacity > 4 * Swift.max(slots.count, 1024) else { return }
        var smaller = HashIndex()
        smaller.reserve(slots.count)
        for (position, job) in slots.enumerated() {
            smaller.insert(hash: HashIndex.hash(job.id), position: position, growingFor: position + 1)
        }
        index = smaller
    }

    /// The jobs' values transformed, by id.
    func mapValues<T>(_ transform: (StoredJob) throws -> T) rethrows -> [String: T] {
        var result: [String: T] = [:]
        result.reserveCapacity(count)
        for job in values { result[job.id] = try transform(job) }
        return result
    }
}

extension JobTable.Overlay {
    /// The position in `slots` of the job with `id`, removed or not.
    func find(_ id: String, hash: UInt32) -> Int? {
        index.firstMatch(hash: hash) { slots[$0].id == id }?.position
    }

    /// Writes a job that exists (in the shared table or here) here.
    mutating func put(_ job: StoredJob, hash: UInt32) {
        if let position = find(job.id, hash: hash) {
            slots[position] = job
            return
        }
        index.insert(hash: hash, position: slots.count, growingFor: slots.count + 1)
        slots.append(job)
    }

    /// Adds a job that does not exist (or was removed).
    mutating func add(_ job: StoredJob, hash: UInt32) {
        if !removed.isEmpty { removed.remove(job.id) }
        countChange += 1
        put(job, hash: hash)
    }
}

extension JobTable: Sequence {
    /// (id, job) pairs, as a dictionary's iteration gives them.
    struct Iterator: IteratorProtocol {
        fileprivate var jobs: IndexingIterator<[StoredJob]>

        mutating func next() -> (key: String, value: StoredJob)? {
            jobs.next().map { (key: $0.id, value: $0) }
        }
    }

    func makeIterator() -> Iterator { Iterator(jobs: values.makeIterator()) }
}

/// An open-addressing hash table (linear probing, backward-shift removal) of
/// positions, keyed by a 32-bit hash; the caller tells which of the positions
/// with a matching hash is the one it wants.
///
/// An entry packs the hash (high 32 bits) and position + 1 (low 32 bits);
/// zero is an empty bucket. The bucket count is a power of two, at most half full,
/// so that a probe for a missing id (every enqueue checks one) ends in ~2.5 steps.
struct HashIndex: Sendable {
    private var buckets: [UInt64] = []
    private var mask = -1

    /// Entries the table takes before it grows.
    var capacity: Int { buckets.count / 2 }

    /// The 32-bit hash of an id (``IDHash``, seeded per process like the standard library's).
    @inline(__always)
    static func hash(_ id: String) -> UInt32 {
        IDHash.hash(id)
    }

    /// The first entry with `hash` whose position `matches`.
    @inline(__always)
    func firstMatch(hash: UInt32, matches: (Int) -> Bool) -> (bucket: Int, position: Int)? {
        guard !buckets.isEmpty else { return nil }
        var bucket = Int(hash) & mask
        while true {
            let entry = buckets[bucket]
            if entry == 0 { return nil }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                let position = Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: entry)) - 1
                if matches(position) { return (bucket, position) }
            }
            bucket = (bucket + 1) & mask
        }
    }

    /// The entry in the bucket where a probe for `hash` starts (0 for an empty table).
    @inline(__always)
    func readBucket(hash: UInt32) -> UInt64 {
        buckets.isEmpty ? 0 : buckets[Int(hash) & mask]
    }

    /// Adds an entry, first growing the table if `count` entries would fill it past half.
    mutating func insert(hash: UInt32, position: Int, growingFor count: Int) {
        if count > capacity { reserve(Swift.max(count, 2 * capacity)) }
        place(UInt64(hash) << 32 | UInt64(position + 1))
    }

    /// Points the entry in `bucket` at another position.
    mutating func move(bucket: Int, to position: Int) {
        buckets[bucket] = buckets[bucket] & 0xFFFF_FFFF_0000_0000 | UInt64(position + 1)
    }

    /// Removes the entry in `bucket`, shifting back the entries of its probe run.
    mutating func remove(at bucket: Int) {
        var hole = bucket
        var next = (hole + 1) & mask
        while buckets[next] != 0 {
            let home = Int(truncatingIfNeeded: buckets[next] >> 32) & mask
            // The entry may fill the hole if its home is not in the (cyclic) range (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = 0
    }

    /// Grows the table so that it takes `count` entries.
    mutating func reserve(_ count: Int) {
        guard count > capacity else { return }
        var size = 16
        while size / 2 < count { size *= 2 }
        let old = buckets
        buckets = Array(repeating: 0, count: size)
        mask = size - 1
        for entry in old where entry != 0 { place(entry) }
    }

    private mutating func place(_ entry: UInt64) {
        var bucket = Int(truncatingIfNeeded: entry >> 32) & mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = entry
    }
}
