import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The typed enqueue (``JobKind``) takes every option ``NewJob`` has: each option, given through the
/// blocking `enqueue`, the `async` one and `NewJob(_:…)` in a batch, gives the job the same option
/// given to `NewJob(kind:payload:…)` gives it, and the option shows on the job.
@Suite(.blocking) struct TypedEnqueueOptionsTests {
    struct Resize: JobKind, Equatable {
        static let kind = "resize"
        var width: Int
    }

    /// Every option of `NewJob` but kind and payload.
    struct Options: Sendable {
        var id: JobID?
        var priority = 0
        var runAt: Date?
        var delay: TimeInterval = 0
        var maxAttempts: Int?
        var uniqueKey: String?
        var uniquePolicy = UniquePolicy.keep
        var dependencies: [JobID] = []
        var constraints = JobConstraints.none
        var periodic: PeriodicSchedule?
        var tags: Set<String> = []
        var retryPolicy: RetryPolicy?
    }

    enum Way: String, CaseIterable, Sendable {
        case untyped, blocking, async, batch
    }

    static let start = ManualClock().now()

    /// One option, and what it must do to the queue (given the id the enqueue returned).
    static let cases: [(name: String, options: Options, check: @Sendable (JobQueue, JobID) throws -> Bool)] = [
        ("id", Options(id: "chosen"), { q, id in try id == "chosen" && q.job("chosen")?.kind == Resize.kind }),
        ("priority", Options(priority: 7), { q, id in try q.job(id)?.priority == 7 }),
        ("runAt", Options(runAt: start + 3600), { q, id in try q.job(id)?.runAt == start + 3600 }),
        ("delay", Options(delay: 30), { q, id in try q.job(id)?.runAt == start + 30 }),
        ("runAt and delay", Options(runAt: start + 100, delay: 30), { q, id in try q.job(id)?.runAt == start + 130 }),
        ("maxAttempts", Options(maxAttempts: 2), { q, id in try q.job(id)?.maxAttempts == 2 }),
        ("uniqueKey, keep", Options(uniqueKey: "k"), { q, id in try id == "holder" && q.counts()[.enqueued] == 2 }),
        (
            "uniqueKey, replace", Options(uniqueKey: "k", uniquePolicy: .replace),
            { q, id in try q.job("holder")?.state == .cancelled && q.job(id)?.uniqueKey == "k" }
        ),
        (
            "uniqueKey, append", Options(uniqueKey: "k", uniquePolicy: .append),
            { q, id in try q.job(id)?.blockingPrerequisites == ["holder"] && q.job(id)?.uniqueKey == "k" }
        ),
        (
            "dependencies", Options(dependencies: ["prerequisite"]),
            { q, id in try q.job(id)?.blockingPrerequisites == ["prerequisite"] && q.job(id)?.isBlocked == true }
        ),
        (
            "constraints", Options(constraints: JobConstraints(requiresNetwork: true, requiresCharging: true)),
            { q, id in try q.job(id)?.constraints == JobConstraints(requiresNetwork: true, requiresCharging: true) }
        ),
        (
            "periodic", Options(periodic: PeriodicSchedule(interval: 3600, flex: 600)),
            { q, id in try q.job(id)?.periodic == PeriodicSchedule(interval: 3600, flex: 600) }
        ),
        ("tags", Options(tags: ["album:7", "me"]), { q, id in try q.job(id)?.tags == ["album:7", "me"] }),
        (
            "retryPolicy", Options(retryPolicy: .table([3, 9], maxAttempts: 6)),
            { q, id in try q.job(id)?.retryPolicy == .table([3, 9], maxAttempts: 6) && q.job(id)?.maxAttempts == 6 }
        ),
    ]

    /// Enqueues `Resize(width: 640)` with `options`, in one of the four ways.
    static func enqueue(_ way: Way, _ o: Options, on queue: JobQueue) async throws -> JobID {
        let parameters = Resize(width: 640)
        switch way {
        case .untyped, .blocking:
            return try enqueueBlocking(way, o, on: queue)
        case .async:
            return try await queue.enqueue(
                parameters, id: o.id, priority: o.priority, runAt: o.runAt, delay: o.delay,
                maxAttempts: o.maxAttempts, uniqueKey: o.uniqueKey, uniquePolicy: o.uniquePolicy,
                dependencies: o.dependencies, constraints: o.constraints, periodic: o.periodic, tags: o.tags,
                retryPolicy: o.retryPolicy)
        case .batch:
            return try await queue.enqueue(contentsOf: [
                NewJob(
                    parameters, id: o.id, priority: o.priority, runAt: o.runAt, delay: o.delay,
                    maxAttempts: o.maxAttempts, uniqueKey: o.uniqueKey, uniquePolicy: o.uniquePolicy,
                    dependencies: o.dependencies, constraints: o.constraints, periodic: o.periodic, tags: o.tags,
                    retryPolicy: o.retryPolicy)
            ])[0]
        }
    }

    /// The blocking forms, out of an async context so that the blocking overloads are the ones called.
    static func enqueueBlocking(_ way: Way, _ o: Options, on queue: JobQueue) throws -> JobID {
        let parameters = Resize(width: 640)
        if way == .untyped {
            return try queue.enqueue(
                NewJob(
                    kind: Resize.kind, payload: try Resize.encode(parameters), id: o.id,
                    priority: o.priority, runAt: o.runAt, delay: o.delay, maxAttempts: o.maxAttempts,
                    uniqueKey: o.uniqueKey, uniquePolicy: o.uniquePolicy, dependencies: o.dependencies,
                    constraints: o.constraints, periodic: o.periodic, tags: o.tags,
                    retryPolicy: o.retryPolicy))
        }
        return try queue.enqueue(
            parameters, id: o.id, priority: o.priority, runAt: o.runAt, delay: o.delay,
            maxAttempts: o.maxAttempts, uniqueKey: o.uniqueKey, uniquePolicy: o.uniquePolicy,
            dependencies: o.dependencies, constraints: o.constraints, periodic: o.periodic, tags: o.tags,
            retryPolicy: o.retryPolicy)
    }

    /// Opens a fresh queue holding a prerequisite and a unique key's holder.
    static func preparedQueue(_ temp: TemporaryDirectory) throws -> JobQueue {
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        try queue.enqueue(NewJob(kind: "other", id: "prerequisite"))
        try queue.enqueue(NewJob(kind: "other", id: "holder", uniqueKey: "k"))
        return queue
    }

    /// Enqueues with `options` in a fresh queue holding a prerequisite and a unique key's holder;
    /// returns the job (its random id blanked) after checking the option's effect.
    static func enqueued(_ way: Way, case index: Int) async throws -> Job {
        let (name, options, check) = cases[index]
        let temp = TemporaryDirectory("spool-typed-options")
        defer { temp.cleanup() }
        let queue = try preparedQueue(temp)
        defer { try? queue.close() }
        let id = try await enqueue(way, options, on: queue)
        #expect(try check(queue, id), "\(name) through \(way)")
        var job = try #require(try queue.job(id))
        if options.id == nil && id != "holder" { job.id = "" }
        if id != "holder" { #expect(try Resize.decode(queue.payload(of: id)) == Resize(width: 640)) }
        return job
    }

    @Test(.onThePool, arguments: cases.indices)
    func everyWayGivesTheOptionAsNewJobDoes(index: Int) async throws {
        let reference = try await Self.enqueued(.untyped, case: index)
        for way in [Way.blocking, .async, .batch] {
            let typed = try await Self.enqueued(way, case: index)
            #expect(typed == reference, "\(Self.cases[index].name) through \(way): \(typed) is not \(reference)")
        }
    }

    /// The cases cover every stored property of `NewJob` but kind and payload: an option added to
    /// `NewJob` and not here fails this test, so it cannot be left out of the typed enqueue unseen.
    @Test func theCasesCoverEveryOptionOfNewJob() {
        let newJob = Set(Mirror(reflecting: NewJob(kind: "k")).children.compactMap(\.label)).subtracting([
            "kind", "payload",
        ])
        let options = Set(Mirror(reflecting: Options()).children.compactMap(\.label))
        #expect(newJob == options)
        let given = Self.cases.map(\.options).reduce(into: Set<String>()) { covered, o in
            for child in Mirror(reflecting: o).children {
                let defaultValue = Mirror(reflecting: Options()).children.first { $0.label == child.label }!.value
                if "\(child.value)" != "\(defaultValue)" { covered.insert(child.label!) }
            }
        }
        #expect(given == options, "options no case sets: \(options.subtracting(given).sorted())")
    }
}
