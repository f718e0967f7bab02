import Foundation
import Testing

@testable import Spool

extension FormatFixture {
    /// Changes of unfinished jobs' constraints (format-2-constraints, body version 14): `upload-1` enqueued requiring
    /// an unmetered network is changed to any network, `upload-2` to none at all, `sync-1` (enqueued with none) to
    /// charging and the condition `signed-in`; `sync-2` is claimed, changed to a battery that is not low while it runs,
    /// and fails (its retry keeps them); `done-1` succeeds and a change of it is refused (nothing written); a compaction
    /// writes every job's constraints with its restore; after the snapshot `upload-1` is changed again (to none), and
    /// `upload-3`, enqueued requiring an unmetered network, to any network and the condition `uploads-on`; `sync-3`
    /// is claimed, changed to an idle device while it runs, and fails (its retry keeps them).
    /// `expected.json` is the state the next open holds.
    static func generateConstraints(into directory: String) throws {
        let clock = ManualClock(start: start)
        let queuePath = directory + "/queue"
        let configuration = configuration(clock: clock)
        func step() { clock.advance(by: 1) }
        let unmetered = JobConstraints(requiresUnmeteredNetwork: true)
        let queue = try JobQueue(directory: queuePath, configuration: configuration)
        // A large payload first: the log rolls over, as in every fixture.
        _ = try queue.enqueue(NewJob(kind: "archive", payload: Data(count: 1100), id: "local-0"))
        _ = try queue.enqueue(
            NewJob(kind: "upload", payload: Data("1".utf8), id: "upload-1", constraints: unmetered))
        _ = try queue.enqueue(
            NewJob(kind: "upload", payload: Data("2".utf8), id: "upload-2", constraints: unmetered))
        _ = try queue.enqueue(NewJob(kind: "sync", payload: Data("s1".utf8), id: "sync-1"))
        _ = try queue.enqueue(NewJob(kind: "sync", payload: Data("s2".utf8), id: "sync-2"))
        _ = try queue.enqueue(NewJob(kind: "done", payload: Data("d".utf8), id: "done-1"))
        step()
        try queue.update("upload-1", constraints: JobConstraints(requiresNetwork: true))
        try queue.update("upload-2", constraints: .none)
        try queue.update(
            "sync-1", constraints: JobConstraints(requiresCharging: true, requiredConditions: ["signed-in"]))
        step()
        let running = try #require(try queue.claim(kind: "sync"))
        #expect(running.job.id == "sync-2")
        try queue.update("sync-2", constraints: JobConstraints(requiresBatteryNotLow: true))
        step()
        try queue.fail(running, error: "offline")
        step()
        try queue.complete(try #require(try queue.claim(kind: "done")))
        do {
            try queue.update("done-1", constraints: unmetered)
            Issue.record("a finished job's constraints changed")
        } catch let error as SpoolError {
            #expect(error.code == .invalidState)
        }
        step()
        _ = try queue.compact()
        step()
        try queue.update("upload-1", constraints: .none)
        _ = try queue.enqueue(
            NewJob(kind: "upload", payload: Data("3".utf8), id: "upload-3", constraints: unmetered))
        try queue.update(
            "upload-3", constraints: JobConstraints(requiresNetwork: true, requiredConditions: ["uploads-on"]))
        step()
        _ = try queue.enqueue(NewJob(kind: "sync", payload: Data("s3".utf8), id: "sync-3"))
        let third = try #require(try queue.claim(kind: "sync"))
        #expect(third.job.id == "sync-3")
        try queue.update("sync-3", constraints: JobConstraints(requiresDeviceIdle: true))
        step()
        try queue.fail(third, error: "busy")
        step()
        try closeChecked(queue)
        try? FileManager.default.removeItem(atPath: queuePath + "/" + QueueDirectoryLayout.lockFileName)

        // The state the next open holds.
        try writeStateOfNextOpen(of: queuePath, into: directory, configuration: configuration, clock: clock)
    }
}
