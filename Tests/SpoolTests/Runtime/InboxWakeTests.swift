import Dispatch
import Foundation
import Testing

@testable import Spool

/// The runner wakes for a file written into the queue's `inbox/` (``DirectoryWatcher``) and runs
/// the ingestion hook (``InboxWake/ingestion``), with no polling: the runner waits with no deadline,
/// so only the watcher can wake it.
@Suite(.serialized) struct InboxWakeTests {
    /// Counts the hook's calls; ``next(after:)`` suspends (never blocks a thread) until a call
    /// after the given count.
    private final class Calls: Sendable {
        private struct State {
            var count = 0
            var lastCall: UInt64 = 0
            var waiter: (after: Int, continuation: CheckedContinuation<Void, Never>)?
        }
        private let state = Locked(State())

        var count: Int { state.withLock { $0.count } }
        var lastCall: UInt64 { state.withLock { $0.lastCall } }

        func record() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.count += 1
                state.lastCall = Platform.monotonicNanoseconds()
                guard let waiter = state.waiter, state.count > waiter.after else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }

        func next(after count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.count > count { return true }
                    state.waiter = (count, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
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
                    calls.record()
                    return 0
                }
            }
            runner.start()
            // The first pass ingests (the check at start), then waits with no deadline.
            await events.wait { $0.contains(.waiting(until: nil)) }
            #expect(calls.count >= 1)
            #expect(FileManager.default.fileExists(atPath: temp.queue + "/inbox"))
            var delays: [Double] = []
            for round in 0..<20 {
                let before = calls.count
                let written = Platform.monotonicNanoseconds()
                try writeFile(temp.queue + "/inbox/\(round).inbox", Array("frame \(round)".utf8))
                await calls.next(after: before)
                delays.append(Double(calls.lastCall &- written) / 1000)
                // Each round starts from an idle runner again.
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
