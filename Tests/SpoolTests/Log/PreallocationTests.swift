import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The log file grows in preallocated chunks; zeroes after the last record are its end.
@Suite(.blocking) struct PreallocationTests {
    private func fileSize(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).int64Value
    }

    @Test func theFileGrowsByChunksWithOneFullSyncEachAndCloseCutsTheRest() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.preallocationChunk = 64 << 10
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", id: "first"))
        #expect(try fileSize(logFilePath(temp.queue)) == 64 << 10)
        for index in 0..<1000 {
            try queue.enqueueWithoutWaiting(
                NewJob(kind: "k", payload: Data(repeating: 1, count: 100), id: JobID("j\(index)")))
        }
        try queue.waitUntilDurable()
        let statistics = queue.engine.writer.currentStatistics
        let size = try fileSize(logFilePath(temp.queue))
        #expect(size % (64 << 10) == 0 && size > 128 << 10)
        #expect(
            statistics.fullSyncs == Int(size / (64 << 10)) || statistics.fullSyncs == Int(size / (64 << 10)) - 1,
            "\(statistics) for a file of \(size) bytes")
        try closeChecked(queue)
        let bytes = try readFile(logFilePath(temp.queue))
        #expect(bytes.last != 0, "close cuts the reserved zeroes off")
        let reopened = try JobQueue(directory: temp.queue, configuration: configuration)
        #expect(try reopened.jobs().count == 1001)
        try closeChecked(reopened)
    }

    @Test func reservationsStartSmallAndDoubleWithTheFileUpToTheChunk() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.preallocationChunk = 1 << 20
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", id: "first"))
        #expect(try fileSize(logFilePath(temp.queue)) == LogWriter.firstReservation)
        var sizes: [Int64] = []
        for index in 0..<50 {
            try queue.enqueue(NewJob(kind: "k", payload: Data(repeating: 1, count: 60_000), id: JobID("j\(index)")))
            let size = try fileSize(logFilePath(temp.queue))
            if sizes.last != size { sizes.append(size) }
        }
        let first = LogWriter.firstReservation
        #expect(sizes == [first, 2 * first, 4 * first, 8 * first, 12 * first], "file sizes \(sizes)")
        #expect(queue.engine.writer.currentStatistics.fullSyncs == 5)
        try closeChecked(queue)
    }

    @Test func theFirstReservationAfterAnOpenIsSmallWhateverTheFilesSize() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.preallocationChunk = 1 << 20
        var queue = try JobQueue(directory: temp.queue, configuration: configuration)
        for index in 0..<40 {
            try queue.enqueue(NewJob(kind: "k", payload: Data(repeating: 1, count: 60_000), id: JobID("j\(index)")))
        }
        try closeChecked(queue)
        let end = try fileSize(logFilePath(temp.queue))
        let first = LogWriter.firstReservation
        // Between two whole chunks and a quarter chunk below the next: a chunk-sized step would reserve more.
        #expect(end > 2 << 20 && end < (3 << 20) - first, "\(end)")
        queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", id: "after-open"))
        // On Linux a reservation writes its zeroes: the first after an open stays small (one
        // first reservation, rounded), not as large as the file or a whole chunk.
        #expect(try fileSize(logFilePath(temp.queue)) == (end / first + 1) * first)
        try closeChecked(queue)
    }

    @Test func aCrashImageWithAZeroedTailOpensAndTheWriterReservesAgainAfterATornTail() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        try queue.enqueue(NewJob(kind: "k", id: "b"))
        // What the disk holds at a crash: the records, then the reserved zeroes.
        var image = try readFile(logFilePath(temp.queue))
        let records = queue.engine.writer.currentStatistics.records
        #expect(records == 2 && image.count == Int(LogWriter.firstReservation))
        try closeChecked(queue)
        let closedSize = try readFile(logFilePath(temp.queue)).count

        try writeFile(logFilePath(temp.queue), image)
        let clean = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try clean.jobs().map(\.id.rawValue) == ["a", "b"])
        #expect(clean.recoveryReport.tornTailBytes == 0)
        try closeChecked(clean)

        // A torn write inside the reserved space: cut off, then the writer reserves a chunk again.
        for index in closedSize..<(closedSize + 10) { image[index] = 0x5A }
        try writeFile(logFilePath(temp.queue), image)
        let repaired = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(repaired.recoveryReport.tornTailOffset == Int64(closedSize))
        #expect(try fileSize(logFilePath(temp.queue)) == Int64(closedSize))
        try repaired.enqueue(NewJob(kind: "k", id: "c"))
        #expect(repaired.engine.writer.currentStatistics.fullSyncs == 1)
        #expect(try fileSize(logFilePath(temp.queue)) == LogWriter.firstReservation)
        try closeChecked(repaired)
        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().map(\.id.rawValue) == ["a", "b", "c"])
        try closeChecked(reopened)
    }

    @Test func withoutPreallocationEveryWriteExtendsTheFile() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.preallocationChunk = 0
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", id: "a"))
        #expect(try fileSize(logFilePath(temp.queue)) < 200)
        #expect(queue.engine.writer.currentStatistics.fullSyncs == 0)
        try closeChecked(queue)
    }
}
