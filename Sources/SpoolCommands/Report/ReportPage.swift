import Foundation
import Spool

/// `spool report`'s page: one self-contained HTML document (inline CSS and SVG, no script, no
/// external resource) of a ``QueueReport``.
enum ReportPage {
    /// The most jobs the tables and the timeline show, the latest first past that.
    static let jobLimit = 500

    /// The whole page.
    static func html(_ report: QueueReport) -> String {
        let now = report.generatedAt
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Spool queue report</title>
            <style>\(style)</style>
            </head>
            <body>
            <h1>Spool queue report</h1>
            <p class="meta">\(HTMLText.escape(report.directory)) · generated \(HTMLText.escape(ISO8601.string(from: now)))</p>

            """
        page += counts(report)
        page += deadlines(report, now: now)
        page += jobs(report, now: now)
        page += timeline(report)
        page += logFiles(report)
        page += "</body>\n</html>\n"
        return page
    }

    private static let style = """
        body{font:14px/1.4 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px;color:#1d1d1f;background:#fff}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
        .meta{color:#666;margin:0 0 12px}table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top}
        th{background:#f5f5f7;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
        code{font:12px ui-monospace,Menlo,Consolas,monospace}.error{color:#b00020}
        .counts{display:flex;gap:12px;flex-wrap:wrap}.count{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:90px}
        .count b{display:block;font-size:22px}.enqueued{color:#0a60c2}.running{color:#b36b00}.succeeded{color:#1a7f37}
        .failed{color:#b00020}.cancelled{color:#666}.legend span{margin-right:14px}svg text{font:11px ui-monospace,Menlo,Consolas,monospace}
        """

    private static func counts(_ report: QueueReport) -> String {
        var html = "<section id=\"counts\">\n<h2>Jobs by state</h2>\n<div class=\"counts\">\n"
        for state in JobState.allCases {
            html += "<div class=\"count \(state.rawValue)\"><b>\(report.counts[state])</b>\(state.rawValue)</div>\n"
        }
        html += "<div class=\"count\"><b>\(report.counts.total)</b>total</div>\n"
        html +=
            "<div class=\"count awaiting\"><b>\(report.awaiting.count)</b>awaiting ingestion</div>\n</div>\n"
        for error in report.damagedInboxFiles {
            html +=
                "<p class=\"error damaged-inbox\">Inbox file not read (its jobs are not counted): "
                + "\(HTMLText.escape(error.description))</p>\n"
        }
        return html + "</section>\n"
    }

    /// The next moments something happens: enqueued jobs' due times, running jobs' lease expiries.
    private static func deadlines(_ report: QueueReport, now: Date) -> String {
        var upcoming: [(Date, Job, String)] = []
        for job in report.jobs {
            if let due = job.dueAt { upcoming.append((due, job, job.nextRetryAt != nil ? "retry due" : "due")) }
            if job.state == .running, let expiry = job.leaseExpiresAt {
                upcoming.append((expiry, job, "lease expires"))
            }
        }
        upcoming.sort { $0.0 < $1.0 }
        var html = "<section id=\"deadlines\">\n<h2>Next deadlines</h2>\n"
        guard !upcoming.isEmpty else { return html + "<p>No enqueued or running job.</p>\n</section>\n" }
        html += "<table>\n<tr><th>When</th><th>What</th><th>Job</th><th>Kind</th></tr>\n"
        for (date, job, what) in upcoming.prefix(20) {
            html +=
                "<tr><td>\(HTMLText.escape(Formatting.instant(date, relativeTo: now)))</td><td>\(what)</td>"
                + "<td><code>\(HTMLText.escape(job.id.rawValue))</code></td><td>\(HTMLText.escape(job.kind))</td></tr>\n"
        }
        return html + "</table>\n</section>\n"
    }

    private static func jobs(_ report: QueueReport, now: Date) -> String {
        var html = "<section id=\"jobs\">\n<h2>Jobs</h2>\n"
        guard !report.jobs.isEmpty else { return html + "<p>No jobs.</p>\n</section>\n" }
        let shown = report.jobs.suffix(jobLimit)
        if shown.count < report.jobs.count {
            html += "<p>The latest \(shown.count) of \(report.jobs.count) jobs.</p>\n"
        }
        html +=
            "<table>\n<tr><th>ID</th><th>Kind</th><th>State</th><th>Attempts</th><th>Due / lease</th><th>Last error</th></tr>\n"
        for job in shown {
            let error =
                job.lastError.map {
                    "<span class=\"error\">\(HTMLText.escape(Formatting.brief($0, limit: 200)))</span>"
                } ?? ""
            html +=
                "<tr><td><code>\(HTMLText.escape(job.id.rawValue))</code></td><td>\(HTMLText.escape(job.kind))</td>"
                + "<td class=\"\(job.state.rawValue)\">\(job.state.rawValue)</td>"
                + "<td class=\"num\">\(job.attempts)/\(job.maxAttempts)</td>"
                + "<td>\(HTMLText.escape(JobPresentation.schedule(job, now: now)))</td><td>\(error)</td></tr>\n"
        }
        return html + "</table>\n</section>\n"
    }

    private static func timeline(_ report: QueueReport) -> String {
        let jobs = report.jobs.filter { !(report.timelines[$0.id]?.attempts.isEmpty ?? true) }.suffix(jobLimit)
        var html = "<section id=\"timeline\">\n<h2>Attempts and retries</h2>\n"
        guard !jobs.isEmpty else { return html + "<p>No job has had an attempt in the log.</p>\n</section>\n" }
        html += """
            <p class="legend"><span class="succeeded">■ succeeded</span><span class="running">■ running</span>\
            <span style="color:#e08a00">■ failed, retried</span><span class="failed">■ failed</span>\
            <span class="cancelled">■ reclaimed or cancelled</span><span>┈ waiting for the retry</span></p>

            """
        html += TimelineSVG.svg(jobs: Array(jobs), timelines: report.timelines)
        return html + "</section>\n"
    }

    private static func logFiles(_ report: QueueReport) -> String {
        var html = "<section id=\"files\">\n<h2>Log files</h2>\n<table>\n<tr><th>File</th><th>Bytes</th></tr>\n"
        for file in report.logFiles {
            html += "<tr><td><code>\(HTMLText.escape(file.name))</code></td><td class=\"num\">\(file.bytes)</td></tr>\n"
        }
        let total = report.logFiles.reduce(0) { $0 + $1.bytes }
        html +=
            "<tr><th>\(report.logFiles.count) " + (report.logFiles.count == 1 ? "file" : "files")
            + "</th><th class=\"num\">\(total)</th></tr>\n</table>\n"
        switch report.compaction {
        case .measured(let before, let after, let expired):
            let reclaimed = max(0, before - after)
            let share = before > 0 ? Int((Double(reclaimed) / Double(before) * 100).rounded()) : 0
            html +=
                "<p id=\"compaction\">Compaction would reclaim <b>\(reclaimed) bytes</b> (\(share)%): \(before) bytes "
                + "of log and snapshot become \(after), dropping \(expired) finished "
                + (expired == 1 ? "job" : "jobs") + " past the default retention of "
                + "\(HTMLText.escape(Formatting.duration(report.retention))). Measured by compacting a scratch copy; "
                + "the queue was not changed.</p>\n"
        case .unavailable(let reason):
            html +=
                "<p id=\"compaction\">What compaction would reclaim is unknown: the scratch copy did not compact "
                + "(\(HTMLText.escape(reason))).</p>\n"
        }
        return html + "</section>\n"
    }
}
