import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The log rolls over to new files past the log file size; a reopen reads them all.
@Suite(.blocking) struct LogFileRollOverTests {
    private func configuration(_ clock: ManualClock) -> Configuration {
        var configuration = testConfiguration(clock: clock)
        configuration.logFileSize = 2048
        configuration.preallocationChunk = 4096
        return configuration
    }

    private func logSequences(_ directory: String) throws -> [UInt64] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .compactMap(QueueDirectoryLayout.logSequence(fromFileName:)).sorted()
    }

    @Test func rollOverAcrossManyLogFilesThenReopen() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        var payloads: [JobID: Data] = [:]
        for index in 0..<300 {
            let payload = Data("payload \(index) ".utf8 + Array(repeating: UInt8(index % 251), count: index % 90))
            let id = try queue.enqueue(
                NewJob(kind: "k", payload: payload, uniqueKey: index % 7 == 0 ? "key-\(index)" : nil))
            payloads[id] = payload
            if index % 3 == 0, let lease = try queue.claim() {
                #expect(lease.payload == payloads[lease.job.id])
                if index % 2 == 0 {
                    _ = try queue.complete(lease)
                } else {
                    _ = try queue.fail(lease, error: "e\(index)")
                }
            }
            clock.advance(by: 1)
        }
        let sequences = try logSequences(temporary.queue)
        #expect(sequences.count > 10, "files: \(sequences)")
        #expect(sequences == Array(1...UInt64(sequences.count)))
        // Every file but the last is at most one record past the log file size, preallocation cut off.
        for sequence in sequences.dropLast() {
            let size = try readFile(temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: sequence)).count
            #expect(size < 2048 + 1024, "file \(sequence) is \(size) bytes")
        }
        for (id, payload) in payloads { #expect(try queue.payload(of: id) == payload) }
        let before = queue.engine.stateSnapshot
        try closeChecked(queue)

        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        #expect(comparableJobs(reopened.engine.stateSnapshot) == comparableJobs(before))
        #expect(reopened.recoveryReport.filesRead == sequences.count)
        for (id, payload) in payloads { #expect(try reopened.payload(of: id) == payload) }
        // Writing goes on in the last file.
        _ = try reopened.enqueue(NewJob(kind: "k", payload: Data("after".utf8)))
        #expect(try logSequences(temporary.queue).count >= sequences.count)
    }

    @Test func aNewFileWithOnlyItsHeaderIsWhereWritingResumes() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        let first = try queue.enqueue(NewJob(kind: "k", payload: Data("one".utf8)))
        try queue.engine.lockedRollOver()
        try closeChecked(queue)
        #expect(try logSequences(temporary.queue) == [1, 2])
        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        let second = try reopened.enqueue(NewJob(kind: "k", payload: Data("two".utf8)))
        #expect(try reopened.payload(of: first) == Data("one".utf8))
        #expect(try reopened.payload(of: second) == Data("two".utf8))
        #expect(
            try reopened.job(second).map { _ in
                reopened.engine.stateSnapshot.jobs[second.rawValue]!.payload.fileSequence
            } == 2)
    }

    @Test func aTornNewFileIsRemovedAtOpen() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        let clock = ManualClock()
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        let id = try queue.enqueue(NewJob(kind: "k", payload: Data("kept".utf8)))
        try closeChecked(queue)
        // A crash while file 2 was being created: fewer bytes than a header.
        let torn = temporary.queue + "/" + QueueDirectoryLayout.logFileName(sequence: 2)
        try writeFile(torn, Array(readFile(logFilePath(temporary.queue)).prefix(17)))
        let reopened = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        defer { try? closeChecked(reopened) }
        #expect(try logSequences(temporary.queue) == [1])
        #expect(try reopened.payload(of: id) == Data("kept".utf8))
    }

    /// Every acknowledged enqueue is on disk when the call returns, also the one
    /// that rolled the log over (its wait must go to the new file's writer).
    @Test func everyAcknowledgedRecordSurvivesPowerLossAcrossRollOvers() throws {
        let disk = SimulatedDisk()
        var configuration = configuration(ManualClock())
        configuration.fileSystem = disk
        configuration.logFileSize = 300
        let queue = try JobQueue(directory: "/q", configuration: configuration)
        defer { try? closeChecked(queue) }
        for index in 0..<40 {
            let id = try queue.enqueue(NewJob(kind: "k", payload: Data("payload \(index)".utf8)))
            var imageConfiguration = configuration
            imageConfiguration.fileSystem = disk.crashImage()
            let recovered = try JobQueue(directory: "/q", configuration: imageConfiguration)
            #expect(try recovered.counts()[.enqueued] == index + 1, "after enqueue \(index)")
            #expect(try recovered.payload(of: id) == Data("payload \(index)".utf8))
            try closeChecked(recovered)
        }
        #expect(queue.engine.writer.fileSequence > 5)
    }
}
