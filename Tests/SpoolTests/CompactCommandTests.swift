import Foundation
import Testing
@testable import Spool

/// `spool compact` and `spool stats`, run as the built executable.
@Suite struct CompactCommandTests {
    private static func run(_ binary: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func compactThenStats() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        // The system clock, as the command uses: the job it completes is not past the retention.
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        for index in 0..<20 { _ = try queue.enqueue(NewJob(kind: "k", payload: Data("job \(index)".utf8))) }
        _ = try queue.complete(try #require(try queue.claim()))
        try queue.close()

        let compacted = try Self.run(binary, ["compact", temporary.queue])
        #expect(compacted.status == 0)
        #expect(compacted.output.contains("20 jobs"), "\(compacted.output)")
        let stats = try Self.run(binary, ["stats", temporary.queue])
        #expect(stats.status == 0)
        #expect(stats.output.contains("enqueued: 19"), "\(stats.output)")
        #expect(stats.output.contains("succeeded: 1"), "\(stats.output)")
        #expect(stats.output.contains("log files: 2"), "\(stats.output)")
        #expect(stats.output.contains("created: "), "\(stats.output)")
        #expect(stats.output.contains("expired by retention: 0"), "\(stats.output)")
    }
}
