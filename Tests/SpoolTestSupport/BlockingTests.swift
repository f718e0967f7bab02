import Foundation
import Testing

/// Runs a suite's tests on threads of their own instead of Swift's cooperative pool.
///
/// A synchronous test (and an async one that waits on a semaphore, a child process or a sleep)
/// holds the thread it runs on for its whole run. Swift Testing starts every test at once, on the
/// cooperative pool, which has one thread per core: on a two-core machine two such tests left the
/// async tests (a runner waiting for its handler, a launch waiting for its expiry) no thread at
/// all, and tests that need milliseconds ended after minutes. Tests under this trait run on
/// ``BlockingTestThreads/shared`` instead, so they wait for each other, never for the pool.
///
/// Apply it to every suite with a synchronous test: `@Suite(.blocking)`. It reaches every test of
/// the suite and of the suites inside it, except those marked ``Trait/onThePool``: an async test
/// in such a suite keeps to the pool, where each of its resumptions runs at once instead of
/// queueing behind the blocking tests (and where a time limit measures the test, not the queue).
public struct BlockingTests: SuiteTrait, TestTrait, TestScoping {
    /// The trait reaches the tests of nested suites too.
    public var isRecursive: Bool { true }

    /// Runs each test case with ``BlockingTestThreads/shared`` as its task executor preference: the
    /// test's body and whatever nonisolated async code it awaits run there.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, !test.traits.contains(where: { $0 is OnThePool }) else {
            return try await function()
        }
        // Task executors came with macOS 15 and iOS 18; before them the tests run where they always did.
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return try await function() }
        try await withTaskExecutorPreference(BlockingTestThreads.shared) { try await function() }
    }
}

extension Trait where Self == BlockingTests {
    /// The tests block the thread they run on: they run on ``BlockingTestThreads/shared``.
    public static var blocking: Self { BlockingTests() }
}

/// Keeps an async test of a ``BlockingTests`` suite on Swift's cooperative pool.
public struct OnThePool: TestTrait {}

extension Trait where Self == OnThePool {
    /// The test is async and does not block: it runs on the pool, as outside a blocking suite.
    public static var onThePool: Self { OnThePool() }
}

/// A fixed set of threads that run the jobs given to them in order: where blocking tests run.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
public final class BlockingTestThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `pending` is guarded by `condition`; the threads are started once, in `init`.

    /// Twice the cores, and at least four: tests that wait on a child process or a sleep leave their
    /// thread idle, and a fuzzer that computes should not keep the process tests from starting.
    /// Under the thread sanitizer one per core: there every thread of a debug build spends its time
    /// in the Swift runtime's metadata caches, whose locks (futexes without spinning) turn more
    /// threads than cores into a convoy; measured on 2 cores, 4 threads and 4 fuzzer shards left
    /// the process at 0.9 cores and the run took twice as long.
    public static let shared = BlockingTestThreads(
        count: runsUnderThreadSanitizer
            ? ProcessInfo.processInfo.activeProcessorCount : max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    private var pending: [UnownedJob] = []
    private var next = 0

    /// Starts `count` threads with the stack a test's main thread has (8 MiB).
    public init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [self] in
                Thread.current.name = "blocking-\(index)"
                work()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Queues `job` for the next free thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        pending.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == pending.count { condition.wait() }
            let job = pending[next]
            next += 1
            if next == pending.count {
                pending.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
