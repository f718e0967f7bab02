/// Reads, a few records ahead of replay, the buckets of the job index that
/// those records' jobs will be looked up in, so that the lookups find them in
/// the cache.
///
/// Ids hash at random over an index of 16 MB at a million jobs, so nearly every
/// lookup misses the cache and waits on memory; one lookup at a time, those
/// waits took a fifth of an open. Read together, the buckets of the next
/// ``lookahead`` records are fetched in parallel, and the processor waits about
/// once for all of them. This only reads: the bytes ahead are not verified yet,
/// so what they seem to name is a guess, and a wrong guess costs one useless read.
struct JobIndexWarmer {
    /// Records whose buckets are read together.
    static let lookahead = 32

    /// Where the records already warmed end.
    private var warmedEnd = 0
    /// The hashes of the ids ahead, all found before any bucket is read: the reads must come
    /// close together to overlap (a read waiting on memory holds up the instructions behind it
    /// once the processor's window of them is full, and hashing the ids would fill it).
    private var hashes: [UInt32] = []
    /// The buckets read, folded, so that the reads are not optimised away.
    private(set) var sink: UInt64 = 0

    /// Warms the records from `offset` on, unless they were warmed already.
    @inline(__always)
    mutating func warm(recordAt offset: Int, in file: UnsafeRawBufferPointer, jobs: JobTable) {
        guard offset >= warmedEnd else { return }
        warmedEnd = warmAhead(from: offset, in: file, jobs: jobs)
    }

    /// Reads the bucket of the job each of the next records' first operation names;
    /// returns where the last record looked at ends.
    private mutating func warmAhead(from start: Int, in file: UnsafeRawBufferPointer, jobs: JobTable) -> Int {
        var offset = start
        hashes.removeAll(keepingCapacity: true)
        for _ in 0..<Self.lookahead {
            // Body: version, operation count, opcode, id length, id (a one-byte count and length,
            // as nearly every record has).
            let body = RecordFrame.bodyStart(ofFrameAt: offset)
            guard body <= file.count - 4 else { break }
            let length = RecordFrame.declaredBodyLength(file, frameAt: offset)
            guard length <= file.count - body else { break }
            if length >= 4, file[body + 1] < 0x80, TransactionCodec.startsWithJobID(file[body + 2]) {
                let idLength = Int(file[body + 3])
                if idLength < 0x80, idLength <= length - 4 {
                    let id = UnsafeRawBufferPointer(rebasing: file[(body + 4)..<(body + 4 + idLength)])
                    hashes.append(IDHash.hash(utf8: id))
                }
            }
            offset = body + length
        }
        for hash in hashes { sink ^= jobs.readBucket(hash: hash) }
        return offset
    }
}
