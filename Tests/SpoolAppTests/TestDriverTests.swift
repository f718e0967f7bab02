import Foundation
import Spool
import SpoolApp
import SpoolAppTesting
import Testing

/// The uploads app's flow written as an app writes it, on `SpoolAppTesting`'s driver alone: no fake of its
/// own. A photo uploads in a launch, its progress shows, the app is killed and relaunched for the session's
/// events, the server's id becomes the job's result; nothing iOS kills an app for happened.
@Suite struct TestDriverTests {
    /// Sets the uploads app up on `driver` over `folder`, as its app delegate does.
    static func app(_ driver: BackgroundWorkTestDriver, _ folder: URL) throws -> (BackgroundWork, JobQueue) {
        let work = try BackgroundWork(
            options: .init(
                launches: LaunchIdentifiers(refresh: "app.refresh", processing: ["app.process"]),
                transferSession: "app.transfers"),
            system: driver.system)
        var configuration = Configuration()
        configuration.clock = driver.clock
        let queue = try JobQueue(directory: folder, configuration: configuration)
        let runner = try JobRunner(queue: queue)
        try runner.register(kind: "upload") { _, context in
            try await work.startTransfer(
                .upload(URL(fileURLWithPath: "/photo.jpg"), to: URL(string: "https://example.com/photos")!),
                in: context, for: 86_400)
        }
        try work.attach(queue: queue, runner: runner)
        return (work, queue)
    }

    @Test(.timeLimit(.minutes(1))) func anUploadAcrossARelaunchOnTheDriver() async throws {
        let folder = AppFolder()
        defer { folder.remove() }
        let driver = BackgroundWorkTestDriver(clock: folder.clock)
        let (work, queue) = try Self.app(driver, folder.directory)
        var events = EventReader(work)
        let id = try await queue.enqueue(NewJob(kind: "upload", id: "photo-1"))
        let launch = driver.launch("app.refresh")
        #expect(await launch.completion() == true)
        await events.until { driver.transfers.session("app.transfers")?.started.count == 1 }
        let key = try #require(driver.transfers.session("app.transfers")?.started.first)
        driver.progress(key, bytes: 512, of: 1_024)
        #expect(queue.progress(of: id) == JobProgress(completed: 512, of: 1_024))
        await work.close()
        try queue.close()

        // The process is gone; the system relaunches the app for the session's events.
        let next = driver.relaunch()
        #expect(next.transfers.held["app.transfers"] == [key])
        let (again, reopened) = try Self.app(next, folder.directory)
        var later = EventReader(again)
        let handled = Calls()
        again.transfers!.handleEvents(forSession: "app.transfers") { handled.record() }
        next.progress(key, bytes: 1_024, of: 1_024)
        #expect(reopened.progress(of: id) == JobProgress(completed: 1_024, of: 1_024))
        next.complete(key, status: 201, body: Data(#"{"id":"p1"}"#.utf8))
        next.transfers.session("app.transfers")!.finishEvents()
        await later.until(seen: .sessionEventsHandled(identifier: "app.transfers"))
        #expect(handled.count == 1)
        #expect(try reopened.job(id)?.result == Data(#"{"id":"p1"}"#.utf8))
        await again.close()
        try reopened.close()
        #expect(driver.violations.isEmpty && next.violations.isEmpty, "\(driver.violations + next.violations)")
    }
}
