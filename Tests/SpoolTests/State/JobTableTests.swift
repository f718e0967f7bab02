import SpoolTestSupport
import Testing

@testable import Spool

/// The state's job table behaves as the dictionary it replaced.
@Suite(.blocking) struct JobTableTests {
    private func job(_ id: String, sequence: UInt64) -> StoredJob {
        StoredJob(
            id: id, kind: "k", state: .enqueued, attempts: 0, maxAttempts: 3, priority: 0, sequence: sequence,
            createdAt: 0, runAt: 0, nextRetryAt: nil, finishedAt: nil, uniqueKey: nil, lastError: nil,
            payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0), lease: nil)
    }

    @Test func insertUpdateAndRemoveMatchADictionary() {
        var table = JobTable()
        var model: [String: StoredJob] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            let id = "j\(Int.random(in: 0..<3_000, using: &generator))"
            switch Int.random(in: 0..<3, using: &generator) {
            case 0, 1:
                let value = job(id, sequence: UInt64(step))
                table[id] = value
                model[id] = value
            default:
                table[id] = nil
                model[id] = nil
            }
            #expect(table.count == model.count)
            #expect(table[id] == model[id])
        }
        #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }) == model)
        // Every id is found through the index after all the removals' shifts, and no removed one.
        #expect((0..<3_000).allSatisfy { table["j\($0)"] == model["j\($0)"] })
        #expect(table.values.count == model.count && table.isEmpty == model.isEmpty)
        #expect(table.mapValues(\.sequence) == model.mapValues(\.sequence))
    }

    @Test func anIndexSizedForFarMoreJobsShrinksAndKeepsEveryJob() {
        var table = JobTable()
        table.reserveIndexCapacity(100_000)
        for index in 0..<10 { table["j\(index)"] = job("j\(index)", sequence: UInt64(index)) }
        table.shrinkIndexIfSparse()
        #expect(table.indexCapacity < 100_000)
        for index in 0..<10 { #expect(table["j\(index)"]?.sequence == UInt64(index)) }
        #expect(table["j10"] == nil)
    }

    @Test func replaysReservationFillsWithoutGrowingAndShrinksWhenFarTooLarge() {
        var table = JobTable()
        table.reserveCapacity(100_000)
        #expect(table.arrayCapacity >= 100_000 && table.indexCapacity >= 100_000)
        for index in 0..<10 { table.insertNew(job("j\(index)", sequence: UInt64(index))) }
        #expect(table.arrayCapacity >= 100_000)
        table.shrinkIndexIfSparse()
        #expect(table.arrayCapacity < 100_000 && table.indexCapacity < 100_000)
        for index in 0..<10 { #expect(table["j\(index)"]?.sequence == UInt64(index)) }
        #expect(table["j10"] == nil && table.count == 10)
        // A reservation the jobs fill is kept: nothing is copied after replay.
        var full = JobTable()
        full.reserveCapacity(2_000)
        for index in 0..<2_000 { full.insertNew(job("j\(index)", sequence: UInt64(index))) }
        let capacity = full.arrayCapacity
        full.shrinkIndexIfSparse()
        #expect(full.arrayCapacity == capacity && full["j1999"]?.sequence == 1999)
    }
}
