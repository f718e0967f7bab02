/// The jobs of a ``QueueState``, by id: a dense array of jobs plus an index from
/// id to position.
///
/// Laid out for memory and replay speed: a `[String: StoredJob]` dictionary
/// keeps every ~130-byte job in a hash slot, and its slots run 1.3 to 2.7 times
/// the job count (load factor and power-of-two growth), so each job paid for
/// the empty slots too, and every growth moved whole jobs. Here the hash slots
/// hold an id and a 32-bit position only, and the jobs sit packed in an array.
/// Removal moves the last job into the hole, so the array stays dense; the
/// order of ``values`` is therefore arbitrary, as a dictionary's was.
///
/// It reads like the dictionary it replaced: `table[id]` gets, sets and (with
/// `nil`) removes a job.
struct JobTable: Sendable {
    private var slots: [StoredJob] = []
    private var positions: [String: Int32] = [:]

    var count: Int { slots.count }
    /// Jobs the index holds room for.
    var indexCapacity: Int { positions.capacity }
    var isEmpty: Bool { slots.isEmpty }

    /// Every job, in no particular order.
    var values: [StoredJob] { slots }

    /// The job with this id; setting `nil` removes it.
    subscript(id: String) -> StoredJob? {
        get {
            guard let position = positions[id] else { return nil }
            return slots[Int(position)]
        }
        set {
            if let job = newValue {
                precondition(job.id == id, "a job stored under another id")
                precondition(slots.count < Int(Int32.max), "more jobs than a job table holds")
                // One hash lookup: the default subscript's modify accessor finds or inserts the entry.
                if let position = Self.existingPosition(&positions[id, default: -1], orNew: Int32(slots.count)) {
                    slots[Int(position)] = job
                } else {
                    slots.append(job)
                }
            } else if let position = positions.removeValue(forKey: id).map(Int.init) {
                let last = slots.removeLast()
                if position < slots.count {
                    slots[position] = last
                    positions[last.id] = Int32(position)
                }
            }
        }
    }

    /// The position in `entry` if it holds one; otherwise stores `new` there and returns `nil`.
    @inline(__always)
    private static func existingPosition(_ entry: inout Int32, orNew new: Int32) -> Int32? {
        if entry >= 0 { return entry }
        entry = new
        return nil
    }

    /// Makes room in the index for `count` jobs in all, so that growing to it
    /// rehashes nothing (replay sizes it from the log's bytes; see ``shrinkIndexIfSparse()``).
    mutating func reserveIndexCapacity(_ count: Int) {
        positions.reserveCapacity(count)
    }

    /// Rebuilds the index at the size of the jobs it holds when it was sized for
    /// over four times as many (a log of mostly obsolete records, after replay).
    mutating func shrinkIndexIfSparse() {
        guard positions.capacity > 4 * Swift.max(positions.count, 1024) else { return }
        positions = Dictionary(uniqueKeysWithValues: positions.map { ($0.key, $0.value) })
    }

    /// The jobs' values transformed, by id.
    func mapValues<T>(_ transform: (StoredJob) throws -> T) rethrows -> [String: T] {
        var result: [String: T] = [:]
        result.reserveCapacity(slots.count)
        for job in slots { result[job.id] = try transform(job) }
        return result
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

    func makeIterator() -> Iterator { Iterator(jobs: slots.makeIterator()) }
}
