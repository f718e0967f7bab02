import Foundation

/// What Swift's runtime alone charges a log writer for waking suspended callers, with no
/// Spool and no disk: `tasks` tasks each wait on a continuation; a plain thread (as Spool's
/// flusher is) resumes them all, and each resumed task at once waits on a new one, as a
/// producer that appends its next record does. Measured: the time to resume them all (what
/// the flusher spends between two syncs on a group's wake-ups), and the time until every one
/// waits again. Between rounds the thread pauses for about a sync, so that the pool's threads
/// go idle as they do while a sync is under way.
func runWakeUpCost(_ context: Context, tasks: Int) {
    let hub = SuspendedTasks(count: tasks)
    for _ in 0..<tasks {
        Task.detached {
            while true { await withCheckedContinuation { hub.wait($0) } }
        }
    }
    hub.waitUntilAllWait()
    var resumeAll = Latencies(capacity: wakeUpRounds)
    var untilAllWaitAgain = Latencies(capacity: wakeUpRounds)
    for _ in 0..<wakeUpRounds {
        let start = Clock.nanoseconds()
        hub.resumeAll()
        let resumed = Clock.nanoseconds()
        hub.waitUntilAllWait()
        let back = Clock.nanoseconds()
        resumeAll.record(microseconds: Double(resumed - start) / 1000)
        untilAllWaitAgain.record(microseconds: Double(back - start) / 1000)
        usleep(150)
    }
    context.add(
        Row(
            workload: "runtime", name: "runtime: a thread resumes \(tasks) tasks",
            latency: resumeAll.percentiles, figures: ["tasks": Double(tasks)]))
    context.add(
        Row(
            workload: "runtime", name: "runtime: until all \(tasks) wait again",
            latency: untilAllWaitAgain.percentiles, figures: ["tasks": Double(tasks)]))
    // The tasks stay suspended for the rest of the run: nothing resumes them again.
}

/// Rounds of ``runWakeUpCost(_:tasks:)``.
let wakeUpRounds = 2_000

/// Tasks waiting on continuations, and a signal for when all of them wait.
private final class SuspendedTasks: @unchecked Sendable {
    // @unchecked: `waiting` is only touched under `lock`.
    private let lock = NSLock()
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let count: Int
    private let allWait = DispatchSemaphore(value: 0)

    init(count: Int) { self.count = count }

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        waiting.append(continuation)
        let all = waiting.count == count
        lock.unlock()
        if all { allWait.signal() }
    }

    func waitUntilAllWait() { allWait.wait() }

    func resumeAll() {
        lock.lock()
        let resumed = waiting
        waiting = []
        lock.unlock()
        for continuation in resumed { continuation.resume() }
    }
}
