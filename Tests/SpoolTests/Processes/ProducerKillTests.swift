import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Four producer processes and a `.shared` owner process (`spool own --run`) that runs the jobs, with
/// random `kill -9` of producers (each restarted under a new prefix), `kill -9` of the owner (a new
/// owner takes over) and SIGSTOP of the owner (a new owner takes over once its lease looks expired,
/// then the stopped one resumes and must find its writes refused): every id a producer acknowledged
/// (printed) before it was killed ends in the queue exactly once, every job succeeds, and no job
/// runs twice at once (issue #16). Runs again after a kill or a stop are allowed, and counted.
@Suite(.blocking) struct ProducerKillTests {
    /// Rounds: `SPOOL_PRODUCER_KILLS` (docs/TESTING.md, "Long runs"), 12 by default.
    static let rounds = ProcessInfo.processInfo.environment["SPOOL_PRODUCER_KILLS"].flatMap(Int.init) ?? 12
    /// The owners' ownership lease (`spool own --lease`): a new owner's clock runs this far (and a
    /// second) ahead of a stopped owner's, so that it finds the stopped one's lease expired at once. A
    /// runner wakes to renew the lease at half of it: a resumed owner's runner wakes within a second.
    static let ownershipLease = 2.0
    /// The jobs each producer enqueues (it may end before it is killed): the owners run every one.
    static let jobsPerProducer = 250

    @Test func everyAcknowledgedIdSurvivesAndNoJobRunsTwiceAtOnce() throws {
        let binary = try #require(ChildProcess.harnessExecutable(), "the harness executable was not built")
        let temporary = TemporaryDirectory("producer-kills")
        defer { temporary.cleanup() }
        try JobQueue(directory: temporary.queue, configuration: Configuration()).close()
        let witness = temporary.path + "/witness"
        var generator = SeededGenerator(seed: UInt64(Self.rounds) &* 0x9E37_79B9)
        let deadline = Date().addingTimeInterval(Double(max(60, Self.rounds * 5)))

        // Each owner's clock runs at least as far ahead as every earlier one's: leases and due times
        // the earlier owners recorded never look later to a new owner than to them.
        var clockOffset = 0.0
        var everyOwner: [OwnerChild] = []
        defer { for owner in everyOwner where owner.process.isRunning { owner.kill9() } }
        func startOwner() throws -> OwnerChild {
            let owner = try OwnerChild(
                binary, directory: temporary.queue,
                [
                    "--run", witness, "--lease", "\(Self.ownershipLease)", "--clock-offset", "\(clockOffset)",
                ])
            everyOwner.append(owner)
            return owner
        }
        var owner = try startOwner()
        #expect(owner.line() == "owner")
        var started = 0
        func start(_ slot: Int) throws -> ProducerChild {
            started += 1
            return try ProducerChild(
                binary, directory: temporary.queue, count: Self.jobsPerProducer, prefix: "s\(slot)r\(started)")
        }
        var producers = try (0..<4).map { try start($0) }
        var finished: [ProducerChild] = []
        defer { for producer in producers where !producer.hasEnded { producer.kill9() } }
        var (producerKills, ownerKills, ownerStops, restops) = (0, 0, 0, 0)

        for round in 0..<Self.rounds {
            // An event, not a time: a few more acknowledgements of a random producer.
            let watched = producers[Int.random(in: 0..<producers.count, using: &generator)]
            let more = Int.random(in: 1...20, using: &generator)
            #expect(watched.wait(forLines: watched.acknowledged.count + more, until: deadline), "round \(round)")
            let answer = owner.ask("ingest")
            #expect(answer?.hasPrefix("ingested ") == true, "round \(round): \(answer ?? "ended")")
            // Every third round kills or stops the owner (so that every run has some), the others a random producer.
            if round % 3 == 2, round / 3 % 2 == 0 {
                owner.kill9()
                ownerKills += 1
                // The killed owner's process no longer exists: the next owner takes over at once.
                owner = try startOwner()
                let line = owner.line()
                #expect(line == "owner", "round \(round): the new owner: \(line ?? "ended")")
            } else if round % 3 == 2 {
                restops += Self.stopOutsideFencedSections(owner, queue: temporary.queue)
                ownerStops += 1
                clockOffset += Self.ownershipLease + 1
                let next = try startOwner()
                let line = next.line()
                #expect(line == "owner", "round \(round): the owner after a stopped one: \(line ?? "ended")")
                // The jobs the stopped owner was running were reclaimed when the next one opened: once
                // they are finished, whatever the stopped one resumes cannot overlap the next one's run.
                let drained = next.ask("drain")
                #expect(drained?.hasPrefix("drained ") == true, "round \(round): \(drained ?? "ended")")
                kill(owner.pid, SIGCONT)
                // Woken to renew its lease (or by the producers' inbox writes), the resumed owner's runner
                // finds another owner in OWNER and stops by itself; the queue refuses every write.
                let stopped = owner.ask("wait-stopped")
                #expect(stopped == "stopped ownershipLost", "round \(round): the resumed owner: \(stopped ?? "ended")")
                let renewed = owner.ask("renew")
                #expect(renewed == "refused ownershipLost", "round \(round): the resumed owner: \(renewed ?? "ended")")
                owner.finish()
                owner = next
            } else {
                let slot = Int.random(in: 0..<producers.count, using: &generator)
                producers[slot].kill9()
                producerKills += 1
                finished.append(producers[slot])
                producers[slot] = try start(slot)
            }
        }
        for producer in producers { producer.kill9() }
        finished += producers
        #expect(owner.ask("ingest")?.hasPrefix("ingested ") == true)
        let drained = owner.ask("drain")
        #expect(drained?.hasPrefix("drained ") == true, "the last drain: \(drained ?? "ended")")
        owner.finish()

        let acknowledged = finished.flatMap(\.acknowledged)
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        let jobs = try queue.jobs()
        let ids = jobs.map(\.id.rawValue)
        let inQueue = Set(ids)
        let lost = acknowledged.filter { !inQueue.contains($0) }
        let duplicated = acknowledged.count - Set(acknowledged).count + (ids.count - inQueue.count)
        // A record durable when its producer was killed, before it printed the id, is in the queue
        // unacknowledged: at most one per killed producer.
        let unacknowledged = inQueue.subtracting(acknowledged).count
        let notSucceeded = jobs.filter { $0.state != .succeeded }.map { "\($0.id) \($0.state)" }

        let runs = Self.lines(witness + "/completions").reduce(into: [String: Int]()) { counts, line in
            let fields = line.split(separator: " ")
            if fields.count == 3, fields[0] == "done" { counts[String(fields[1]), default: 0] += 1 }
        }
        let neverRun = inQueue.filter { runs[$0] == nil }
        let runAgain = runs.values.filter { $0 > 1 }.count
        let violations = Self.lines(witness + "/violations")
        let takeovers = Self.lines(witness + "/takeovers")
        let markersLeft = (try? FileManager.default.contentsOfDirectory(atPath: witness + "/markers")) ?? []
        print(
            "ProducerKillTests: \(started + everyOwner.count) processes (\(started) producers, \(everyOwner.count) owners), "
                + "kills \(producerKills + 4) producers (4 at the end) / \(ownerKills) owners, "
                + "\(ownerStops) stopped owners (\(restops) stops retried outside a fenced section), "
                + "\(acknowledged.count) jobs acknowledged, lost \(lost.count), duplicated \(duplicated), "
                + "in the queue unacknowledged \(unacknowledged), \(jobs.count) jobs in the queue, \(jobs.count - notSucceeded.count) succeeded, "
                + "run more than once \(runAgain) (markers taken over: "
                + "\(takeovers.filter { $0.contains(" dead ") }.count) from killed owners, "
                + "\(takeovers.filter { $0.contains(" stopped ") }.count) from stopped ones), "
                + "run twice at once \(violations.count)")
        // Where lost jobs would be: inbox files left behind, and what an ingestion says of them.
        let inboxLeft = (try? FileManager.default.contentsOfDirectory(atPath: temporary.queue + "/inbox")) ?? []
        let ingestion = lost.isEmpty ? "" : "\(Result { try queue.ingestInbox() })"
        #expect(
            lost.isEmpty, "lost: \(lost.prefix(10)); inbox files left: \(inboxLeft); an ingestion now: \(ingestion)")
        #expect(duplicated == 0)
        #expect(unacknowledged <= producerKills + 4)
        #expect(!acknowledged.isEmpty)
        #expect(notSucceeded.isEmpty, "not succeeded: \(notSucceeded.prefix(10))")
        #expect(neverRun.isEmpty, "never run: \(neverRun.prefix(10))")
        #expect(violations.isEmpty, "run twice at once: \(violations.prefix(10))")
        #expect(markersLeft.isEmpty, "runs that neither ended nor were taken over: \(markersLeft.prefix(10))")
        try closeChecked(queue)
    }

    /// Stops `owner` (SIGSTOP, waiting for the stop with `waitpid`) at a moment it holds no lock on a
    /// file of the queue: a stopped owner inside a fenced section holds `LOCK`, and no other owner can
    /// take over until it resumes (the fence's design: a takeover waits for the section). Stopped
    /// holding one, it resumes, answers a line (an event: the section ended) and is stopped again.
    /// Returns how many stops were retried.
    static func stopOutsideFencedSections(_ owner: OwnerChild, queue: String) -> Int {
        var retried = 0
        while true {
            kill(owner.pid, SIGSTOP)
            var status: Int32 = 0
            _ = waitpid(owner.pid, &status, WUNTRACED)
            guard !ProcLocks.isAvailable || ((try? ProcLocks.locks(of: owner.pid, in: queue).isEmpty) ?? true)
            else {
                kill(owner.pid, SIGCONT)
                _ = owner.ask("renew")
                retried += 1
                continue
            }
            return retried
        }
    }

    /// The lines of the file at `path`; none when there is no file.
    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
