import Foundation

@testable import Spool

extension FormatFixture {
    /// `format-2-owner`: a queue two ``ProcessSharing/shared`` owners wrote in turn. The first enqueues
    /// and claims, its lease expires (it is left open, as a stopped process would be), the second takes
    /// over (epoch 2, generation 2, in slot 0), completes the claim, enqueues two more, and closes cleanly
    /// (generation 3, lease-until 0, in slot 1). The stale first owner's write is refused.
    static func generateOwner(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        var shared = configuration(clock: clock)
        shared.sharing = .shared
        let first = try JobQueue(directory: queuePath, configuration: shared)
        // Payloads of 400 bytes: each owner rolls the log over (1 KiB files), so the fixture has several files.
        func photo(_ name: String) -> Data { Data((name + String(repeating: ".", count: 400 - name.count)).utf8) }
        _ = try first.enqueue(NewJob(kind: "upload", payload: photo("photo-1"), id: "upload-1"))
        _ = try first.enqueue(NewJob(kind: "upload", payload: photo("photo-2"), id: "upload-2"))
        _ = try first.enqueue(NewJob(kind: "upload", payload: photo("photo-3"), id: "upload-3"))
        let lease = try first.claim()
        clock.advance(by: 31)
        let second = try JobQueue(directory: queuePath, configuration: shared)
        if let lease { _ = try second.complete(lease.job.id, token: lease.token) }
        clock.advance(by: 1)
        _ = try second.enqueue(NewJob(kind: "upload", payload: photo("photo-4"), id: "upload-4"))
        _ = try second.enqueue(NewJob(kind: "upload", payload: photo("photo-5"), id: "upload-5"))
        do {
            _ = try first.enqueue(NewJob(kind: "upload", payload: Data("stale".utf8), id: "stale-1"))
            throw FixtureError("the stale owner's enqueue was not refused")
        } catch let error as SpoolError where error.code == .ownershipLost {}
        try? first.close()
        let expected = try FixtureState(queue: second, clockAdvance: clock.now().timeIntervalSince(start))
        try second.close()
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(expected).write(to: URL(fileURLWithPath: directory + "/expected.json"))
    }
}
