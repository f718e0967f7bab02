import Foundation

@testable import Spool

/// A producer's operation in a simulated workload: a ``QueueProducer`` on the same disk writes into
/// the queue's inbox, and the owner ingests it at its next ``WorkloadOp/ingest`` or open.
enum ProduceOp: CustomStringConvertible, Sendable {
    /// Producer `producer` enqueues `ids` in one record (kind "k", or "m" after a picked job).
    case enqueue(
        producer: Int, ids: [String], priority: Int, delay: Int64, key: String?, policy: UniquePolicy,
        dependencyPick: Int?)
    /// Producer `producer` records a request to cancel a picked job.
    case cancel(producer: Int, pick: Int)
    /// Producer `producer` records a request to cancel the jobs carrying `tag`.
    case cancelTagged(producer: Int, tag: String)

    /// The producers a workload uses.
    static let producerCount = 2

    var description: String {
        switch self {
        case .enqueue(let producer, let ids, let priority, let delay, let key, let policy, let pick):
            return
                "producer \(producer) enqueues \(ids.joined(separator: ",")) p\(priority) +\(delay)ms after #\(pick.map(String.init) ?? "-") key \(key ?? "-") \(policy)"
        case .cancel(let producer, let pick): return "producer \(producer) cancels #\(pick)"
        case .cancelTagged(let producer, let tag): return "producer \(producer) cancels tag \(tag)"
        }
    }

    /// The workload's producer operations for `roll` in 0..<8: five enqueues (one in three a batch of
    /// two), a cancel request (one in four by tag), two ingestions.
    static func random(roll: Int, pick: Int, nextID: inout Int) -> WorkloadOp {
        let producer = pick % producerCount
        switch roll {
        case 0..<5:
            let count = pick % 3 == 0 ? 2 : 1
            let ids = (0..<count).map { "j\(nextID + $0)" }
            nextID += count
            let key: String? = pick % 4 == 1 ? "key-\(pick % 3)" : nil
            let policies: [UniquePolicy] = [.keep, .replace, .append]
            return .produce(
                .enqueue(
                    producer: producer, ids: ids, priority: pick % 3 - 1, delay: Int64(pick % 3) * 500, key: key,
                    policy: policies[(pick / 4) % policies.count], dependencyPick: pick % 5 == 0 ? pick / 5 : nil))
        case 5 where pick % 4 == 3: return .produce(.cancelTagged(producer: producer, tag: pick % 8 == 3 ? "t0" : "t1"))
        case 5: return .produce(.cancel(producer: producer, pick: pick / 2))
        default: return .ingest
        }
    }
}

/// The ids a run's producers name their inbox files by: drawn from a counter, scrambled so that the
/// owner's order (by name) is not the order of creation, and the same in every run of a seed.
final class InboxFileIDs: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var drawn: UInt64 = 0
    private var last: [Int: String] = [:]

    /// The generator producer `producer` draws its files' ids from.
    func generator(for producer: Int) -> @Sendable () -> [UInt8] {
        { [self] in
            lock.withLock {
                drawn += 1
                let id = Self.bytes(drawn)
                last[producer] = InboxFormat.fileName(id: id)
                return id
            }
        }
    }

    /// The name of the inbox file producer `producer` made last.
    func lastFile(of producer: Int) -> String? { lock.withLock { last[producer] } }

    /// 16 bytes from `counter` (splitmix64, twice).
    private static func bytes(_ counter: UInt64) -> [UInt8] {
        func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return [mix(counter), mix(counter ^ 0xFFFF)].flatMap { word in
            (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
        }
    }
}

extension SimulationRun {
    /// Producer `index`, made on first use (after a power loss, a new process).
    func producer(_ index: Int) throws -> QueueProducer {
        if let producer = producers[index] { return producer }
        let producer = try QueueProducer(
            directory: Self.directory, configuration: configuration, fileIDs: inboxFileIDs.generator(for: index))
        producers[index] = producer
        return producer
    }

    /// Runs a producer's operation; `next` gets its requests in the inbox file they went to — also when
    /// the call fails, as the candidate state in which its record reached the disk.
    ///
    /// Each call first moves the clock on by a microsecond: the calls run one after another, as calls of
    /// different processes that each returned before the next began, and each takes a reading of its own.
    func perform(_ op: ProduceOp, next: inout QueueModel) throws {
        clock.advance(by: 1e-6)
        let now = Millis.from(clock.now())
        switch op {
        case .enqueue(let index, let ids, let priority, let delay, let key, let policy, let pick):
            let dependencies = pick.flatMap(pickID).map { [$0] } ?? []
            let kind = dependencies.isEmpty ? "k" : "m"
            let requests = ids.map {
                ModelInboxRequest.enqueue(
                    id: $0, kind: kind, priority: priority, runAt: now + delay, maxAttempts: nil, uniqueKey: key,
                    policy: policy, dependencies: dependencies, createdAt: now)
            }
            let jobs = ids.map {
                NewJob(
                    kind: kind, payload: Data(ModelInboxRequest.payload(of: $0)), id: JobID($0), priority: priority,
                    delay: Double(delay) / 1000, uniqueKey: key, uniquePolicy: policy,
                    dependencies: dependencies.map { JobID($0) }, tags: Set(QueueModel.tags(of: $0)),
                    retryPolicy: QueueModel.retryPolicy(of: $0))
            }
            let producer = try producer(index)
            defer { if let file = inboxFileIDs.lastFile(of: index) { next.record(requests, inFile: file) } }
            let returned = try producer.enqueue(contentsOf: jobs)
            if returned.map(\.rawValue) != ids { throw SimulationMismatch("\(op): returned \(returned)") }
            for id in ids { noteID(id) }
        case .cancel(let index, let pick):
            guard let id = pickID(pick) else { return }
            let producer = try producer(index)
            defer { if let file = inboxFileIDs.lastFile(of: index) { next.record([.cancel(id: id)], inFile: file) } }
            try producer.cancel(JobID(id))
        case .cancelTagged(let index, let tag):
            let producer = try producer(index)
            defer {
                if let file = inboxFileIDs.lastFile(of: index) { next.record([.cancelTagged(tag: tag)], inFile: file) }
            }
            try producer.cancel(tagged: tag)
        }
    }
}
