import SpoolTestSupport
import Testing

@testable import Spool

/// The in-memory indexes replay fills: the id hash and the ready index's batched inserts.
@Suite(.blocking) struct ReplayIndexTests {
    private func job(_ id: String, kind: String, priority: Int32, runAt: Int64, sequence: UInt64) -> StoredJob {
        StoredJob(
            id: id, kind: kind, state: .enqueued, attempts: 0, maxAttempts: 3, priority: priority, sequence: sequence,
            createdAt: 0, runAt: runAt, nextRetryAt: nil, finishedAt: nil, uniqueKey: nil, lastError: nil,
            payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0), lease: nil)
    }

    @Test func anIDHashesAlikeFromItsStringAndFromItsBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-é漢🙂")
        for length in 0...70 {
            let id = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let fromBytes = Array(id.utf8).withUnsafeBytes { IDHash.hash(utf8: $0) }
            #expect(IDHash.hash(id) == fromBytes, "id \(id)")
        }
    }

    @Test func idsThatDifferInOneByteOrInLengthHashApart() {
        // Every byte counts, wherever it lies (block, overlapping tail, short tail), and so does the length.
        for length in 1...40 {
            let base = Array(repeating: UInt8(ascii: "a"), count: length)
            var hashes: Set<UInt32> = [IDHash.hash(String(decoding: base, as: UTF8.self))]
            for position in 0..<length {
                var changed = base
                changed[position] = UInt8(ascii: "b")
                hashes.insert(IDHash.hash(String(decoding: changed, as: UTF8.self)))
            }
            hashes.insert(IDHash.hash(String(decoding: base + [0], as: UTF8.self)))
            #expect(hashes.count == length + 2, "length \(length)")
        }
        // 32-bit hashes of 100,000 UUID-like ids: about one collision is expected, not hundreds.
        let hashes = Set((0..<100_000).map { IDHash.hash("00000000-0000-4000-8000-\(String($0, radix: 16))") })
        #expect(hashes.count >= 99_990)
    }

    @Test func batchedInsertsClaimInTheReadyOrder() {
        // Runs of one bucket (batched, some over the 1,024 that go to the heap whole), interleaved
        // buckets (flushed each time) and a bucket filled twice (a heap that already holds entries).
        var index = ReadyIndex()
        var jobs: [StoredJob] = []
        var generator = SystemRandomNumberGenerator()
        var sequence: UInt64 = 1
        func add(kind: String, priority: Int32, count: Int) {
            for _ in 0..<count {
                let runAt = Int64.random(in: 0..<50, using: &generator)
                let stored = job("j\(sequence)", kind: kind, priority: priority, runAt: runAt, sequence: sequence)
                sequence += 1
                jobs.append(stored)
                index.insert(stored)
            }
        }
        add(kind: "a", priority: 0, count: 3_000)
        for _ in 0..<200 {
            add(kind: "b", priority: 1, count: 1)
            add(kind: "a", priority: 0, count: 1)
        }
        add(kind: "b", priority: 1, count: 1_500)
        add(kind: "c", priority: 0, count: 10)
        add(kind: "a", priority: 0, count: 2_000)
        let expected = jobs.sorted {
            ($0.priority, -$0.runAt, -Int64($0.sequence)) > ($1.priority, -$1.runAt, -Int64($1.sequence))
        }.map(\.id)
        var taken = Set<String>()
        var claimed: [String] = []
        while let entry = index.best(dueAt: .max, kinds: .all, isCurrent: { !taken.contains($0.id) }) {
            taken.insert(entry.id)
            claimed.append(entry.id)
        }
        #expect(claimed == expected)
    }
}
