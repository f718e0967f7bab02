import Dispatch
import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// "Durable before return" (issue #14 item 2): no mutator returns while its record's sync is held,
/// and after a failed write or sync no read shows the change that never reached the disk.
@Suite(.serialized, .blocking) struct DurableBeforeReturnTests {
    private struct Upload: JobKind {
        static let kind = "upload"
        var path: String
    }

    /// What a case starts from: a queue on a file system whose syncs the test can hold, its clock,
    /// and a lease on job "leased" (claimed, running) next to enqueued jobs "a" (tag "t") and "b" (key "key-b").
    private struct Fixture {
        let temp = TemporaryDirectory()
        let fileSystem = FaultyFileSystem()
        let clock = ManualClock()
        var configuration: Configuration
        let queue: JobQueue
        let lease: Lease

        init() throws {
            configuration = testConfiguration(clock: clock)
            configuration.fileSystem = fileSystem
            configuration.retention = 0
            configuration.autoCompaction = nil
            queue = try JobQueue(directory: temp.queue, configuration: configuration)
            try queue.enqueue(NewJob(kind: "lease", id: "leased"))
            lease = try #require(try queue.claim(kind: "lease", leaseDuration: 10))
            try queue.enqueue(NewJob(kind: "k", id: "a", tags: ["t"]))
            try queue.enqueue(NewJob(kind: "k", id: "b", uniqueKey: "key-b"))
        }
    }

    private typealias Act = @Sendable (JobQueue, Lease, Fixture) async throws -> Void

    /// Parks the fixture's leased job under key `t1` (before the sync is held), for the calls that complete or
    /// fail a parked job by key.
    private static let parkLease: @Sendable (Fixture) throws -> Void = { fixture in
        _ = try fixture.queue.park(fixture.lease, key: "t1", deadline: fixture.clock.now().addingTimeInterval(60))
    }

    /// Every public mutator of ``JobQueue`` (and the runtime's two internal ones), blocking and async.
    /// ``everyPublicCallOfJobQueueIsClassified()`` fails when a public call is added that is in
    /// neither this list nor ``notChanges``, so a new mutator must be added here and is then checked.
    private static let mutators: [(name: String, prepare: (@Sendable (Fixture) throws -> Void)?, act: Act)] = [
        ("enqueue(_:)", nil, { q, _, _ in try q.enqueue(NewJob(kind: "k")) }),
        ("enqueue(_:) async", nil, { q, _, _ in try await q.enqueue(NewJob(kind: "k")) }),
        (
            "park(_:key:deadline:)", nil,
            { q, lease, f in
                _ = try q.park(lease, key: "t1", deadline: f.clock.now().addingTimeInterval(60))
            }
        ),
        (
            "park(_:key:deadline:) async", nil,
            { q, lease, f in
                _ = try await q.park(lease, key: "t1", deadline: f.clock.now().addingTimeInterval(60))
            }
        ),
        ("park(_:key:for:)", nil, { q, lease, _ in _ = try q.park(lease, key: "t1", for: 60) }),
        ("park(_:key:for:) async", nil, { q, lease, _ in _ = try await q.park(lease, key: "t1", for: 60) }),
        ("completeParked(key:)", Self.parkLease, { q, _, _ in _ = try q.completeParked(key: "t1") }),
        ("completeParked(key:) async", Self.parkLease, { q, _, _ in _ = try await q.completeParked(key: "t1") }),
        ("failParked(key:error:terminal:)", Self.parkLease, { q, _, _ in _ = try q.failParked(key: "t1", error: "e") }),
        (
            "failParked(key:error:terminal:) async", Self.parkLease,
            { q, _, _ in
                _ = try await q.failParked(key: "t1", error: "e")
            }
        ),
        ("reconcileParked(stillPending:)", Self.parkLease, { q, _, _ in _ = try q.reconcileParked(stillPending: []) }),
        (
            "reconcileParked(stillPending:) async", Self.parkLease,
            { q, _, _ in
                _ = try await q.reconcileParked(stillPending: [])
            }
        ),
        ("checkpoint(_:_:renewingFor:)", nil, { q, lease, _ in _ = try q.checkpoint(lease, Data([1])) }),
        ("checkpoint(_:_:renewingFor:) async", nil, { q, lease, _ in _ = try await q.checkpoint(lease, Data([1])) }),
        ("pause(kind:)", nil, { q, _, _ in try q.pause(kind: "k") }),
        ("pause(kind:) async", nil, { q, _, _ in try await q.pause(kind: "k") }),
        ("resume(kind:)", { f in try f.queue.pause(kind: "k") }, { q, _, _ in try q.resume(kind: "k") }),
        ("resume(kind:) async", { f in try f.queue.pause(kind: "k") }, { q, _, _ in try await q.resume(kind: "k") }),
        ("setRateLimit(_:kind:)", nil, { q, _, _ in try q.setRateLimit(RateLimit(starts: 1, per: 1), kind: "k") }),
        (
            "setRateLimit(_:kind:) async", nil,
            { q, _, _ in try await q.setRateLimit(RateLimit(starts: 1, per: 1), kind: "k") }
        ),
        (
            "enqueue(contentsOf:)", nil,
            { q, _, _ in try q.enqueue(contentsOf: [NewJob(kind: "k"), NewJob(kind: "k")]) }
        ),
        ("enqueue(contentsOf:) async", nil, { q, _, _ in try await q.enqueue(contentsOf: [NewJob(kind: "k")]) }),
        (
            "enqueue(_:id:priority:runAt:delay:maxAttempts:uniqueKey:uniquePolicy:dependencies:constraints:periodic:tags:retryPolicy:)",
            nil,
            { q, _, _ in try q.enqueue(Upload(path: "/p")) }
        ),
        (
            "enqueue(_:id:priority:runAt:delay:maxAttempts:uniqueKey:uniquePolicy:dependencies:constraints:periodic:tags:retryPolicy:) async",
            nil,
            { q, _, _ in try await q.enqueue(Upload(path: "/p")) }
        ),
        (
            "claim(kind:leaseDuration:)", nil,
            { q, _, _ in
                let result = try q.claim(kind: "k")
                #expect(result != nil)
            }
        ),
        (
            "claim(kind:leaseDuration:) async", nil,
            { q, _, _ in
                let result = try await q.claim(kind: "k")
                #expect(result != nil)
            }
        ),
        (
            "claim(kinds:leaseDuration:) async", nil,
            { q, _, _ in
                let result = try await q.claim(kinds: KindSet("k"), leaseDuration: nil)
                #expect(result != nil)
            }
        ),
        (
            "claim(kinds:leaseDuration:)", nil,
            { q, _, _ in
                let result = try q.claim(kinds: ["k", "other"])
                #expect(result != nil)
            }
        ),
        (
            "claim(kinds:leaseDuration:) async", nil,
            { q, _, _ in
                let result = try await q.claim(kinds: ["k", "other"])
                #expect(result != nil)
            }
        ),
        ("renew(_:for:)", nil, { q, lease, _ in try q.renew(lease) }),
        ("renew(_:for:) async", nil, { q, lease, _ in try await q.renew(lease) }),
        ("renewRecorded(_:for:) async", nil, { q, lease, _ in _ = try await q.renewRecorded(lease, for: nil) }),
        ("complete(_:)", nil, { q, lease, _ in try q.complete(lease) }),
        ("complete(_:) async", nil, { q, lease, _ in try await q.complete(lease) }),
        ("complete(_:result:)", nil, { q, lease, _ in try q.complete(lease, result: Data([1])) }),
        ("complete(_:result:) async", nil, { q, lease, _ in try await q.complete(lease, result: Data([1])) }),
        (
            "cancel(tagged:)", nil,
            { q, _, _ in
                let result = try q.cancel(tagged: "t")
                #expect(result.count == 1)
            }
        ),
        (
            "cancel(tagged:) async", nil,
            { q, _, _ in
                let result = try await q.cancel(tagged: "t")
                #expect(result.count == 1)
            }
        ),
        ("complete(_:token:)", nil, { q, lease, _ in try q.complete(lease.job.id, token: lease.token) }),
        ("complete(_:token:) async", nil, { q, lease, _ in try await q.complete(lease.job.id, token: lease.token) }),
        (
            "complete(_:token:result:)", nil,
            { q, lease, _ in try q.complete(lease.job.id, token: lease.token, result: Data([1])) }
        ),
        (
            "complete(_:token:result:) async", nil,
            { q, lease, _ in try await q.complete(lease.job.id, token: lease.token, result: Data([1])) }
        ),
        ("fail(_:error:terminal:)", nil, { q, lease, _ in try q.fail(lease, error: "e") }),
        ("fail(_:error:terminal:) async", nil, { q, lease, _ in try await q.fail(lease, error: "e") }),
        ("release(_:reason:)", nil, { q, lease, _ in try q.release(lease, reason: .systemTimeExpired) }),
        ("release(_:reason:) async", nil, { q, lease, _ in try await q.release(lease, reason: .runnerStopped) }),
        (
            "snooze(_:until:attempt:)", nil,
            { q, lease, _ in try q.snooze(lease, until: Date(timeIntervalSince1970: 2e9)) }
        ),
        (
            "snooze(_:until:attempt:) async", nil,
            { q, lease, _ in try await q.snooze(lease, until: Date(timeIntervalSince1970: 2e9), attempt: .keep) }
        ),
        (
            "fail(_:token:error:terminal:)", nil,
            { q, lease, _ in try q.fail(lease.job.id, token: lease.token, error: "e") }
        ),
        (
            "fail(_:token:error:terminal:) async", nil,
            { q, lease, _ in try await q.fail(lease.job.id, token: lease.token, error: "e") }
        ),
        (
            "reclaimExpiredLeases()", { $0.clock.advance(by: 60) },
            { q, _, _ in
                let result = try q.reclaimExpiredLeases()
                #expect(result == ["leased"])
            }
        ),
        (
            "reclaimExpiredLeases() async", { $0.clock.advance(by: 60) },
            { q, _, _ in
                let result = try await q.reclaimExpiredLeases()
                #expect(result == ["leased"])
            }
        ),
        ("cancel(_:)", nil, { q, _, _ in try q.cancel("a") }),
        ("cancel(_:) async", nil, { q, _, _ in try await q.cancel("a") }),
        ("requestCancel(_:)", nil, { q, _, _ in try q.requestCancel("a") }),
        ("requestCancel(_:) async", nil, { q, _, _ in try await q.requestCancel("a") }),
        ("requestCancel(tagged:)", nil, { q, _, _ in try q.requestCancel(tagged: "t") }),
        ("requestCancel(tagged:) async", nil, { q, _, _ in try await q.requestCancel(tagged: "t") }),
        (
            "completeParked(key:result:)", Self.parkLease,
            { q, _, _ in _ = try q.completeParked(key: "t1", result: Data([1])) }
        ),
        (
            "completeParked(key:result:) async", Self.parkLease,
            { q, _, _ in _ = try await q.completeParked(key: "t1", result: Data([1])) }
        ),
        (
            "failParked(key:error:retryAt:)", Self.parkLease,
            { q, _, f in _ = try q.failParked(key: "t1", error: "e", retryAt: f.clock.now().addingTimeInterval(120)) }
        ),
        (
            "failParked(key:error:retryAt:) async", Self.parkLease,
            { q, _, f in
                _ = try await q.failParked(key: "t1", error: "e", retryAt: f.clock.now().addingTimeInterval(120))
            }
        ),
        (
            "retry(_:)", { try $0.queue.fail($0.lease, error: "e", terminal: true) },
            { q, _, _ in try q.retry("leased") }
        ),
        (
            "retry(_:) async", { try $0.queue.fail($0.lease, error: "e", terminal: true) },
            { q, _, _ in try await q.retry("leased") }
        ),
        (
            "reschedule(_:runAt:)", nil,
            { q, _, f in try q.reschedule("a", runAt: f.clock.now().addingTimeInterval(60)) }
        ),
        (
            "reschedule(_:runAt:) async", nil,
            { q, _, f in try await q.reschedule("a", runAt: f.clock.now().addingTimeInterval(60)) }
        ),
        (
            "update(_:constraints:)", nil,
            { q, _, _ in try q.update("a", constraints: JobConstraints(requiresNetwork: true)) }
        ),
        (
            "update(_:constraints:) async", nil,
            { q, _, _ in try await q.update("a", constraints: JobConstraints(requiresNetwork: true)) }
        ),
        ("delete(_:)", nil, { q, _, _ in try q.delete("a") }),
        ("delete(_:) async", nil, { q, _, _ in try await q.delete("a") }),
        (
            "cancel(kind:)", nil,
            { q, _, _ in
                let result = try q.cancel(kind: "k")
                #expect(result.count == 2)
            }
        ),
        (
            "cancel(kind:) async", nil,
            { q, _, _ in
                let result = try await q.cancel(kind: "k")
                #expect(result.count == 2)
            }
        ),
        (
            "cancel(uniqueKey:)", nil,
            { q, _, _ in
                let result = try q.cancel(uniqueKey: "key-b")
                #expect(result.count == 1)
            }
        ),
        (
            "cancel(uniqueKey:) async", nil,
            { q, _, _ in
                let result = try await q.cancel(uniqueKey: "key-b")
                #expect(result.count == 1)
            }
        ),
        // A finished job past the retention (0 s): compaction's first record expires it.
        (
            "compact()",
            {
                try $0.queue.complete($0.lease)
                $0.clock.advance(by: 1)
            },
            { q, _, _ in
                let result = try q.compact()
                #expect(result.jobsExpired == 1)
            }
        ),
        (
            "compact() async",
            {
                try $0.queue.complete($0.lease)
                $0.clock.advance(by: 1)
            },
            { q, _, _ in
                let result = try await q.compact()
                #expect(result.jobsExpired == 1)
            }
        ),
        // A producer's job waiting in the inbox: the ingestion returns once its transaction is durable.
        (
            "ingestInbox()",
            { f in
                try QueueProducer(directory: f.temp.queue, configuration: f.configuration).enqueue(
                    NewJob(kind: "upload"))
            },
            { q, _, _ in
                let ingested = try q.ingestInbox()
                #expect(ingested == 1)
            }
        ),
        (
            "ingestInbox() async",
            { f in
                try QueueProducer(directory: f.temp.queue, configuration: f.configuration).enqueue(
                    NewJob(kind: "upload"))
            },
            { q, _, _ in
                let ingested = try await q.ingestInbox()
                #expect(ingested == 1)
            }
        ),
        // Open reclaims the running job of the process before: it returns once that is durable.
        (
            "init(directory:configuration:)", { try $0.queue.close() },
            { _, _, f in try JobQueue(directory: f.temp.queue, configuration: f.configuration).close() }
        ),
        (
            "open(directory:configuration:) async", { try $0.queue.close() },
            { _, _, f in try await JobQueue.open(directory: f.temp.queue, configuration: f.configuration).close() }
        ),
    ]

    /// The public calls of ``JobQueue`` that change no job in the log, and why.
    private static let notChanges: [String: String] = [
        "close()": "waits for every change, changes nothing",
        "updateDeviceConditions(_:)": "memory only", "follow(_:) async": "memory only",
        "job(_:)": "read", "payload(of:)": "read", "jobs(state:kind:)": "read", "jobs(tagged:state:)": "read",
        "readyJobs(at:kind:)": "read",
        "nextDeadline(kind:)": "read", "nextDeadline(kind:constraints:)": "read", "nextDeadlines()": "read",
        "failedJobs()": "read", "permanentlyFailedJobs()": "read (the deprecated name of failedJobs())",
        "counts()": "read", "pausedKinds()": "read", "parkedJobs()": "read", "rateLimits()": "read",
        "schedulingHints()": "read",
        "changes(_:)": "read",
        "schedulingHints(within:)": "read", "nextProcessingHint()": "read", "progress(of:)": "memory only",
        "progressUpdates(_:)": "memory only", "reportProgress(_:parkedUnder:)": "memory only",
        "enqueueWithoutWaiting(_:)": "benchmarks only: documented as not durable",
        "waitUntilDurable()": "benchmarks only: waits", "waitForBackgroundCompaction()": "benchmarks only: waits",
        "renewOwnership()": "changes no job: renews the OWNER file's lease, synced inside the call",
    ]

    /// Runs `act` with the next data sync held: it must not return before that sync is released.
    /// A mutator that skips the wait either returns before any sync starts (no one leads one) or
    /// while the flusher's is held; both are reported.
    @Test(.onThePool, arguments: mutators.indices)
    func noMutatorReturnsBeforeItsRecordIsSynced(index: Int) async throws {
        let (name, prepare, act) = Self.mutators[index]
        let fixture = try Fixture()
        defer {
            try? fixture.queue.close()
            fixture.temp.cleanup()
        }
        try prepare?(fixture)
        let event = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let released = Locked(false)
        let outcome = Locked<(returnedWhileHeld: Bool, error: (any Error)?)?>(nil)
        fileSystem(fixture).inject(.holdSync(entered: event, release: release))
        let (queue, lease) = (fixture.queue, fixture.lease)
        Task.detached {
            var failure: (any Error)?
            do { try await act(queue, lease, fixture) } catch { failure = error }
            let held = !released.withLock { $0 }
            outcome.withLock { $0 = (held, failure) }
            event.signal()
            finished.signal()
        }
        #expect(await Self.wait(for: event))
        let early = outcome.withLock { $0 }
        #expect(early == nil, "\(name) returned before any sync of its record started: acknowledged before the fsync")
        released.withLock { $0 = true }
        release.signal()
        #expect(await Self.wait(for: finished))
        let result = try #require(outcome.withLock { $0 })
        #expect(!result.returnedWhileHeld, "\(name) returned while its record's sync was held")
        #expect(result.error == nil, "\(name) threw \(result.error.map { "\($0)" } ?? "")")
    }

    /// Waits for `semaphore` on a thread outside Swift's cooperative pool, whose threads the held
    /// sync and the mutators' blocking forms may occupy.
    private static func wait(for semaphore: DispatchSemaphore) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: semaphore.wait(timeout: .now() + hangGuard) == .success) }.start()
        }
    }

    private func fileSystem(_ fixture: Fixture) -> FaultyFileSystem { fixture.fileSystem }

    /// Every public call declared on ``JobQueue`` in the library's sources is either a mutator the
    /// test above checks or one of ``notChanges``: a new mutator cannot go unchecked.
    @Test func everyPublicCallOfJobQueueIsClassified() throws {
        let sources = URL(fileURLWithPath: packageRoot() + "/Sources/Spool")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        var declared: [String] = []
        #expect(!files.isEmpty, "no sources found under \(sources.path)")
        for file in files {
            let text = try String(contentsOfFile: sources.path + "/" + file, encoding: .utf8)
            declared += Self.jobQueueCalls(in: text)
        }
        let known = Set(Self.mutators.map(\.name)).union(Self.notChanges.keys)
        let missing = Set(declared).subtracting(known)
        #expect(
            missing.isEmpty,
            "public calls of JobQueue neither checked as mutators nor listed as not changing: \(missing.sorted())")
        let publicMutators = Set(Self.mutators.map(\.name)).filter {
            !$0.hasPrefix("claim(kinds:") && !$0.hasPrefix("renewRecorded")
        }
        #expect(publicMutators.isSubset(of: Set(declared)), "\(publicMutators.subtracting(declared).sorted())")
    }

    /// The `public func` and `public init` declarations (name, labels, `async`) directly inside
    /// `class JobQueue` and `extension JobQueue` blocks of `text`.
    static func jobQueueCalls(in text: String) -> [String] {
        let code = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { line -> Substring in
                guard let range = line.range(of: "//") else { return line }
                return line[..<range.lowerBound]
            }.joined(separator: "\n")
        var calls: [String] = []
        var searchStart = code.startIndex
        while let opening = code.range(
            of: #"(extension|class) JobQueue\b[^{]*\{"#, options: .regularExpression,
            range: searchStart..<code.endIndex)
        {
            var depth = 1
            var index = opening.upperBound
            var declarationStart = index
            while index < code.endIndex, depth > 0 {
                let character = code[index]
                if character == "{" {
                    if depth == 1 {
                        let head = code[declarationStart..<index]
                        if let call = Self.call(in: head) { calls.append(call) }
                    }
                    depth += 1
                } else if character == "}" {
                    depth -= 1
                    if depth == 1 { declarationStart = code.index(after: index) }
                }
                index = code.index(after: index)
            }
            searchStart = index
        }
        return calls
    }

    /// `name(label:label:)`, with ` async` when it is, of the last public func or init in `head`.
    private static func call(in head: Substring) -> String? {
        guard
            let match = head.range(
                of: #"public (static )?(func [A-Za-z]+|init)"#, options: [.regularExpression, .backwards])
        else { return nil }
        let declaration = head[match.lowerBound...]
        var name = String(head[match]).replacingOccurrences(of: "public ", with: "")
            .replacingOccurrences(of: "static ", with: "").replacingOccurrences(of: "func ", with: "")
        guard let open = declaration.firstIndex(of: "(") else { return nil }
        var depth = 0
        var parameters: [String] = []
        var current = ""
        var close = open
        for index in declaration[open...].indices {
            let character = declaration[index]
            if "([<".contains(character) {
                depth += 1
                if depth == 1 { continue }
            }
            if ")]>".contains(character) {
                depth -= 1
                if depth == 0 {
                    close = index
                    break
                }
            }
            if character == ",", depth == 1 {
                parameters.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { parameters.append(current) }
        let labels = parameters.map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).prefix { $0 != " " && $0 != ":" }
        }
        name += "(" + labels.map { "\($0):" }.joined() + ")"
        if name.hasPrefix("init") && head.contains("static func open") { return nil }
        let rest = declaration[declaration.index(after: close)...]
        if rest.range(of: #"\basync\b"#, options: .regularExpression) != nil { name += " async" }
        return name
    }

    // MARK: Reads after a failed write or sync

    /// After a write or a sync of the log failed, the state in memory holds a change that never
    /// reached the disk: every read throws `needsReopen` rather than show it, and an observation
    /// ends. Reopening shows the acknowledged jobs only.
    @Test(.onThePool, arguments: [FaultyFileSystem.Fault.write(EIO), .write(ENOSPC), .sync(EIO), .sync(ENOSPC)])
    func everyReadThrowsNeedsReopenAfterAFailedWriteOrSync(fault: FaultyFileSystem.Fault) async throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let fileSystem = FaultyFileSystem()
        var configuration = testConfiguration()
        configuration.fileSystem = fileSystem
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try await queue.enqueue(NewJob(kind: "k", payload: Data("safe".utf8), id: "safe"))
        fileSystem.inject(fault)
        do {
            try await queue.enqueue(NewJob(kind: "k", payload: Data("lost".utf8), id: "doomed"))
            Issue.record("an enqueue whose write or sync failed returned")
        } catch {}

        expectError(.needsReopen) { try queue.job("doomed") }
        expectError(.needsReopen) { try queue.job("safe") }
        expectError(.needsReopen) { try queue.jobs() }
        expectError(.needsReopen) { try queue.counts() }
        expectError(.needsReopen) { try queue.payload(of: "safe") }
        expectError(.needsReopen) { try queue.payload(of: "doomed") }
        expectError(.needsReopen) { try queue.readyJobs(at: Date.distantFuture) }
        expectError(.needsReopen) { try queue.nextDeadline() }
        expectError(.needsReopen) { try queue.nextDeadline(kind: "k", constraints: .none) }
        expectError(.needsReopen) { try queue.nextDeadlines() }
        expectError(.needsReopen) { try queue.failedJobs() }
        expectError(.needsReopen) { try queue.schedulingHints() }
        await expectError(.needsReopen) { try await queue.enqueue(NewJob(kind: "k", id: "after")) }
        var observation = queue.changes().makeAsyncIterator()
        let first = await observation.next()
        #expect(first == nil, "an observation started after the failure showed \(String(describing: first))")
        try? queue.close()

        let reopened = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        #expect(try reopened.jobs().map(\.id.rawValue) == ["safe"])
        try closeChecked(reopened)
    }
}
