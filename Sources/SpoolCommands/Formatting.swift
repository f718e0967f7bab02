import Foundation
import Spool

/// Text for people: durations, relative times, aligned tables.
enum Formatting {
    /// A duration in whole seconds as its two largest units: `0s`, `45s`, `2m 15s`, `3h 4m`, `2d 3h`.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int64(min(abs(seconds), 1e15).rounded())
        func pair(_ big: Int64, _ bigName: String, _ small: Int64, _ smallName: String) -> String {
            small == 0 ? "\(big)\(bigName)" : "\(big)\(bigName) \(small)\(smallName)"
        }
        switch total {
        case ..<60: return "\(total)s"
        case ..<3600: return pair(total / 60, "m", total % 60, "s")
        case ..<86_400: return pair(total / 3600, "h", total % 3600 / 60, "m")
        default: return pair(total / 86_400, "d", total % 86_400 / 3600, "h")
        }
    }

    /// `date` relative to `now`: `in 5s`, `3m 20s ago`, or `now` within half a second.
    static func relative(_ date: Date, to now: Date) -> String {
        let delta = date.timeIntervalSince(now)
        if abs(delta) < 0.5 { return "now" }
        return delta > 0 ? "in \(duration(delta))" : "\(duration(delta)) ago"
    }

    /// `date` in ISO 8601 followed by how far it is from `now`.
    static func instant(_ date: Date, relativeTo now: Date) -> String {
        "\(ISO8601.string(from: date)) (\(relative(date, to: now)))"
    }

    /// The first line of `text`, control characters as spaces, cut to `limit`
    /// characters; an ellipsis marks anything left out.
    static func brief(_ text: String, limit: Int) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = String(
            (lines.first ?? "").map { ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) ? " " : $0 })
        if first.count > limit { return String(first.prefix(limit - 1)) + "…" }
        return lines.count > 1 ? first + " …" : first
    }

    /// Rows aligned in columns two spaces apart, the header first; the last column is not padded.
    static func table(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        var widths = Array(repeating: 0, count: header.count)
        for row in all {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
    }

    /// "3 jobs: 1 enqueued, 2 failed", states in their life order.
    static func countsLine(_ jobs: [Job]) -> String {
        let noun = jobs.count == 1 ? "job" : "jobs"
        let parts = JobState.allCases.compactMap { state -> String? in
            let count = jobs.filter { $0.state == state }.count
            return count == 0 ? nil : "\(count) \(state.rawValue)"
        }
        return parts.isEmpty ? "\(jobs.count) \(noun)" : "\(jobs.count) \(noun): " + parts.joined(separator: ", ")
    }
}

extension String {
    /// The string for a line of text meant for people: each control character (below U+0020,
    /// U+007F to U+009F, U+2028, U+2029) escaped as JSON escapes it (`\n`, `\t`, `\u001b`), so that
    /// an id, kind or message can neither split the line nor send the terminal a command.
    /// Everything else, backslashes included, is unchanged; `--json` output gives the exact text.
    var escapingControlCharacters: String {
        func escape(_ scalar: Unicode.Scalar) -> String? {
            if let json = JSONValue.controlEscape(scalar) { return json }
            guard (0x7F...0x9F).contains(scalar.value) else { return nil }
            return "\\u00" + String(scalar.value, radix: 16)
        }
        guard unicodeScalars.contains(where: { escape($0) != nil }) else { return self }
        var text = ""
        for scalar in unicodeScalars {
            if let escaped = escape(scalar) { text += escaped } else { text.unicodeScalars.append(scalar) }
        }
        return text
    }

    /// The string without spaces at its end.
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
