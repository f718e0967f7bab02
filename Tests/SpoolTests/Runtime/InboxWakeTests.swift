import Dispatch
import Foundation
import Testing

@testable import Spool

/// The runner wakes for a file written into the queue's `inbox/` (``DirectoryWatcher``) and runs
/// the ingestion hook (``InboxWake/ingestion``), with no polling: the runner waits with no deadline,
/// so only the watcher can wake it.
@Suite(.serialized) struct InboxWakeTests {
    /// Counts the hook's calls and signals each one.
    private final class Calls: Sendable {
        let count = Locked(0)
        let lastCall = Locked<UInt64>(0)
        let signal = DispatchSemaphore(value: 0)
    }

    #if os(Linux)
        @Test func aFileWrittenIntoTheInboxWakesTheRunnerWhichIngests() async throws {
            let temp = TemporaryDirectory("spool-inbox-wake")
            defer { temp.cleanup() }
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            let events = RunnerEvents()
            let runner = try JobRunner(queue: queue, events: events)
            let calls = Calls()
            runner.inbox.ingestion.withLock {
                $0 = {
                    calls.lastCall.withLock { $0 = Platform.monotonicNanoseconds() }
                    calls.count.withLock { $0 += 1 }
                    calls.signal.signal()
                    return 0
                }
            }
            runner.start()
            // The first pass ingests (the check at start), then waits with no deadline.
            await events.wait { $0.contains(.waiting(until: nil)) }
            #expect(calls.signal.wait(timeout: .now() + hangGuard) == .success)
            #expect(FileManager.default.fileExists(atPath: temp.queue + "/inbox"))
            var delays: [Double] = []
            for round in 0..<20 {
                let before = calls.count.withLock { $0 }
                let written = Platform.monotonicNanoseconds()
                try writeFile(temp.queue + "/inbox/\(round).inbox", Array("frame \(round)".utf8))
                #expect(calls.signal.wait(timeout: .now() + hangGuard) == .success, "round \(round)")
                #expect(calls.count.withLock { $0 } > before)
                delays.append(Double(calls.lastCall.withLock { $0 } &- written) / 1000)
                // Each round starts from an idle runner again.
                while calls.signal.wait(timeout: .now()) == .success {}
                await events.wait(for: round + 2) { $0 == .waiting(until: nil) }
            }
            await runner.stop()
            try closeChecked(queue)
            delays.sort()
            print(
                "inbox write to ingestion call: p50 \(Int(delays[delays.count / 2])) µs, "
                    + "max \(Int(delays.last ?? 0)) µs over \(delays.count) writes")
        }
    #endif

    @Test func theNotificationNameDependsOnThePathOnly() {
        let first = QueueDirectoryLayout.inboxNotificationName(directory: "/a/queue")
        #expect(first == QueueDirectoryLayout.inboxNotificationName(directory: "/a/queue"))
        #expect(first != QueueDirectoryLayout.inboxNotificationName(directory: "/b/queue"))
        #expect(first.hasPrefix("com.spool.inbox.") && first.count == "com.spool.inbox.".count + 8)
    }
}
