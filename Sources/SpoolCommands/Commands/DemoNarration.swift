import Foundation
import Spool

/// How the demo's steps speak: a title after a blank line, indented lines, jobs looked up
/// by id and instants shown as seconds since the demo started.
protocol DemoNarration {
    var queue: JobQueue { get }
    /// The instant shown as t+0s.
    var start: Date { get }
    var console: Console { get }
}

extension DemoNarration {
    /// Prints a step's title after a blank line.
    func step(_ title: String) {
        console.out("")
        console.out(title)
    }

    /// Prints a line of a step, indented.
    func say(_ line: String) { console.out("   " + line) }

    /// The job with `id`, which must exist.
    func job(_ id: JobID) throws -> Job {
        guard let job = try queue.job(id) else { throw CommandFailure.operational("demo: job \(id) is missing") }
        return job
    }

    /// An instant as seconds since the demo started: `t+45s`.
    func t(_ date: Date) -> String {
        "t+" + String(Int64(date.timeIntervalSince(start).rounded())) + "s"
    }
}
