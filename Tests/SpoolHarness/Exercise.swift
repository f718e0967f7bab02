import Foundation
import Spool
import SpoolCommands

/// `spool exercise`: a workload for crash tests. Several threads enqueue, claim,
/// complete and fail jobs on one queue and print one line per acknowledged
/// change, only after the call that made it durable returned:
/// `enqueued ID`, `claimed ID`, `completed ID`, `retrying ID`, `failed ID`.
/// A test kills the process at a random moment and checks every printed line.
enum ExerciseCommand {
    /// The command's description and entry point.
    static let command = Command(
        name: "exercise",
        synopsis: "DIR [--seed N] [--threads N] [--operations N]",
        summary: "Run a concurrent workload printing each acknowledged change (for crash tests).",
        help: """
              --seed N             seed of the workload's random choices (default 1)
              --threads N          concurrent workers (default 4; 1 to \(maximumThreads))
              --operations N       stop after this many operations per worker, at least 1 (default: run until killed)

            Each line is printed only after the change is durable, so after a kill -9
            every printed line must be reflected when the queue is reopened.
            """,
        spec: ArgumentSpec(positionals: ["DIR"], valueOptions: ["seed", "threads", "operations"]),
        run: run)

    /// The most workers `--threads` may ask for.
    static let maximumThreads = 256

    private static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
        let seed = try UInt64(arguments.values["seed"] ?? "1").orUsage("--seed takes a whole number")
        let threads = try arguments.integer("threads", in: 1...maximumThreads) ?? 4
        let operations = try arguments.integer("operations", in: 1...Int.max) ?? Int.max
        let queue = try QueueAccess.waitingForLock {
            try JobQueue(directory: arguments.positionals[0], configuration: Configuration())
        }
        let shared = Workload(queue: queue)
        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            shared.run(seed: seed &* 1000 &+ UInt64(worker), operations: operations)
        }
        try queue.close()
        return ExitStatus.success
    }
}

/// The state the exercise workers share: the queue and the leases held.
private final class Workload: @unchecked Sendable {
    // @unchecked: `leases` is only touched with `lock` held; the queue is Sendable.
    let queue: JobQueue
    private let lock = NSLock()
    private var leases: [Lease] = []

    init(queue: JobQueue) { self.queue = queue }

    func run(seed: UInt64, operations: Int) {
        var random = SplitMix(seed: seed)
        var done = 0
        while done < operations {
            done += 1
            do {
                switch random.next() % 10 {
                case 0...3:
                    let id = try queue.enqueue(NewJob(kind: "exercise", payload: Data("p\(random.next() % 1000)".utf8)))
                    acknowledge("enqueued", id)
                case 4...5:
                    if let lease = try queue.claim(leaseDuration: 600) {
                        lock.lock()
                        leases.append(lease)
                        lock.unlock()
                        acknowledge("claimed", lease.job.id)
                    }
                default:
                    lock.lock()
                    let lease = leases.isEmpty ? nil : leases.removeFirst()
                    lock.unlock()
                    guard let lease else { continue }
                    switch random.next() % 4 {
                    case 0, 1:
                        acknowledge("completed", try queue.complete(lease).id)
                    default:
                        let job = try queue.fail(lease, error: "exercise", terminal: random.next() % 3 == 0)
                        acknowledge(job.state == .failed ? "failed" : "retrying", job.id)
                    }
                }
            } catch {
                FileHandle.standardError.write(Data("exercise: \(error)\n".utf8))
                exit(1)
            }
        }
    }

    /// Prints one line with a single write, so lines from several threads never interleave.
    private func acknowledge(_ event: String, _ id: JobID) {
        let line = Array("\(event) \(id)\n".utf8)
        line.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
    }
}

/// A small seeded generator (SplitMix64).
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
