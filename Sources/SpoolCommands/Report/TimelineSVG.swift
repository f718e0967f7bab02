import Foundation
import Spool

/// The attempts of each job on one time axis, as inline SVG: a row per job, a bar per attempt
/// coloured by its outcome, a dashed line from a retryable failure to its retry deadline.
enum TimelineSVG {
    static let width = 1100.0
    static let labelWidth = 220.0
    static let rowHeight = 22.0

    static func svg(jobs: [Job], timelines: [JobID: JobTimeline]) -> String {
        let spans = jobs.compactMap { timelines[$0.id]?.span }
        guard let start = spans.map(\.start).min(), let end = spans.map(\.end).max() else { return "" }
        let length = max(end.timeIntervalSince(start), 1)
        let plot = width - labelWidth - 10
        func x(_ date: Date) -> Double { labelWidth + date.timeIntervalSince(start) / length * plot }
        let height = Double(jobs.count) * rowHeight + 30
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
            + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"attempts per job over time\">\n"
        // The axis: its two ends, as dates.
        svg +=
            "<line x1=\"\(labelWidth)\" y1=\"\(height - 22)\" x2=\"\(width - 10)\" y2=\"\(height - 22)\" stroke=\"#999\"/>\n"
        svg += "<text x=\"\(labelWidth)\" y=\"\(height - 6)\">\(HTMLText.escape(ISO8601.string(from: start)))</text>\n"
        svg +=
            "<text x=\"\(width - 10)\" y=\"\(height - 6)\" text-anchor=\"end\">\(HTMLText.escape(ISO8601.string(from: end)))</text>\n"
        for (row, job) in jobs.enumerated() {
            guard let timeline = timelines[job.id] else { continue }
            let y = Double(row) * rowHeight + 4
            svg +=
                "<g>\n<text x=\"4\" y=\"\(y + 14)\">\(HTMLText.escape(label(job)))<title>"
                + "\(HTMLText.escape(job.id.rawValue)) (\(HTMLText.escape(job.kind)))</title></text>\n"
            svg +=
                "<line x1=\"\(labelWidth)\" y1=\"\(y + 10)\" x2=\"\(width - 10)\" y2=\"\(y + 10)\" stroke=\"#f0f0f0\"/>\n"
            if let enqueued = timeline.enqueuedAt {
                svg +=
                    "<circle cx=\(quoted(x(enqueued))) cy=\"\(y + 10)\" r=\"3\" fill=\"#0a60c2\"><title>enqueued "
                    + "\(HTMLText.escape(ISO8601.string(from: enqueued)))</title></circle>\n"
            }
            for attempt in timeline.attempts {
                let (color, detail, retryAt) = describe(attempt.outcome)
                let left = x(attempt.start)
                let right = max(x(attempt.end), left + 3)
                svg +=
                    "<rect x=\(quoted(left)) y=\"\(y + 3)\" width=\(quoted(right - left)) height=\"14\" rx=\"2\" fill=\"\(color)\">"
                    + "<title>attempt \(attempt.number): \(HTMLText.escape(detail)), "
                    + "\(HTMLText.escape(ISO8601.string(from: attempt.start))) to \(HTMLText.escape(ISO8601.string(from: attempt.end)))"
                    + "</title></rect>\n"
                if let retryAt {
                    svg +=
                        "<line x1=\(quoted(right)) y1=\"\(y + 10)\" x2=\(quoted(max(x(retryAt), right))) y2=\"\(y + 10)\" "
                        + "stroke=\"#e08a00\" stroke-dasharray=\"3 3\"><title>retry due "
                        + "\(HTMLText.escape(ISO8601.string(from: retryAt)))</title></line>\n"
                }
            }
            for mark in timeline.marks {
                svg +=
                    "<path d=\"M\(format(x(mark.at))) \(y + 1) l4 4 l-4 4 l-4 -4 z\" fill=\"#666\"><title>"
                    + "\(HTMLText.escape(mark.label)) \(HTMLText.escape(ISO8601.string(from: mark.at)))</title></path>\n"
            }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    /// The row's label: the id, cut to fit.
    private static func label(_ job: Job) -> String {
        let id = job.id.rawValue
        return id.count > 28 ? String(id.prefix(27)) + "…" : id
    }

    /// The bar's colour, its description, and the retry deadline it leads to.
    private static func describe(_ outcome: JobTimeline.Outcome) -> (String, String, Date?) {
        switch outcome {
        case .succeeded: return ("#1a7f37", "succeeded", nil)
        case .retried(let error, let retryAt): return ("#e08a00", "failed, retried: " + error, retryAt)
        case .failed(let error): return ("#b00020", "failed: " + error, nil)
        case .reclaimed(let reason, let retryAt): return ("#8e8e93", "reclaimed: " + reason, retryAt)
        case .cancelled: return ("#8e8e93", "cancelled", nil)
        case .running(let expiry): return ("#b36b00", "running, lease until " + ISO8601.string(from: expiry), nil)
        }
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
    private static func quoted(_ value: Double) -> String { "\"" + format(value) + "\"" }
}
