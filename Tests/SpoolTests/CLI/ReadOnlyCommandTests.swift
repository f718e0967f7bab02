import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// `spool list`, `show` and `stats`, run as the built executable, only read: they change no byte
/// of the queue directory, not even where an open would (a torn tail, an expired lease, a
/// snapshot a compaction left unfinished).
@Suite(.blocking) struct ReadOnlyCommandTests {
    /// Every file of `directory` and its bytes.
    private func contents(of directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    @Test(arguments: [["list"], ["list", "--json"], ["show", "running"], ["show", "running", "--json"], ["stats"]])
    func aReadingCommandChangesNothing(_ command: [String]) throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory()
        defer { temporary.cleanup() }
        // A lease that expired long ago, by the clock the command reads: an open would reclaim it.
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_000_000))
        var configuration = Configuration()
        configuration.clock = clock
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", payload: Data("p".utf8), id: "running"))
        try queue.enqueue(NewJob(kind: "k", id: "waiting"))
        _ = try #require(try queue.claim(leaseDuration: 60))
        try closeChecked(queue)
        // A torn tail on the last log file, and a snapshot leftover.
        let log = try #require(
            try FileManager.default.contentsOfDirectory(atPath: temporary.queue)
                .filter { $0.hasPrefix("wal-") }.max())
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary.queue + "/" + log))
        handle.seekToEndOfFile()
        handle.write(Data([0x2A, 0, 0, 0, 0x11, 0x22, 0x33]))
        handle.closeFile()
        try Data("unfinished".utf8).write(to: URL(fileURLWithPath: temporary.queue + "/snap-0000000000000009.tmp"))
        let before = try contents(of: temporary.queue)

        let result = try ChildProcess.run(binary, [command[0], temporary.queue] + command.dropFirst())
        #expect(result.status == 0, "\(result.output)")
        #expect(
            try contents(of: temporary.queue) == before, "spool \(command.joined(separator: " ")) changed the queue")
        if command[0] == "show" && command.contains("--json") {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            #expect(object["state"] as? String == "running" && object["payload"] as? String == "p")
        }
        if command[0] == "stats" { #expect(result.output.contains("running: 1"), "\(result.output)") }
    }
}
