import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Job migrations and unique keys: a migration never moves a key. A new job of a migration takes a
/// free key and is refused when another unfinished job holds it; a finished job given an unfinished
/// image does not take its key back, and one still unfinished after the commit's chain rule drops it
/// (issue #32 item 4: every log earlier builds wrote still opens, and the unique-key index holds); the
/// engine, replay and the command line agree on who holds the key.
@Suite(.blocking) struct MigrationKeyTests {
    private func configuration(_ clock: ManualClock, _ migrations: [JobMigration] = []) -> Configuration {
        migrationTestConfiguration(clock, migrations)
    }

    /// Records, in `queue`, a migration giving finished job `id` an enqueued image: a record the planner
    /// never leaves in place (the chain rule cancels such a job again), but the format allows and
    /// every build accepted.
    private func writeRevival(of id: String, in queue: JobQueue, number: UInt64) throws {
        let engine = queue.engine
        try engine.lock.withLock {
            let job = try #require(engine.state.jobs[id])
            var image = MigratedJob(job)
            image.state = .enqueued
            image.finishedAt = nil
            image.nextRetryAt = nil
            image.lease = nil
            let now = engine.nowMillis
            _ = try engine.commit([
                PlannedOperation(.migrationBegin(number: number, at: now)), .migrating(image, newPayload: nil),
                PlannedOperation(.migrationCommit(number: number)),
            ])
        }
    }

    /// The engine: a migration ends a prerequisite (a cascade cancels the keyed job waiting for it,
    /// freeing the key), a later replacement takes the key, then the waiting job's rewrite gives it an
    /// unfinished image while the replacement holds the key: the job does not take the key back, the
    /// commit's chain rule cancels it again, and the same holds after reopen.
    @Test func aRevivedJobLeavesTheKeyToTheReplacementThatTookIt() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "a", id: "a"))
        _ = try queue.enqueue(NewJob(kind: "d", id: "d"))
        _ = try queue.enqueue(NewJob(kind: "c", id: "c", uniqueKey: "k", dependencies: ["a"]))
        try closeChecked(queue)
        let migration = JobMigration(number: 1) { job, payload in
            switch job.kind {
            case "a": return .invalid(reason: "no")
            case "d": return .split([.init(kind: "e", payload: payload, uniqueKey: "k")])
            case "c": return .rewrite(payload: Data("new".utf8))
            default: return .keep
            }
        }
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [migration]))
        let after = try queue.jobs()
        #expect(try queue.job("c")?.state == .cancelled)
        #expect(queue.engine.stateSnapshot.uniqueKeys["k"] == "d/1")
        checkInvariants(queue.engine.stateSnapshot)
        #expect(try queue.enqueue(NewJob(kind: "e", uniqueKey: "k")) == "d/1")
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [migration]))
        #expect(try queue.jobs() == after)
        #expect(queue.engine.stateSnapshot.uniqueKeys["k"] == "d/1")
        checkInvariants(queue.engine.stateSnapshot)
        try closeChecked(queue)
    }

    /// The engine: a replacement whose key an unfinished job holds (and keeps, the migration not ending
    /// it) is refused by the state's rule, naming the holder; nothing is written.
    @Test func aReplacementTakingAHeldKeyIsRefusedNamingTheHolder() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "holder", id: "h", uniqueKey: "k"))
        _ = try queue.enqueue(NewJob(kind: "batch", id: "b"))
        try closeChecked(queue)
        let log = try readFile(logFilePath(temporary.queue))
        let migration = JobMigration(number: 1) { job, payload in
            job.kind == "batch" ? .split([.init(kind: "item", payload: payload, uniqueKey: "k")]) : .keep
        }
        do {
            _ = try JobQueue(directory: temporary.queue, configuration: configuration(clock, [migration]))
            Issue.record("the migration was applied")
        } catch let error as SpoolError {
            #expect(error.code == .invalidArgument)
            #expect(
                error.message.contains("b/1") && error.message.contains("unique key k is held by job h"), "\(error)")
        }
        #expect(try readFile(logFilePath(temporary.queue)) == log, "a refused migration wrote")
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        #expect(queue.appliedMigration == 0)
        try closeChecked(queue)
    }

    /// Replay of a log holding a revival while another job holds the key (as an older build accepted
    /// it): it opens, the holder keeps the key, the revived job carries none, and a `keep` enqueue
    /// returns the holder, before and after reopen; every invariant holds (the teardown check).
    @Test func aLogRevivingAJobWhileAnotherHoldsItsKeyOpensAndTheHolderKeepsIt() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "k", id: "y", uniqueKey: "k"))
        _ = try queue.cancel("y")
        _ = try queue.enqueue(NewJob(kind: "k", id: "x", uniqueKey: "k"))
        try writeRevival(of: "y", in: queue, number: 1)
        #expect(queue.engine.stateSnapshot.uniqueKeys["k"] == "x")
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        #expect(try queue.job("y")?.state == .enqueued && queue.job("y")?.uniqueKey == nil)
        #expect(queue.engine.stateSnapshot.uniqueKeys["k"] == "x")
        #expect(try queue.enqueue(NewJob(kind: "k", uniqueKey: "k")) == "x")
        try closeChecked(queue)
    }

    /// Replay of a log holding a revival of a job whose key is free: it opens, the revived job does not
    /// take the key back and carries none (a later enqueue an older build wrote with that key still
    /// applies), and an enqueue with the key enqueues.
    @Test func aLogRevivingAJobWithAFreeKeyOpensAndTheKeyStaysFree() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        let clock = ManualClock()
        var queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        _ = try queue.enqueue(NewJob(kind: "k", id: "y", uniqueKey: "k"))
        _ = try queue.cancel("y")
        try writeRevival(of: "y", in: queue, number: 1)
        _ = try queue.enqueue(NewJob(kind: "k", id: "z", uniqueKey: "k"))
        try closeChecked(queue)
        queue = try JobQueue(directory: temporary.queue, configuration: configuration(clock))
        #expect(try queue.job("y")?.state == .enqueued && queue.job("y")?.uniqueKey == nil)
        #expect(try queue.job("z")?.state == .enqueued)
        #expect(queue.engine.stateSnapshot.uniqueKeys["k"] == "z")
        try closeChecked(queue)
    }

    // MARK: The command line

    /// Runs the built `spool` tool; returns its exit status, standard output and standard error.
    private func spool(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// `spool enqueue --unique-key` names the job the queue says holds the key: with an append chain the
    /// last carrier (it named the first), for `keep` and for `append`.
    @Test func theEnqueueCommandNamesTheHolderOfAnAppendChainsKey() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        _ = try queue.enqueue(NewJob(kind: "k", id: "first", uniqueKey: "k"))
        _ = try queue.enqueue(NewJob(kind: "k", id: "second", uniqueKey: "k", uniquePolicy: .append))
        try closeChecked(queue)
        let kept = try spool(["enqueue", temporary.queue, "--kind", "k", "--unique-key", "k"])
        #expect(kept.status == 0 && kept.out == "second\n", "\(kept)")
        #expect(
            kept.err.contains("held by unfinished job second") && kept.err.contains("kept it, enqueued nothing"),
            "\(kept.err)")
        let appended = try spool([
            "enqueue", temporary.queue, "--kind", "k", "--id", "third", "--unique-key", "k",
            "--policy", "append",
        ])
        #expect(appended.status == 0 && appended.out == "third\n", "\(appended)")
        #expect(appended.err.contains("waits for job second,"), "\(appended.err)")
    }

    /// After a log revived a job whose key is free, `spool enqueue --unique-key` enqueues: it no longer
    /// says "kept it, enqueued nothing" and then enqueues.
    @Test func theEnqueueCommandSaysKeptOnlyWhenTheQueueKept() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        var queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        _ = try queue.enqueue(NewJob(kind: "k", id: "y", uniqueKey: "k"))
        _ = try queue.cancel("y")
        try writeRevival(of: "y", in: queue, number: 1)
        try closeChecked(queue)
        let result = try spool(["enqueue", temporary.queue, "--kind", "k", "--id", "new", "--unique-key", "k"])
        #expect(result.status == 0 && result.out == "new\n", "\(result)")
        #expect(!result.err.contains("kept it"), "\(result.err)")
        queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        #expect(try queue.job("new")?.state == .enqueued)
        try closeChecked(queue)
    }

    /// After a log revived a job while another holds its key, `spool enqueue --unique-key` names the holder
    /// (it named the revived job, the first unfinished one carrying the key).
    @Test func theEnqueueCommandNamesTheHolderNotARevivedCarrier() throws {
        let temporary = TemporaryDirectory("migration-keys")
        defer { temporary.cleanup() }
        let queue = try JobQueue(directory: temporary.queue, configuration: testConfiguration())
        _ = try queue.enqueue(NewJob(kind: "k", id: "y", uniqueKey: "k"))
        _ = try queue.cancel("y")
        _ = try queue.enqueue(NewJob(kind: "k", id: "x", uniqueKey: "k"))
        try writeRevival(of: "y", in: queue, number: 1)
        try closeChecked(queue)
        let result = try spool(["enqueue", temporary.queue, "--kind", "k", "--unique-key", "k"])
        #expect(result.status == 0 && result.out == "x\n", "\(result)")
        #expect(result.err.contains("held by unfinished job x "), "\(result.err)")
    }
}
