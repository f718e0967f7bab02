import Dispatch
import Foundation
import Testing

@testable import Spool

/// The runner wakes for a file written into the queue's `inbox/` (``DirectoryWatcher``) and runs
/// the ingestion hook (``InboxWake/ingestion``), with no polling: the runner waits with no deadline,
/// so only the watcher can wake it.
@Suite(.serialized) struct InboxWakeTests {
    /// Counts the hook's calls; ``next(after:)`` suspends (never blocks a thread) until a call
    /// after the given count, or until the test's time limit cancels it.
    private final class Calls: Sendable {
        private struct State {
            var count = 0
            var lastCall: UInt64 = 0
        }
        private let state = Awaitable(State())

        var count: Int { state.read { $0.count } }
        var lastCall: UInt64 { state.read { $0.lastCall } }

        func record() {
            state.update { state in
                state.count += 1
                state.lastCall = Platform.monotonicNanoseconds()
            }
        }

        func next(after count: Int) async { await state.wait { $0.count > count } }
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
                // Written beside the folder and moved in: the watcher sees the move (or a producer's announcement).
                try writeFile(temp.queue + "/\(round).inbox", Array("frame \(round)".utf8))
                let written = Platform.monotonicNanoseconds()
                try FileManager.default.moveItem(
                    atPath: temp.queue + "/\(round).inbox", toPath: temp.queue + "/inbox/\(round).inbox")
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

    #if os(Linux)
        /// A producer announces each write once its file is unlocked (``StorageFile/touch()`` on Linux):
        /// a write into a file that already exists wakes the runner, and the wake finds the file free
        /// (a wake at the write itself would find it locked and leave the record until the fallback check).
        @Test(.timeLimit(.minutes(1))) func aProducersWriteWakesTheRunnerOnceItsFileIsFree() async throws {
            let temp = TemporaryDirectory("spool-inbox-announce")
            defer { temp.cleanup() }
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            let events = RunnerEvents()
            let runner = try JobRunner(queue: queue, events: events)
            let calls = Calls()
            let busyAtWake = Locked(0)
            let inbox = temp.queue + "/inbox"
            runner.inbox.ingestion.withLock {
                $0 = {
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? [] {
                        guard let file = try? POSIXFileSystem().openFile(at: inbox + "/" + name, mode: .readWrite)
                        else { continue }
                        if (try? file.tryLockFile()) == true {
                            file.unlockFile()
                        } else {
                            busyAtWake.withLock { $0 += 1 }
                        }
                        file.close()
                    }
                    calls.record()
                    return 0
                }
            }
            runner.start()
            await events.wait { $0.contains(.waiting(until: nil)) }
            let producer = try QueueProducer(directory: temp.queue, configuration: testConfiguration())
            for round in 0..<20 {
                let before = calls.count
                try await producer.enqueue(NewJob(kind: "k", payload: Data([UInt8(round)])))
                // Without the announcement no wake comes at all (the runner waits with no deadline): the
                // test's time limit fails it.
                await calls.next(after: before)
                await events.wait(for: round + 2) { $0 == .waiting(until: nil) }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: inbox).count == 1, "one file for every call")
            #expect(busyAtWake.withLock { $0 } == 0, "a wake found the producer's file still locked")
            await runner.stop()
            try closeChecked(queue)
        }
    #endif

    @Test func theNotificationNameDependsOnThePathOnly() {
        let first = QueueDirectoryLayout.inboxNotificationName(directory: "/a/queue")
        #expect(first == QueueDirectoryLayout.inboxNotificationName(directory: "/a/queue"))
        #expect(first != QueueDirectoryLayout.inboxNotificationName(directory: "/b/queue"))
        #expect(first.hasPrefix("com.spool.inbox.") && first.count == "com.spool.inbox.".count + 8)
    }
}
