import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Several processes whose first `spool enqueue` creates the same queue at the same moment: each
/// succeeds, and they all end up in one queue, whose log has one instance id.
@Suite(.blocking) struct QueueCreationRaceTests {
    static let trials = Int(ProcessInfo.processInfo.environment["SPOOL_CREATION_TRIALS"] ?? "") ?? 6
    static let creators = 8

    @Test func creatorsRacingOnOneNewQueueAllSucceedIntoOneQueue() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("spool-create-race")
        defer { temporary.cleanup() }
        for trial in 0..<Self.trials {
            // Many missing levels, so that the creators race on every `mkdir` of the path (each level's
            // parent is synced, which lets the later creators catch up with the first).
            let directory = temporary.path + "/trial-\(trial)/" + (0..<12).map { "level-\($0)/" }.joined() + "queue"
            // A starting gate: each child's shell blocks reading the pipe until the write end is
            // closed, then all exec `spool` at once.
            var gate: [Int32] = [0, 0]
            #expect(pipe(&gate) == 0)
            for descriptor in gate { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            var started: [RawCommand.Started] = []
            for creator in 0..<Self.creators {
                let arguments = [
                    "-c", "read gate; exec \"$0\" \"$@\"", binary, "enqueue", directory,
                    "--kind", "k", "--id", "job-\(creator)",
                ]
                started.append(
                    try RawCommand.start(
                        "/bin/sh", arguments.map { Array($0.utf8) },
                        standardInput: gate[0], scratch: temporary.path))
            }
            close(gate[0])
            close(gate[1])
            let results = try started.map(RawCommand.finish)
            for (creator, result) in results.enumerated() {
                #expect(
                    result.status == 0 && result.output == "job-\(creator)\n",
                    "trial \(trial), creator \(creator): exit \(result.status): \(result.error)")
            }

            let logs = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { QueueDirectoryLayout.logSequence(fromFileName: $0) != nil }
            let instanceIDs = Set(try logs.map { Array(try readFile(directory + "/" + $0)[12..<28]) })
            #expect(instanceIDs.count == 1, "trial \(trial): log files \(logs) with \(instanceIDs.count) instance ids")
            let queue = try JobQueue(directory: directory, configuration: testConfiguration())
            let ids = Set(try queue.jobs().map(\.id.rawValue))
            #expect(
                ids == Set((0..<Self.creators).map { "job-\($0)" }), "trial \(trial): the queue holds \(ids.sorted())")
            try closeChecked(queue)
        }
    }
}
