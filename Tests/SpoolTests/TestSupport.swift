import Foundation
import Testing
@testable import Spool

/// A fresh directory under the system's temporary directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init(_ name: String = "spool-test") {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/\(name)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The queue directory inside it (not created).
    var queue: String { path + "/queue" }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// A configuration with a manual clock at a fixed instant.
func testConfiguration(clock: ManualClock = ManualClock()) -> Configuration {
    var configuration = Configuration()
    configuration.clock = clock
    return configuration
}

/// The queue's only log file.
func logFilePath(_ directory: String) -> String {
    directory + "/" + QueueDirectoryLayout.logFileName(sequence: 1)
}

func readFile(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Checks the invariants every queue state must hold, whatever happened before:
/// one state per job, each unique key held by the last (in enqueue order) of the unfinished jobs
/// carrying it, attempts within the budget, leases exactly on running jobs, failed jobs without
/// deadline; chains: an unfinished job waits only for unfinished prerequisites (so no job runs or
/// is ready before its prerequisites succeeded, and the dependents of a failed or cancelled job
/// are finished), and the dependents index is exactly what the jobs' prerequisites say.
func checkInvariants(_ state: QueueState, sourceLocation: SourceLocation = #_sourceLocation) {
    var carriers: [String: [StoredJob]] = [:]
    var derivedDependents: [String: Set<String>] = [:]
    for (id, job) in state.jobs {
        #expect(id == job.id, sourceLocation: sourceLocation)
        #expect(job.attempts >= 0 && job.attempts <= job.maxAttempts, "attempts \(job.attempts) of \(job.maxAttempts)", sourceLocation: sourceLocation)
        #expect((job.state == .running) == (job.lease != nil), "lease only while running", sourceLocation: sourceLocation)
        if job.state.isFinished {
            #expect(job.nextRetryAt == nil, "finished job \(id) has a deadline", sourceLocation: sourceLocation)
        }
        if let key = job.uniqueKey, !job.state.isFinished { carriers[key, default: []].append(job) }
        for prerequisite in job.waitingFor {
            derivedDependents[prerequisite, default: []].insert(id)
            if !job.state.isFinished {
                #expect(state.jobs[prerequisite]?.state.isFinished == false,
                        "unfinished job \(id) waits for \(prerequisite), which is \(state.jobs[prerequisite]?.state.rawValue ?? "gone")",
                        sourceLocation: sourceLocation)
            }
        }
        if job.state == .running { #expect(job.waitingFor.isEmpty, "job \(id) runs before its prerequisites", sourceLocation: sourceLocation) }
    }
    for (key, jobs) in carriers {
        let ordered = jobs.sorted { $0.sequence < $1.sequence }.map(\.id)
        #expect(state.uniqueKeys[key] == ordered.last, "key \(key) held by \(state.uniqueKeys[key] ?? "nobody"), carriers \(ordered)", sourceLocation: sourceLocation)
        #expect((state.earlierKeyCarriers[key] ?? []) == Array(ordered.dropLast()), "earlier carriers of \(key)", sourceLocation: sourceLocation)
    }
    #expect(state.uniqueKeys.count == carriers.count, "key index holds finished jobs", sourceLocation: sourceLocation)
    #expect(state.earlierKeyCarriers.keys.allSatisfy { carriers[$0] != nil }, sourceLocation: sourceLocation)
    #expect(state.dependents.mapValues(Set.init) == derivedDependents, "dependents index", sourceLocation: sourceLocation)
    #expect(state.enqueuedCount == state.jobs.values.filter { $0.state == .enqueued }.count, sourceLocation: sourceLocation)
    #expect(state.runningCount == state.jobs.values.filter { $0.state == .running }.count, sourceLocation: sourceLocation)
    #expect(state.failedCount == state.jobs.values.filter { $0.state == .failed }.count, sourceLocation: sourceLocation)
    #expect(state.runningIDs == Set(state.jobs.values.filter { $0.state == .running }.map(\.id)), sourceLocation: sourceLocation)
}

/// Jobs compared field by field, ignoring the ready index's bookkeeping.
func comparableJobs(_ state: QueueState) -> [String: StoredJob] {
    state.jobs.mapValues { job in
        var copy = job
        copy.scheduleVersion = 0
        return copy
    }
}

/// Expects `body` to throw a ``SpoolError`` with `code`.
func expectError<T>(_ code: SpoolError.Code, _ comment: Comment? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T) {
    do {
        _ = try body()
        Issue.record("expected \(code), nothing was thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as SpoolError {
        #expect(error.code == code, "\(error) \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw a ``SpoolError`` with `code`.
func expectError<T>(_ code: SpoolError.Code, _ comment: Comment? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), nothing was thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as SpoolError {
        #expect(error.code == code, "\(error) \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// How long, in seconds, a test waits for an event that must happen (a held sync entered, callers
/// queued behind it) before it gives up and fails: a guard against a hang, never a measurement. It is
/// generous because the same tests run under the thread sanitizer, many times slower, beside other
/// suites on two cores; a correct run never comes near it.
let hangGuard: Double = 600

/// Whether this test process runs under the thread sanitizer (its runtime exports `__tsan_init`).
let runsUnderThreadSanitizer: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
