import Foundation

@testable import Spool

/// The crash fuzzer's parking and checkpoint operations (#17 items 1, 2), against the queue and the model
/// (QueueModel+Parking.swift).
enum ParkingOp: CustomStringConvertible, Sendable {
    /// Parks a held lease's job under key `pk-<key>` until `deadline` ms from now.
    case park(pick: Int, key: Int, deadline: Int64)
    /// Records a checkpoint for a held lease's job.
    case checkpoint(pick: Int)
    /// Completes the job parked under `pk-<key>`.
    case completeParked(key: Int)
    /// Fails the job parked under `pk-<key>`.
    case failParked(key: Int, terminal: Bool)
    /// Fails, by policy, the parked jobs whose key is not among those `pending`'s bits name.
    case reconcile(pending: Int)

    static let keys = 4

    var description: String {
        switch self {
        case .park(let pick, let key, let deadline): return "park #\(pick) pk-\(key) +\(deadline)ms"
        case .checkpoint(let pick): return "checkpoint #\(pick)"
        case .completeParked(let key): return "complete parked pk-\(key)"
        case .failParked(let key, let terminal): return "fail parked pk-\(key)\(terminal ? " terminal" : "")"
        case .reconcile(let pending): return "reconcile parked, pending \(Self.pendingKeys(pending).sorted())"
        }
    }

    /// One operation for `roll` in 0..<10.
    static func random(roll: Int, pick: Int) -> ParkingOp {
        switch roll {
        case 0..<3:
            // Deadlines a few advances away (so that some pass), or far ahead.
            let deadline: Int64 = pick % 3 == 0 ? 100_000_000 : Int64(1 + pick % 4) * 1000
            return .park(pick: pick, key: pick % keys, deadline: deadline)
        case 3..<6: return .checkpoint(pick: pick)
        case 6..<8: return .completeParked(key: pick % keys)
        case 8: return .failParked(key: pick % keys, terminal: pick % 3 == 0)
        default: return .reconcile(pending: pick)
        }
    }

    static func pendingKeys(_ bits: Int) -> Set<String> {
        Set((0..<keys).filter { bits & (1 << $0) != 0 }.map { "pk-\($0)" })
    }
}

extension SimulationRun {
    /// Runs `op` on `queue` and on `next`; `accepted` says, before the queue is asked, whether the model
    /// accepts it (the queue must, then, and must refuse it otherwise).
    func perform(_ op: ParkingOp, on queue: JobQueue, next: inout QueueModel, accepted: inout Bool) throws {
        switch op {
        case .park(let pick, let key, let deadline):
            guard let (id, lease) = heldLease(pick) else { return }
            accepted = next.canPark(id, key: "pk-\(key)")
            if accepted { next.park(id, key: "pk-\(key)", deadline: now + deadline) }
            try queue.park(lease, key: "pk-\(key)", deadline: Millis.date(now + deadline))
        case .checkpoint(let pick):
            guard let (id, lease) = heldLease(pick) else { return }
            let data = Array("cursor \(pick) of \(id)".utf8)
            accepted = next.jobs[id]?.state == .running
            if accepted { next.checkpoint(id, data: data) }
            leases[id] = try queue.checkpoint(lease, Data(data))
        case .completeParked(let key):
            let holder = next.parkHolder(of: "pk-\(key)")
            accepted = holder != nil
            if let holder { next.complete(holder, now: now) }
            let job = try queue.completeParked(key: "pk-\(key)")
            if job.id.rawValue != holder { throw SimulationMismatch("completed \(job.id), model \(holder ?? "-")") }
        case .failParked(let key, let terminal):
            let holder = next.parkHolder(of: "pk-\(key)")
            accepted = holder != nil
            if let holder { next.fail(holder, error: "e", terminal: terminal, now: now) }
            let job = try queue.failParked(key: "pk-\(key)", error: "e", terminal: terminal)
            if job.id.rawValue != holder { throw SimulationMismatch("failed \(job.id), model \(holder ?? "-")") }
        case .reconcile(let pending):
            let keys = ParkingOp.pendingKeys(pending)
            let expected = next.reconcileParked(stillPending: keys, now: now)
            let failed = try queue.reconcileParked(stillPending: keys)
            if failed.map(\.id.rawValue) != expected {
                throw SimulationMismatch("reconciled \(failed.map(\.id)), model \(expected)")
            }
        }
    }

    /// A held lease, chosen by `pick` among the ids in order.
    private func heldLease(_ pick: Int) -> (String, Lease)? {
        let held = leases.keys.sorted()
        guard !held.isEmpty else { return nil }
        let id = held[pick % held.count]
        return (id, leases[id]!)
    }
}

/// The queue answered otherwise than the model: reported as a violation by the run.
struct SimulationMismatch: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
