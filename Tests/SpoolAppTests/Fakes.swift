import Foundation
import Spool
import SpoolApp
import Testing

/// A queue in a fresh folder of the temporary directory, on a manual clock.
struct AppFolder {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spool-app-\(UUID().uuidString)")
    var directory: URL { folder.appendingPathComponent("jobs") }
    let clock = ManualClock()

    var configuration: Configuration {
        var configuration = Configuration()
        configuration.clock = clock
        configuration.retryPolicy = .table([30], maxAttempts: 5)
        return configuration
    }

    func open(sharing: ProcessSharing = .exclusive) throws -> JobQueue {
        var configuration = configuration
        configuration.sharing = sharing
        return try JobQueue(directory: directory, configuration: configuration)
    }
    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// The identifiers the tests register.
let identifiers = LaunchIdentifiers(refresh: "app.refresh", processing: ["app.process.1", "app.process.2"])

/// Holds whoever waits until the test opens it.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var arrivals = 0
    private var arrivalWaiters: [CheckedContinuation<Void, Never>] = []

    /// Returns once the gate is open.
    func passed() async {
        await withCheckedContinuation { continuation in
            let (open, arrived) = lock.withLock { () -> (Bool, [CheckedContinuation<Void, Never>]) in
                arrivals += 1
                defer { arrivalWaiters = [] }
                if !isOpen { waiters.append(continuation) }
                return (isOpen, arrivalWaiters)
            }
            for waiter in arrived { waiter.resume() }
            if open { continuation.resume() }
        }
    }

    /// Returns once someone waits at the gate (or passed it).
    func reached() async {
        await withCheckedContinuation { continuation in
            let already = lock.withLock { () -> Bool in
                if arrivals > 0 { return true }
                arrivalWaiters.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }

    func open() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }
}
