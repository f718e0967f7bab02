import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Bad arguments never trap the process: each is a typed `invalidArgument` — retry policies (refused by
/// the open that uses them), configuration values, a runner's options and its registrations.
@Suite(.blocking) struct InvalidArgumentTests {
    /// Policies the factories trapped on, each refused by the open, before the directory is touched.
    static let trappingPolicies: [(String, RetryPolicy)] = [
        ("empty table", .table([])),
        ("negative delay", .table([5, -1])),
        ("NaN delay", .table([.nan])),
        ("infinite delay", .table([.infinity])),
        ("table, zero attempts", .table([5], maxAttempts: 0)),
        ("table, negative attempts", .table([5], maxAttempts: -3)),
        ("table, too many attempts", .table([5], maxAttempts: JobLimits.maxAttempts + 1)),
        ("negative base", .exponential(base: -1)),
        ("NaN base", .exponential(base: .nan)),
        ("infinite base", .exponential(base: .infinity)),
        ("factor below 1", .exponential(base: 1, factor: 0.5)),
        ("NaN factor", .exponential(base: 1, factor: .nan)),
        ("maximum below base", .exponential(base: 10, maximum: 5)),
        ("NaN maximum", .exponential(base: 1, maximum: .nan)),
        ("negative jitter", .exponential(base: 1, jitter: -0.1)),
        ("jitter above 1", .exponential(base: 1, jitter: 1.5)),
        ("NaN jitter", .exponential(base: 1, jitter: .nan)),
        ("exponential, zero attempts", .exponential(base: 1, maxAttempts: 0)),
        ("exponential, too many attempts", .exponential(base: 1, maxAttempts: JobLimits.maxAttempts + 1)),
    ]

    @Test(arguments: trappingPolicies)
    func aBadRetryPolicyFailsTheOpenWithATypedError(_ name: String, _ policy: RetryPolicy) throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        expectError(.invalidArgument, "\(name)") { try policy.validate() }
        var configuration = testConfiguration()
        configuration.retryPolicy = policy
        expectError(.invalidArgument, "\(name)") { try JobQueue(directory: temp.queue, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: temp.queue), "\(name): the refused open created the directory")
    }

    /// The edges of each rule are valid: a zero delay, a factor of 1, an infinite maximum, jitter 0 and 1.
    @Test func theEdgesOfTheRetryPolicyRulesAreValid() throws {
        let valid: [RetryPolicy] = [
            .default, .table([0]), .table([0, 1e12], maxAttempts: 1), .table([1], maxAttempts: JobLimits.maxAttempts),
            .exponential(base: 0), .exponential(base: 1, factor: 1, maximum: 1),
            .exponential(base: 1, maximum: .infinity),
            .exponential(base: 1, jitter: 0), .exponential(base: 1, jitter: 1),
        ]
        for policy in valid { try policy.validate() }
    }

    /// Configuration values the open now refuses instead of accepting them and failing later (a lease
    /// duration every claim refused) or silently expiring every finished job (a negative or NaN retention).
    @Test func configurationsOutOfRangeFailTheOpen() {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        var lease = testConfiguration()
        lease.leaseDuration = 1e9
        var negative = testConfiguration()
        negative.retention = -1
        var nan = testConfiguration()
        nan.retention = .nan
        for (name, configuration) in [
            ("lease of 10^9 s", lease), ("negative retention", negative), ("NaN retention", nan),
        ] {
            expectError(.invalidArgument, "\(name)") {
                try JobQueue(directory: temp.queue, configuration: configuration)
            }
            #expect(!FileManager.default.fileExists(atPath: temp.queue), "\(name)")
        }
    }

    /// Runner options `JobRunner.init` trapped on.
    static let trappingRunnerOptions: [(String, JobRunner.Options)] = [
        ("zero concurrency", .init(maxConcurrentJobs: 0)),
        ("negative concurrency", .init(maxConcurrentJobs: -1)),
        ("zero lease", .init(leaseDuration: 0)),
        ("negative lease", .init(leaseDuration: -5)),
        ("NaN lease", .init(leaseDuration: .nan)),
        ("infinite lease", .init(leaseDuration: .infinity)),
    ]

    @Test(arguments: trappingRunnerOptions)
    func badRunnerOptionsAreATypedError(_ name: String, _ options: JobRunner.Options) throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        expectError(.invalidArgument, "\(name)") { try JobRunner(queue: queue, options: options) }
        // 10^9 s is over the claim's limit: refused here too, not at every claim.
        expectError(.invalidArgument) { try JobRunner(queue: queue, options: .init(leaseDuration: 1e9)) }
        _ = try JobRunner(queue: queue, options: .init(maxConcurrentJobs: 1, leaseDuration: 1))
    }

    /// Registrations `register` trapped on: refused, nothing registered (the kind's jobs stay unhandled).
    static let trappingRegistrations: [(String, String, JobRunner.KindOptions)] = [
        ("empty kind", "", .init()),
        ("kind over 200 bytes", String(repeating: "é", count: 101), .init()),
        ("zero concurrency", "k", .init(maxConcurrentJobs: 0)),
        ("negative concurrency", "k", .init(maxConcurrentJobs: -2)),
        ("zero timeout", "k", .init(timeout: 0)),
        ("negative timeout", "k", .init(timeout: -1)),
        ("NaN timeout", "k", .init(timeout: .nan)),
        ("infinite timeout", "k", .init(timeout: .infinity)),
    ]

    @Test(arguments: trappingRegistrations)
    func badRegistrationsAreATypedErrorAndRegisterNothing(
        _ name: String, _ kind: String,
        _ options: JobRunner.KindOptions
    ) throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        if !kind.isEmpty, kind.utf8.count <= JobLimits.maxKindBytes {
            try queue.enqueue(NewJob(kind: kind, id: "waiting"))
        }
        let runner = try JobRunner(queue: queue)
        expectError(.invalidArgument, "\(name)") { try runner.register(kind: kind, options: options) { _, _ in } }
        #expect(
            try runner.unhandledJobs().map(\.id) == (queue.job("waiting") == nil ? [] : ["waiting"]),
            "\(name): the refused handler was registered")
    }

    private struct Nameless: JobKind {
        static let kind = ""
    }

    /// A typed kind whose `kind` is empty, registered through the typed form.
    @Test func aTypedKindWithAnEmptyNameIsATypedError() throws {
        let temp = TemporaryDirectory()
        defer { temp.cleanup() }
        let queue = try JobQueue(directory: temp.queue, configuration: testConfiguration())
        defer { try? closeChecked(queue) }
        let runner = try JobRunner(queue: queue)
        expectError(.invalidArgument) { try runner.register(Nameless.self) { _, _ in } }
    }
}
