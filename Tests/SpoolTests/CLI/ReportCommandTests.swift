import Foundation
import SpoolTestSupport
import Testing

@testable import Spool
@testable import SpoolCommands

/// `spool report DIR --html FILE`: one self-contained page, well formed whatever the jobs' text
/// holds (ids, kinds and errors are untrusted), that changes nothing in the queue.
@Suite(.blocking) struct ReportCommandTests {
    static let hostileID: JobID = "<script>alert(\"id\")</script>"
    static let hostileKind = "k\"&'<b>"
    static let hostileError = "</td><img src=x onerror=alert(1)> & \"q\""

    /// A queue with a job per outcome: retried then succeeded, failed for good (hostile text),
    /// running, enqueued with a delay, cancelled.
    static func makeQueue(_ temp: TemporaryDirectory) throws {
        let clock = ManualClock()
        var configuration = testConfiguration(clock: clock)
        configuration.runningJobsAtOpen = .keepUnexpiredLeases
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "upload", id: "retried"))
        try queue.enqueue(NewJob(kind: hostileKind, id: hostileID, priority: -1))
        var lease = try #require(try queue.claim(kind: "upload"))
        try queue.fail(lease, error: "HTTP 503")
        clock.advance(by: 5)
        lease = try #require(try queue.claim(kind: "upload"))
        clock.advance(by: 2)
        try queue.complete(lease)
        lease = try #require(try queue.claim(kind: hostileKind))
        clock.advance(by: 1)
        try queue.fail(lease, error: hostileError, terminal: true)
        try queue.enqueue(NewJob(kind: "upload", id: "running"))
        _ = try #require(try queue.claim(kind: "upload", leaseDuration: 1e6))
        try queue.enqueue(NewJob(kind: "upload", id: "later", delay: 3600))
        try queue.enqueue(NewJob(kind: "upload", id: "dropped"))
        try queue.cancel("dropped")
        try queue.close()
    }

    /// Every file of `directory` and its bytes.
    static func contents(of directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    /// Runs `spool report` in process; returns the status, the output and the page.
    static func report(_ directory: String, to file: String) throws -> (Int32, String, String) {
        let output = Locked("")
        let console = Console(
            writeOut: { text in output.withLock { $0 += text } },
            writeErr: { text in output.withLock { $0 += text } })
        let status = Program.spool.run(["report", directory, "--html", file], console: console)
        let page = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return (status, output.withLock { $0 }, page)
    }

    @Test func thePageShowsTheQueueAndEscapesItsText() throws {
        let temp = TemporaryDirectory("spool-report")
        defer { temp.cleanup() }
        try Self.makeQueue(temp)
        let before = try Self.contents(of: temp.queue)
        let (status, output, page) = try Self.report(temp.queue, to: temp.path + "/report.html")
        #expect(status == ExitStatus.success, "\(output)")
        #expect(try Self.contents(of: temp.queue) == before, "spool report changed the queue")

        // Structure: one document, its sections, counts by state, one inline SVG timeline.
        #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(page.hasSuffix("</body>\n</html>\n"))
        for section in ["counts", "deadlines", "jobs", "timeline", "files"] {
            #expect(page.contains("<section id=\"\(section)\">"), "no \(section) section")
        }
        for (state, count) in [("enqueued", 1), ("running", 1), ("succeeded", 1), ("failed", 1), ("cancelled", 1)] {
            #expect(page.contains("<div class=\"count \(state)\"><b>\(count)</b>\(state)</div>"), "\(state)")
        }
        #expect(page.components(separatedBy: "<svg ").count == 2)
        #expect(page.contains("<title>attempt 1: failed, retried: HTTP 503, "))
        #expect(page.contains("<title>attempt 2: succeeded, "))
        #expect(page.contains("<title>retry due "))
        #expect(page.contains("Compaction would reclaim"), "\(page)")
        #expect(page.contains("</td><td>due</td><td><code>later</code></td>"), "the next deadlines")
        #expect(page.contains("</td><td>lease expires</td><td><code>running</code></td>"), "the next deadlines")

        // Self-contained: no script, no external resource of any kind.
        let lower = page.lowercased()
        for forbidden in ["<script", "src=\"", "href=", "@import", "url(", "<link", "<iframe", "<object"] {
            #expect(!lower.contains(forbidden), "the page contains \(forbidden)")
        }
        #expect(
            lower.components(separatedBy: "://").count == 2 && lower.contains("xmlns=\"http://www.w3.org/2000/svg\""),
            "only the SVG namespace names a URL")

        // Escaping: the hostile texts appear only escaped.
        #expect(
            !page.contains(Self.hostileID.rawValue) && !page.contains(Self.hostileKind)
                && !page.contains(Self.hostileError))
        #expect(page.contains("&lt;script&gt;alert(&quot;id&quot;)&lt;/script&gt;"))
        #expect(page.contains("k&quot;&amp;&#39;&lt;b&gt;"))
        #expect(page.contains("&lt;/td&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot;"))
        #expect(Self.unbalancedTags(in: page) == [], "the markup is not well nested")
    }

    /// As `list` (ReadOnlyCommandTests): a torn tail, a snapshot a compaction left unfinished and an
    /// expired lease, which an open would cut, delete and reclaim, stay as they are.
    @Test func whatAnOpenWouldRepairIsLeftAlone() throws {
        let temp = TemporaryDirectory("spool-report")
        defer { temp.cleanup() }
        var configuration = Configuration()
        configuration.clock = ManualClock(start: Date(timeIntervalSince1970: 1_000_000))
        let queue = try JobQueue(directory: temp.queue, configuration: configuration)
        try queue.enqueue(NewJob(kind: "k", payload: Data("p".utf8), id: "running"))
        _ = try #require(try queue.claim(leaseDuration: 60))
        try queue.close()
        let log = try #require(
            try FileManager.default.contentsOfDirectory(atPath: temp.queue).filter { $0.hasPrefix("wal-") }.max())
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temp.queue + "/" + log))
        handle.seekToEndOfFile()
        handle.write(Data([0x2A, 0, 0, 0, 0x11, 0x22, 0x33]))
        handle.closeFile()
        try Data("unfinished".utf8).write(to: URL(fileURLWithPath: temp.queue + "/snap-0000000000000009.tmp"))
        let before = try Self.contents(of: temp.queue)
        let (status, output, page) = try Self.report(temp.queue, to: temp.path + "/report.html")
        #expect(status == ExitStatus.success, "\(output)")
        #expect(try Self.contents(of: temp.queue) == before, "spool report changed the queue")
        #expect(
            page.contains("<div class=\"count running\"><b>1</b>running</div>"), "the expired lease is shown running")
    }

    @Test func anEmptyQueueGivesAPageToo() throws {
        let temp = TemporaryDirectory("spool-report")
        defer { temp.cleanup() }
        try JobQueue(directory: temp.queue, configuration: testConfiguration()).close()
        let (status, output, page) = try Self.report(temp.queue, to: temp.path + "/report.html")
        #expect(status == ExitStatus.success, "\(output)")
        #expect(page.contains("<p>No jobs.</p>") && page.contains("<div class=\"count\"><b>0</b>total</div>"))
        #expect(Self.unbalancedTags(in: page) == [])
    }

    @Test func withoutHTMLItIsAUsageError() {
        let console = Console(writeOut: { _ in }, writeErr: { _ in })
        #expect(Program.spool.run(["report", "/nonexistent"], console: console) == ExitStatus.usage)
    }

    @Test func escapingCoversMarkupAndControlCharacters() {
        #expect(HTMLText.escape("a<b>&\"c'\u{07}\n") == "a&lt;b&gt;&amp;&quot;c&#39;\\u0007\\n")
        #expect(HTMLText.escape("plain text, é ✓") == "plain text, é ✓")
    }

    /// The tags that open without closing or close without opening, in order; void elements and
    /// the doctype aside. A page whose text broke out of its element would show here.
    static func unbalancedTags(in page: String) -> [String] {
        let void: Set<String> = ["meta", "br", "hr", "img", "input", "link"]
        var stack: [String] = []
        var problems: [String] = []
        let pattern = try! NSRegularExpression(pattern: "<(/?)([A-Za-z][A-Za-z0-9]*)([^<>]*?)(/?)>")
        for match in pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)) {
            let closing = !(Range(match.range(at: 1), in: page).map { page[$0].isEmpty } ?? true)
            let name = Range(match.range(at: 2), in: page).map { String(page[$0]).lowercased() } ?? ""
            let selfClosing = !(Range(match.range(at: 4), in: page).map { page[$0].isEmpty } ?? true)
            if void.contains(name) || selfClosing { continue }
            if closing {
                if stack.last == name { stack.removeLast() } else { problems.append("</\(name)>") }
            } else {
                stack.append(name)
            }
        }
        return problems + stack.map { "<\($0)>" }
    }
}
