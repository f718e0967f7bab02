import Foundation
import Testing

@testable import Spool

/// Four producer processes and a `.shared` owner process (`spool own`), with random `kill -9` of
/// producers (each restarted under a new prefix) and of the owner (a new owner takes over): every id a
/// producer acknowledged (printed) before it was killed ends in the queue exactly once (issue #16).
@Suite struct ProducerKillTests {
    /// Rounds: `SPOOL_PRODUCER_KILLS` (docs/TESTING.md, "Long runs"), 12 by default.
    static let rounds = ProcessInfo.processInfo.environment["SPOOL_PRODUCER_KILLS"].flatMap(Int.init) ?? 12

    @Test func everyAcknowledgedIdSurvivesKillsOfProducersAndOwners() throws {
        let binary = try #require(ChildProcess.spoolExecutable(), "the spool executable was not built")
        let temporary = TemporaryDirectory("producer-kills")
        defer { temporary.cleanup() }
        try JobQueue(directory: temporary.queue, configuration: Configuration()).close()
        var generator = SeededGenerator(seed: UInt64(Self.rounds) &* 0x9E37_79B9)
        let deadline = Date().addingTimeInterval(Double(max(60, Self.rounds * 5)))

        var owner = try OwnerChild(binary, directory: temporary.queue)
        #expect(owner.line() == "owner")
        var started = 0
        func start(_ slot: Int) throws -> ProducerChild {
            started += 1
            return try ProducerChild(
                binary, directory: temporary.queue, count: 1_000_000, prefix: "s\(slot)r\(started)")
        }
        var producers = try (0..<4).map { try start($0) }
        var finished: [ProducerChild] = []
        defer { for producer in producers where !producer.hasEnded { producer.kill9() } }
        var (producerKills, ownerKills, owners) = (0, 0, 1)

        for round in 0..<Self.rounds {
            // An event, not a time: a few more acknowledgements of a random producer.
            let watched = producers[Int.random(in: 0..<producers.count, using: &generator)]
            let more = Int.random(in: 1...20, using: &generator)
            #expect(watched.wait(forLines: watched.acknowledged.count + more, until: deadline), "round \(round)")
            let answer = owner.ask("ingest")
            #expect(answer?.hasPrefix("ingested ") == true, "round \(round): \(answer ?? "ended")")
            // Every third round kills the owner (so that every run has some), the others a random producer.
            if round % 3 == 2 {
                owner.kill9()
                ownerKills += 1
                // The killed owner's process no longer exists: the next owner takes over at once.
                owner = try OwnerChild(binary, directory: temporary.queue)
                owners += 1
                let line = owner.line()
                #expect(line == "owner", "round \(round): the new owner: \(line ?? "ended")")
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
        owner.finish()

        let acknowledged = finished.flatMap(\.acknowledged)
        let queue = try JobQueue(directory: temporary.queue, configuration: Configuration())
        let ids = try queue.jobs().map(\.id.rawValue)
        let inQueue = Set(ids)
        let lost = acknowledged.filter { !inQueue.contains($0) }
        let duplicated = acknowledged.count - Set(acknowledged).count + (ids.count - inQueue.count)
        // A record durable when its producer was killed, before it printed the id, is in the queue
        // unacknowledged: at most one per killed producer.
        let unacknowledged = inQueue.subtracting(acknowledged).count
        print(
            "ProducerKillTests: \(started + owners) processes (\(started) producers, \(owners) owners), "
                + "kills \(producerKills + 4) producers (4 at the end) / \(ownerKills) owners, \(acknowledged.count) jobs acknowledged, "
                + "lost \(lost.count), duplicated \(duplicated), in the queue unacknowledged \(unacknowledged)")
        #expect(lost.isEmpty, "lost: \(lost.prefix(10))")
        #expect(duplicated == 0)
        #expect(unacknowledged <= producerKills + 4)
        #expect(!acknowledged.isEmpty)
        try closeChecked(queue)
    }
}
