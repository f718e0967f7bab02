import Foundation
import Testing

@testable import Spool

/// A handler's progress: observable per job and per kind, coalesced, memory only, gone once the job finishes.
@Suite struct ProgressTests {
    @Test func progressIsVisiblePerJobAndPerKindUntilTheJobFinishes() async throws {
        let fixture = try RuntimeFixture()
        let gate = Gate()
        let checkpoints = Checkpoints()
        try fixture.runner.register(kind: "photos") { _, context in
            for done in 1...3 { context.reportProgress(completed: done, of: 10) }
            checkpoints.reach("reported")
            try await gate.wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "photos"))
        let other = try await fixture.queue.enqueue(NewJob(kind: "other"))
        let lsnBefore = try fixture.queue.engine.readWithLastLSN { _ in 0 }.lsn
        fixture.runner.start()
        await checkpoints.wait(for: "reported")
        #expect(fixture.queue.progress(of: id) == JobProgress(completed: 3, of: 10))
        #expect(fixture.queue.progress(of: id)?.description == "3 of 10 (30%)")
        #expect(fixture.queue.progress(of: other) == nil)
        // A reader that starts late sees the latest progress only, coalesced: not a backlog of three.
        var byKind = fixture.queue.progressUpdates(.kind("photos")).makeAsyncIterator()
        let first = await byKind.next()
        #expect(first == JobProgressUpdate(id: id, kind: "photos", progress: JobProgress(completed: 3, of: 10)))
        // Not one record per report: only the claim was written.
        #expect(try fixture.queue.engine.readWithLastLSN { _ in 0 }.lsn == lsnBefore + 1)
        var byID = fixture.queue.progressUpdates(.id(id)).makeAsyncIterator()
        #expect(await byID.next()?.progress?.completed == 3)
        gate.open()
        // The job finishes: its progress is gone, and the observers are told.
        #expect(await byKind.next() == JobProgressUpdate(id: id, kind: "photos", progress: nil))
        #expect(await byID.next()?.progress == nil)
        #expect(fixture.queue.progress(of: id) == nil)
        try await fixture.tearDown()
    }

    @Test func progressIsMemoryOnlyAndAReportAfterTheAttemptIsIgnored() async throws {
        let fixture = try RuntimeFixture()
        let checkpoints = Checkpoints()
        let late = Locked<JobContext?>(nil)
        try fixture.runner.register(kind: "k") { _, context in
            context.reportProgress(JobProgress(fraction: 1.7))  // clamped
            late.withLock { $0 = context }
            checkpoints.reach("reported")
            try await Gate().wait()
        }
        let id = try await fixture.queue.enqueue(NewJob(kind: "k"))
        fixture.runner.start()
        await checkpoints.wait(for: "reported")
        #expect(fixture.queue.progress(of: id)?.fraction == 1)
        try await fixture.queue.cancel(id)
        #expect(fixture.queue.progress(of: id) == nil, "cancelled: the job finished")
        late.withLock { $0 }?.reportProgress(completed: 9, of: 10)
        #expect(fixture.queue.progress(of: id) == nil, "a report after the job finished is ignored")
        // A context outside a runner reports nowhere.
        JobContext(job: Job(kind: "k")).reportProgress(completed: 1, of: 2)
        #expect(JobProgress(completed: 1, of: 0).fraction == 0 && JobProgress(fraction: .nan).fraction == 0)
        try await fixture.tearDown()
    }
}
