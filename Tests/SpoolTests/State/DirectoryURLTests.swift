import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// Every call that takes a queue directory takes a file `URL` too, as Apple's APIs hand one to an app.
@Suite(.blocking) struct DirectoryURLTests {
    @Test(.onThePool) func everyDirectoryCallTakesAFileURL() async throws {
        let temporary = TemporaryDirectory("urls")
        defer { temporary.cleanup() }
        // A path with a space and a non-ASCII letter: the URL's file-system form, not its percent-encoded text.
        let url = URL(fileURLWithPath: temporary.path).appendingPathComponent("app group é/jobs")
        let configuration = testConfiguration()
        var queue = try JobQueue(directory: url, configuration: configuration)
        #expect(queue.directory == temporary.path + "/app group é/jobs")
        let id = try await queue.enqueue(NewJob(kind: "upload"))
        try closeChecked(queue)
        queue = try await JobQueue.open(directory: url, configuration: configuration)
        try closeChecked(queue)
        let producer = try QueueProducer(directory: url, configuration: configuration)
        #expect(producer.directory == queue.directory)
        #expect(try LogInspector.verify(directory: url).records >= 1)
        #expect(try LogInspector.records(directory: url).count >= 1)
        #expect(try LogInspector.withJobs(directory: url) { $0.job(id)?.kind } == "upload")
        #expect(try QueueOwner.read(directory: url) == nil)
    }

    @Test func aURLThatIsNotAFileURLIsRefused() throws {
        let url = try #require(URL(string: "https://example.com/jobs"))
        expectError(.invalidArgument) { _ = try JobQueue(directory: url) }
        expectError(.invalidArgument) { _ = try QueueProducer(directory: url) }
        expectError(.invalidArgument) { _ = try LogInspector.verify(directory: url) }
    }
}
