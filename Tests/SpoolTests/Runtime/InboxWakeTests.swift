import Dispatch
import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The runner wakes for a file written into the queue's `inbox/` (``DirectoryWatcher``) and runs
/// the ingestion (``InboxWake/ingest()``, here one the test gives the runner), with no polling: the runner waits with no deadline,
/// so only the watcher can wake it.
@Suite(.serialized, .blocking) struct InboxWakeTests {
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

    /// Every pass reads the ingestion and runs it, so a read must leave it as it was: each run of a
    /// thousand, on one thread from one call site, starts at the same stack depth. (A bare function
    /// kept as a `Locked` value gained two reabstraction thunks a read, and each run began deeper
    /// than the last: a runner slowed with every pass and would in the end overflow its stack.)
    @Test func readingTheIngestionAtEveryPassLeavesItAsItWas() throws {
        let temp = TemporaryDirectory("spool-inbox-read")
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        let depths = Locked<[UInt]>([])
        let runner = try JobRunner(queue: queue, options: .init(), events: nil) {
            var marker = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            depths.withLock { $0.append(address) }
            return 0
        }
        for _ in 0..<1_000 { _ = try runner.inbox.ingest() }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 1_000)
        #expect(
            Set(seen).count == 1,
            "runs started at \(Set(seen).count) stack depths, \(seen.first.map { $0 - (seen.min() ?? $0) } ?? 0) bytes apart"
        )
        try closeChecked(queue)
    }

    /// A runner with a watcher looks into the inbox at its first pass, when the watcher sees a write,
    /// and otherwise at most once per `inboxCheckInterval`: a stream of jobs, each a pass or more,
    /// does not list the inbox per job. On a pinned clock the stream makes one ingestion; once the
    /// interval has passed, the next pass makes another.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aStreamOfJobsDoesNotLookIntoTheInboxAtEveryPass() async throws {
        let clock = ManualClock()
        let calls = Calls()
        let fixture = try RuntimeFixture(options: .init(maxConcurrentJobs: 1), clock: clock) {
            calls.record()
            return 0
        }
        try fixture.runner.register(kind: "ping") { _, _ in }
        let count = 20
        for index in 0..<count { try await fixture.queue.enqueue(NewJob(kind: "ping", id: JobID("j\(index)"))) }
        fixture.runner.start()
        await fixture.events.wait(for: count) { $0.isSuccess }
        await fixture.events.wait(until: { $0.last == .waiting(until: nil) })
        let passes = fixture.runner.statistics.passes
        #expect(passes > 1, "\(passes) passes")
        #expect(calls.count == 1, "\(calls.count) ingestions in \(passes) passes")
        clock.advance(by: fixture.queue.configuration.inboxCheckInterval)
        try await fixture.queue.enqueue(NewJob(kind: "ping", id: "late"))
        await calls.next(after: 1)
        await fixture.events.wait(for: count + 1) { $0.isSuccess }
        #expect(calls.count == 2)
        try await fixture.tearDown()
    }

    /// An ingestion that fails is tried again at the next pass, not an interval later; and an interval
    /// too long to count in nanoseconds (here infinite) never passes, and traps nothing.
    @Test(.timeLimit(.minutes(1)), .onThePool) func aFailedIngestionIsTriedAgainAtTheNextPass() async throws {
        let temp = TemporaryDirectory("spool-inbox-retry")
        defer { temp.cleanup() }
        var configuration = testConfiguration()
        configuration.inboxCheckInterval = .infinity
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        let events = RunnerEvents()
        let calls = Calls()
        let runner = try JobRunner(queue: queue, options: .init(), events: events) {
            calls.record()
            if calls.count == 1 { throw SpoolError(.ioFailure, "injected") }
            return 0
        }
        try runner.register(kind: "ping") { _, _ in }
        runner.start()
        await calls.next(after: 0)
        // Each enqueue makes a pass: the first retries the failed ingestion; the later ones do not look.
        for index in 0..<3 {
            try await queue.enqueue(NewJob(kind: "ping", id: JobID("j\(index)")))
            await events.wait(for: index + 1) { $0.isSuccess }
        }
        #expect(calls.count == 2, "\(calls.count) ingestions")
        await runner.stop()
        try closeChecked(queue)
    }

    #if os(Linux)
        @Test(.onThePool) func aFileWrittenIntoTheInboxWakesTheRunnerWhichIngests() async throws {
            let temp = TemporaryDirectory("spool-inbox-wake")
            defer { temp.cleanup() }
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            let events = RunnerEvents()
            let calls = Calls()
            let runner = try JobRunner(queue: queue, options: .init(), events: events) {
                calls.record()
                return 0
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
        @Test(.timeLimit(.minutes(1)), .onThePool) func aProducersWriteWakesTheRunnerOnceItsFileIsFree() async throws {
            let temp = TemporaryDirectory("spool-inbox-announce")
            defer { temp.cleanup() }
            let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
            let events = RunnerEvents()
            let calls = Calls()
            let busyAtWake = Locked(0)
            let inbox = temp.queue + "/inbox"
            let runner = try JobRunner(queue: queue, options: .init(), events: events) {
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
