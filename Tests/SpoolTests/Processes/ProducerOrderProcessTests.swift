import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Producer calls are applied in the order they were acknowledged, across processes (issue #32 item 1;
/// FORMAT.md, *Producer inbox files*, "Order"). Producer processes (`spool produce --commands`) make
/// causal chains: a first call in one process, and once it returned a second call in another that
/// depends on it — appending to the first's unique key, replacing it, cancelling its job, cancelling by
/// the tag its jobs carry. A `.shared` owner process (`spool own --ingest-every`) ingests all the while;
/// it is stopped (SIGSTOP) and resumed mid-way, then killed (SIGKILL) and taken over by a new owner.
/// Every chain must come out as its calls' order says; ingested file by file, as builds before the
/// stamp did, the same run shows inversions.
@Suite(.blocking) struct ProducerOrderProcessTests {
    /// The four shapes of a chain: what the second call does to the first's work.
    enum Shape: CaseIterable {
        case append, replace, cancel, cancelByTag
    }

    /// One chain: its shape, the two producers, and the two command lines.
    struct Chain {
        var shape: Shape
        var first: Int
        var second: Int
        var index: Int

        var firstLine: String {
            switch shape {
            case .append, .replace: return "enqueue c\(index)-a chain key-\(index)"
            case .cancel: return "enqueue c\(index)-a chain"
            case .cancelByTag: return "enqueue-tagged tag-\(index) c\(index)-a c\(index)-b"
            }
        }

        var secondLine: String {
            switch shape {
            case .append: return "enqueue c\(index)-b chain key-\(index) append"
            case .replace: return "enqueue c\(index)-b chain key-\(index) replace"
            case .cancel: return "cancel c\(index)-a"
            case .cancelByTag: return "cancel-tag tag-\(index)"
            }
        }

        /// Whether the queue shows the second call applied before the first.
        func isInverted(in queue: JobQueue) throws -> Bool {
            let a = try queue.job(JobID("c\(index)-a"))
            switch shape {
            case .append:
                // Inverted, the second took the key first and the first (policy keep) was dropped.
                return try a == nil || queue.job(JobID("c\(index)-b"))?.blockingPrerequisites != [JobID("c\(index)-a")]
            case .replace:
                return try a?.state != .cancelled || queue.job(JobID("c\(index)-b"))?.uniqueKey != "key-\(index)"
            case .cancel:
                // Inverted, the cancel met no job and was dropped.
                return a?.state != .cancelled
            case .cancelByTag:
                return try queue.jobs(tagged: "tag-\(index)", state: .cancelled).count != 2
            }
        }
    }

    /// A child process answering its standard input line by line; every line it prints goes to `events`.
    final class LineChild: @unchecked Sendable {
        // @unchecked: `process` and the pipes are used from the driving thread only (the reader thread
        // reads its own handle), and `events` is thread-safe.
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()

        init(_ binary: String, _ arguments: [String], tag: Int, events: Events) throws {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reader = output.fileHandleForReading
            Thread.detachNewThread {
                ChildProcess.readLines(reader) { events.post(tag, $0) }
                events.post(tag, nil)
            }
        }

        var pid: Int32 { process.processIdentifier }

        func send(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        /// Ends the input (the child finishes what it was sent, then exits) and reaps it.
        func finish() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        func kill9() {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The lines every child printed, in the order they came (`nil`: that child's output ended).
    final class Events: @unchecked Sendable {
        // @unchecked: `queue` is guarded by `lock`; the semaphore counts its entries.
        private let lock = NSLock()
        private var queue: [(child: Int, line: String?)] = []
        private let available = DispatchSemaphore(value: 0)

        func post(_ child: Int, _ line: String?) {
            lock.withLock { queue.append((child, line)) }
            available.signal()
        }

        /// The next line, or `nil` when none came before `deadline`.
        func next(until deadline: Date) -> (child: Int, line: String?)? {
            guard available.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .success else {
                return nil
            }
            return lock.withLock { queue.removeFirst() }
        }
    }

    /// What a run found.
    struct Outcome {
        var chains = 0
        var inverted: [Shape: Int] = [:]
        var problems: [String] = []
        /// Jobs the owner processes ingested while the producers ran (the rest, the verifying open).
        var ingestedByOwners = 0
        var total: Int { inverted.values.reduce(0, +) }
    }

    /// Runs `count` chains over `producers` producer processes against owners ingesting as `order` says.
    static func run(chains count: Int, producers: Int, order: InboxOrder, seed: UInt64) throws -> Outcome {
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let temporary = TemporaryDirectory("producer-order")
        defer { temporary.cleanup() }
        var configuration = Configuration()
        configuration.sharing = .shared
        configuration.inboxOrder = order
        try JobQueue(directory: temporary.queue, configuration: configuration).close()

        let events = Events()
        let ownerTag = -1
        let ownerArguments =
            ["own", temporary.queue, "--lease", "600", "--ingest-every", "2"]
            + (order == .fileByFile ? ["--file-by-file"] : [])
        var owner = try LineChild(binary, ownerArguments, tag: ownerTag, events: events)
        let children = try (0..<producers).map {
            try LineChild(binary, ["produce", temporary.queue, "--commands"], tag: $0, events: events)
        }
        var outcome = Outcome(chains: count)
        defer {
            for child in children where child.process.isRunning { child.kill9() }
            if owner.process.isRunning {
                kill(owner.pid, SIGCONT)
                owner.kill9()
            }
        }
        var generator = SeededGenerator(seed: seed)
        let chains = (0..<count).map { index -> Chain in
            let first = Int.random(in: 0..<producers, using: &generator)
            let second = (first + Int.random(in: 1..<producers, using: &generator)) % producers
            return Chain(
                shape: Shape.allCases[index % Shape.allCases.count], first: first, second: second, index: index)
        }
        var waiting: [String: (chain: Int, isFirst: Bool)] = [:]
        func start(_ index: Int) {
            waiting[chains[index].firstLine] = (index, true)
            children[chains[index].first].send(chains[index].firstLine)
        }
        let deadline = Date().addingTimeInterval(600)
        let window = 24
        var next = min(window, count)
        (0..<next).forEach(start)
        var done = 0
        // The owner: ingesting, then stopped over a stretch of chains, resumed, then killed and taken over.
        var phase = 0
        while done < count {
            guard let event = events.next(until: deadline) else {
                outcome.problems.append("no answer before the deadline: \(done) chains done")
                return outcome
            }
            guard let line = event.line else {
                if event.child != ownerTag { outcome.problems.append("producer \(event.child) ended early") }
                continue
            }
            if event.child == ownerTag {
                if line != "owner" { outcome.problems.append("owner: \(line)") }
                continue
            }
            guard line.hasPrefix("ok "), let step = waiting.removeValue(forKey: String(line.dropFirst(3))) else {
                outcome.problems.append("producer \(event.child): \(line)")
                continue
            }
            let chain = chains[step.chain]
            if step.isFirst {
                // The second call starts after the first returned.
                waiting[chain.secondLine] = (step.chain, false)
                children[chain.second].send(chain.secondLine)
                continue
            }
            done += 1
            if next < count {
                start(next)
                next += 1
            }
            switch phase {
            case 0 where done >= count / 4:
                kill(owner.pid, SIGSTOP)
                phase = 1
            case 1 where done >= count * 2 / 5:
                kill(owner.pid, SIGCONT)
                phase = 2
            case 2 where done >= count * 3 / 5:
                owner.kill9()
                owner = try LineChild(binary, ownerArguments, tag: ownerTag, events: events)
                phase = 3
            default: break
            }
        }
        for child in children { child.finish() }
        owner.send("close")
        owner.finish()
        outcome.ingestedByOwners = try LogInspector.records(directory: temporary.queue).flatMap(\.operations)
            .filter { $0.name.hasPrefix("enqueue") }.count
        // The last records are ingested by the open that verifies (in the same order).
        let queue = try JobQueue(directory: temporary.queue, configuration: configuration)
        for chain in chains where try chain.isInverted(in: queue) {
            outcome.inverted[chain.shape, default: 0] += 1
        }
        try closeChecked(queue)
        return outcome
    }

    static let chainCount = Int(ProcessInfo.processInfo.environment["SPOOL_ORDER_CHAINS"] ?? "") ?? 1_000

    @Test func causalChainsAcrossProducerProcessesAreAppliedInOrder() throws {
        let outcome = try Self.run(chains: Self.chainCount, producers: 4, order: .merged, seed: 32)
        print(
            "producer order, merged: \(outcome.chains) chains, \(outcome.ingestedByOwners) jobs ingested by the owners, "
                + "inversions \(outcome.inverted)")
        #expect(outcome.problems.isEmpty, "\(outcome.problems.prefix(5))")
        #expect(outcome.ingestedByOwners > Self.chainCount / 2, "the owners ingested while the producers wrote")
        #expect(outcome.total == 0, "\(outcome.inverted)")
    }

    /// The same run ingested file by file shows inversions: the test above would see them.
    @Test func fileByFileTheSameChainsAreInverted() throws {
        let outcome = try Self.run(chains: 400, producers: 4, order: .fileByFile, seed: 33)
        print(
            "producer order, file by file: \(outcome.chains) chains, \(outcome.ingestedByOwners) jobs ingested by the "
                + "owners, inversions \(outcome.inverted)")
        #expect(outcome.problems.isEmpty, "\(outcome.problems.prefix(5))")
        #expect(outcome.total > 0)
    }
}
