import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// How replay reads its input: a log file read whole, and the job-index buckets read ahead.
@Suite(.blocking) struct ReplayInputTests {
    @Test func aFileReadWholeHoldsTheBytesAReadReturns() throws {
        let temp = TemporaryDirectory("whole")
        defer { temp.cleanup() }
        var generator = SeededGenerator(seed: 5)
        let fileSystem = POSIXFileSystem()
        for (name, count) in [("empty", 0), ("one", 1), ("pages", 3 * 4096 + 17)] {
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try writeFile(temp.path + "/" + name, bytes)
            let file = try fileSystem.openFile(at: temp.path + "/" + name, mode: .readOnly)
            defer { file.close() }
            let whole = try file.withContents { Array($0) }
            let read = try file.read(at: 0, count: count)
            #expect(whole == bytes && whole == read, "\(name)")
        }
    }

    /// A log of one-enqueue records, as the writer frames them, and their ids.
    private func log(records: Int) -> (bytes: [UInt8], ids: [String]) {
        var bytes: [UInt8] = []
        var ids: [String] = []
        for index in 0..<records {
            let id = "job-\(index)-" + String(repeating: "x", count: index % 40)
            ids.append(id)
            let body = TransactionCodec.encode([
                .enqueue(
                    NewEnqueue(
                        id: id, kind: "k", payload: Data([1, 2]), priority: 0,
                        createdAt: 0, runAt: 0, maxAttempts: 1, uniqueKey: nil))
            ])
            body.withUnsafeBytes { raw in
                _ = RecordFrame.append(
                    body: raw, type: .transaction, lsn: UInt64(index + 1), groupIndex: 0, seed: 7, to: &bytes)
            }
        }
        return (bytes, ids)
    }

    @Test func theWarmerReadsTheBucketsOfTheNextRecordsIDs() {
        var jobs = JobTable()
        jobs.reserveCapacity(4_096)
        let (bytes, ids) = log(records: 40)
        // The jobs are in the table, so that each one's first bucket holds an entry (its own or
        // another's): the folded reads tell which buckets were read.
        for (index, id) in (ids + (0..<1_000).map { "other-\($0)" }).enumerated() {
            jobs.insertNew(
                StoredJob(
                    id: id, kind: "k", state: .enqueued, attempts: 0, maxAttempts: 1,
                    priority: 0, sequence: UInt64(index), createdAt: 0, runAt: 0, nextRetryAt: nil,
                    finishedAt: nil, uniqueKey: nil, lastError: nil,
                    payload: PayloadLocation(fileSequence: 1, offset: 0, length: 0, checksum: 0), lease: nil))
        }
        let expected = ids.prefix(JobIndexWarmer.lookahead).reduce(UInt64(0)) {
            $0 ^ jobs.readBucket(hash: IDHash.hash($1))
        }
        #expect(
            ids.prefix(JobIndexWarmer.lookahead).allSatisfy { jobs.readBucket(hash: IDHash.hash($0)) != 0 }
                && expected != 0)
        bytes.withUnsafeBytes { raw in
            var warmer = JobIndexWarmer()
            warmer.warm(recordAt: 0, in: raw, jobs: jobs)
            #expect(warmer.sink == expected)
            // The records it looked at are not read again.
            let second = RecordFrame.parse(raw, at: 0, seed: 7)
            guard case .success(let found) = second else {
                Issue.record("no record")
                return
            }
            warmer.warm(recordAt: found.end, in: raw, jobs: jobs)
            #expect(warmer.sink == expected)
        }
    }

    @Test func theWarmerNeverReadsPastTheFile() {
        // Cut anywhere, overwritten with random bytes, or all 0xFF: it only ever guesses, within bounds.
        let jobs = JobTable()
        let (bytes, _) = log(records: 20)
        var generator = SeededGenerator(seed: 9)
        for cut in 0...bytes.count {
            var damaged = Array(bytes[..<cut])
            if cut % 3 == 0, !damaged.isEmpty {
                for _ in 0..<4 {
                    damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            }
            damaged.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count, by: 7) {
                    var warmer = JobIndexWarmer()
                    warmer.warm(recordAt: offset, in: raw, jobs: jobs)
                }
            }
        }
        [UInt8](repeating: 0xFF, count: 100).withUnsafeBytes { raw in
            var warmer = JobIndexWarmer()
            warmer.warm(recordAt: 0, in: raw, jobs: jobs)
        }
    }
}
