import Foundation
import Spool

/// One job's life as the log recorded it: when it was enqueued, each attempt from its claim to
/// its outcome, and the other changes (cancel, retry, reschedule, next occurrence).
struct JobTimeline {
    /// How an attempt ended.
    enum Outcome {
        case succeeded
        /// A retryable failure: the job is due again at `retryAt`.
        case retried(error: String, retryAt: Date)
        /// The attempt failed and the job waits for a person.
        case failed(error: String)
        /// The lease expired (or the process ended) and open or a claim took the job back.
        case reclaimed(reason: String, retryAt: Date?)
        /// The job was cancelled while running.
        case cancelled
        /// Still running, under a lease until `leaseExpiresAt`.
        case running(leaseExpiresAt: Date)
    }

    /// One attempt, from its claim.
    struct Attempt {
        var number: Int
        var start: Date
        var end: Date
        var outcome: Outcome
    }

    /// A change outside an attempt.
    struct Mark {
        var at: Date
        var label: String
    }

    var enqueuedAt: Date?
    var attempts: [Attempt] = []
    var marks: [Mark] = []

    /// The earliest and latest instants the timeline shows.
    var span: (start: Date, end: Date)? {
        let instants =
            [enqueuedAt].compactMap { $0 } + attempts.flatMap { [$0.start, $0.end] } + marks.map(\.at)
            + attempts.compactMap { if case .retried(_, let at) = $0.outcome { return at } else { return nil } }
        guard let first = instants.min(), let last = instants.max() else { return nil }
        return (first, last)
    }

    /// Every job's timeline, from the records in log order; `now` ends the attempts still running.
    static func build(from records: [LogRecordSummary], now: Date) -> [JobID: JobTimeline] {
        var timelines: [JobID: JobTimeline] = [:]
        for record in records {
            for operation in record.operations {
                var timeline = timelines[operation.jobID] ?? JobTimeline()
                timeline.apply(operation, now: now)
                timelines[operation.jobID] = timeline
            }
        }
        return timelines
    }

    private mutating func apply(_ operation: LogOperationSummary, now: Date) {
        func date(_ name: String) -> Date? {
            guard case .integer(let millis)? = operation.fields.first(where: { $0.name == name })?.value else {
                return nil
            }
            return Date(timeIntervalSince1970: Double(millis) / 1000)
        }
        func text(_ name: String) -> String? {
            guard case .string(let value)? = operation.fields.first(where: { $0.name == name })?.value else {
                return nil
            }
            return value
        }
        /// Ends the open attempt, if there is one.
        func settle(_ outcome: Outcome, at instant: Date) {
            guard let last = attempts.indices.last, case .running = attempts[last].outcome else { return }
            attempts[last].end = instant
            attempts[last].outcome = outcome
        }
        switch operation.name {
        case "enqueue":
            enqueuedAt = date("createdAtMs")
        case "claim":
            guard let start = date("claimedAtMs"), let expiry = date("expiresAtMs") else { return }
            attempts.append(
                Attempt(
                    number: attempts.count + 1, start: start, end: max(start, now),
                    outcome: .running(leaseExpiresAt: expiry)))
        case "renewLease":
            if let last = attempts.indices.last, case .running = attempts[last].outcome,
                let expiry = date("expiresAtMs")
            {
                attempts[last].outcome = .running(leaseExpiresAt: expiry)
            }
        case "complete":
            if let at = date("atMs") { settle(.succeeded, at: at) }
        case "fail":
            guard let at = date("atMs") else { return }
            let error = text("error") ?? ""
            settle(date("nextRetryAtMs").map { .retried(error: error, retryAt: $0) } ?? .failed(error: error), at: at)
        case "reclaim":
            guard let at = date("atMs") else { return }
            settle(.reclaimed(reason: text("reason") ?? "", retryAt: date("nextRetryAtMs")), at: at)
        case "cancel", "abandon":
            guard let at = date("atMs") else { return }
            settle(.cancelled, at: at)
            marks.append(Mark(at: at, label: operation.name == "cancel" ? "cancelled" : "abandoned"))
        case "retry":
            if let at = date("atMs") { marks.append(Mark(at: at, label: "retried by a person")) }
        case "reschedule":
            if let at = date("atMs") { marks.append(Mark(at: at, label: "rescheduled")) }
        case "nextOccurrence":
            if let at = date("atMs") { marks.append(Mark(at: at, label: "next occurrence")) }
        default:
            break
        }
    }
}
