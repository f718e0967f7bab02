import Foundation
import Spool

/// How jobs and leases are shown: JSON for scripts, lines for people.
enum JobPresentation {
    /// A job as a JSON object with the stable key order of the CLI contract:
    /// `id`, `kind`, `state`, `attempts`, `maxAttempts`, `priority`, `createdAt`,
    /// `runAt`, `nextRetryAt`, `uniqueKey`, `lastError`, `dueAt`, `finishedAt`,
    /// `leaseExpiresAt`, `constraints`, `blockedBy`, `periodic`, `occurrence`, `lastStopReason`, `tags`
    /// (sorted), `result` (UTF-8 text, `null` for none) or `resultBase64`, then `payload` (UTF-8 text) or
    /// `payloadBase64` (when the bytes are not valid UTF-8).
    static func json(_ job: Job, payload: Data) -> JSONValue {
        let payloadMember: (key: String, value: JSONValue)
        if let text = utf8Text(payload) {
            payloadMember = ("payload", .string(text))
        } else {
            payloadMember = ("payloadBase64", .string(payload.base64EncodedString()))
        }
        return .object([
            ("id", .string(job.id.rawValue)),
            ("kind", .string(job.kind)),
            ("state", .string(job.state.rawValue)),
            ("attempts", .integer(job.attempts)),
            ("maxAttempts", .integer(job.maxAttempts)),
            ("priority", .integer(job.priority)),
            ("createdAt", .string(ISO8601.string(from: job.createdAt))),
            ("runAt", .string(ISO8601.string(from: job.runAt))),
            ("nextRetryAt", .optional(job.nextRetryAt.map(ISO8601.string(from:)))),
            ("uniqueKey", .optional(job.uniqueKey)),
            ("lastError", .optional(job.lastError)),
            ("dueAt", .optional(job.dueAt.map(ISO8601.string(from:)))),
            ("finishedAt", .optional(job.finishedAt.map(ISO8601.string(from:)))),
            ("leaseExpiresAt", .optional(job.leaseExpiresAt.map(ISO8601.string(from:)))),
            ("constraints", json(job.constraints)),
            ("blockedBy", .array(job.blockingPrerequisites.map { .string($0.rawValue) })),
            ("periodic", job.periodic.map(json) ?? .null),
            ("occurrence", .integer(Int64(job.occurrence))),
            ("lastStopReason", .optional(job.lastStopReason.map(\.description))),
            ("tags", .array(job.tags.sorted().map { .string($0) })),
            resultMember(job.result),
            payloadMember,
        ])
    }

    /// A job a producer enqueued that awaits ingestion: the fields it has, `state` `awaitingIngestion`,
    /// and when its producer's call was acknowledged.
    static func json(_ job: AwaitingJob) -> JSONValue {
        .object([
            ("id", .string(job.id.rawValue)),
            ("kind", .string(job.kind)),
            ("state", .string("awaitingIngestion")),
            ("acknowledgedAt", .optional(job.acknowledgedAt.map(ISO8601.string(from:)))),
            ("inboxFile", .string(job.inboxFile)),
            // null: the job takes the owner's budget when it is ingested.
            ("maxAttempts", job.maxAttempts.map { JSONValue.integer($0) } ?? .null),
            ("priority", .integer(job.priority)),
            ("createdAt", .string(ISO8601.string(from: job.createdAt))),
            ("runAt", .string(ISO8601.string(from: job.runAt))),
            ("uniqueKey", .optional(job.uniqueKey)),
            ("constraints", json(job.constraints)),
            ("dependencies", .array(job.dependencies.map { .string($0.rawValue) })),
            ("tags", .array(job.tags.sorted().map { .string($0) })),
            utf8Text(job.payload).map { ("payload", JSONValue.string($0)) }
                ?? ("payloadBase64", .string(job.payload.base64EncodedString())),
        ])
    }

    /// A job awaiting ingestion, field by field for a person.
    static func details(_ job: AwaitingJob, now: Date) -> [String] {
        var rows: [(String, String)] = [
            ("id", job.id.rawValue.escapingControlCharacters),
            ("kind", job.kind.escapingControlCharacters),
            ("state", "awaiting ingestion (a producer's request the owner has not taken in yet)"),
            ("acknowledged", job.acknowledgedAt.map { Formatting.instant($0, relativeTo: now) } ?? "-"),
            ("inbox file", job.inboxFile),
            ("attempts", "0 of " + (job.maxAttempts.map(String.init) ?? "the owner's budget")),
            ("priority", String(job.priority)),
            ("created", Formatting.instant(job.createdAt, relativeTo: now)),
            ("run at", Formatting.instant(job.runAt, relativeTo: now)),
        ]
        if let key = job.uniqueKey {
            rows.append(("unique key", "\(key.escapingControlCharacters) (\(job.uniquePolicy))"))
        }
        if !job.dependencies.isEmpty {
            rows.append(("after", job.dependencies.map(\.rawValue.escapingControlCharacters).joined(separator: ", ")))
        }
        if !job.tags.isEmpty {
            rows.append(("tags", job.tags.sorted().joined(separator: ", ").escapingControlCharacters))
        }
        if let key = job.parkedKey, let deadline = job.parkDeadline {
            rows.append(
                (
                    "arrives parked",
                    "\(key.escapingControlCharacters) until \(Formatting.instant(deadline, relativeTo: now))"
                ))
        }
        rows.append(("payload", describeBytes(job.payload)))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }
    }

    /// A job's result as `result` (UTF-8 text, or `null` for none) or `resultBase64` (bytes that are not UTF-8).
    static func resultMember(_ result: Data?) -> (key: String, value: JSONValue) {
        guard let result else { return ("result", .null) }
        if let text = utf8Text(result) { return ("result", .string(text)) }
        return ("resultBase64", .string(result.base64EncodedString()))
    }

    /// Bytes for a person: their size, then the text (quoted) when they are UTF-8, base64 otherwise.
    static func describeBytes(_ bytes: Data) -> String {
        let size = "\(bytes.count) byte" + (bytes.count == 1 ? "" : "s")
        if bytes.isEmpty { return "empty" }
        if let text = utf8Text(bytes) { return "\(size): \(JSONValue.string(text).rendered)" }
        return "\(size), not UTF-8; base64: \(bytes.base64EncodedString())"
    }

    /// Constraints as an object of their flags and the app's conditions, sorted.
    static func json(_ constraints: JobConstraints) -> JSONValue {
        .object([
            ("requiresNetwork", .bool(constraints.requiresNetwork)),
            ("requiresUnmeteredNetwork", .bool(constraints.requiresUnmeteredNetwork)),
            ("requiresCharging", .bool(constraints.requiresCharging)),
            ("requiresDeviceIdle", .bool(constraints.requiresDeviceIdle)),
            ("requiresBatteryNotLow", .bool(constraints.requiresBatteryNotLow)),
            ("requiredConditions", .array(constraints.requiredConditions.sorted().map(JSONValue.string))),
        ])
    }

    /// A periodic schedule as `intervalSeconds` and `flexSeconds`.
    static func json(_ periodic: PeriodicSchedule) -> JSONValue {
        .object([
            ("intervalSeconds", .number(periodic.interval)),
            ("flexSeconds", .number(periodic.flex)),
        ])
    }

    /// The constraints in words for people, or `nil` when there are none.
    static func words(_ constraints: JobConstraints) -> String? {
        var needs: [String] = []
        if constraints.requiresUnmeteredNetwork {
            needs.append("unmetered network")
        } else if constraints.requiresNetwork {
            needs.append("network")
        }
        if constraints.requiresCharging { needs.append("charging") }
        if constraints.requiresDeviceIdle { needs.append("device idle") }
        if constraints.requiresBatteryNotLow { needs.append("battery not low") }
        needs += constraints.requiredConditions.sorted().map { "condition \($0.escapingControlCharacters)" }
        return needs.isEmpty ? nil : needs.joined(separator: ", ")
    }

    /// A job read back from `queue` with its payload, as JSON.
    static func json(_ job: Job, in queue: JobQueue) throws -> JSONValue {
        json(job, payload: try queue.payload(of: job.id))
    }

    /// A lease as the JSON object `claim` prints: `id`, `token`, `attempt`, `job`.
    static func json(_ lease: Lease) -> JSONValue {
        .object([
            ("id", .string(lease.job.id.rawValue)),
            ("token", .string(lease.token.description)),
            ("attempt", .integer(lease.attempt)),
            ("job", json(lease.job, payload: lease.payload)),
        ])
    }

    /// The bytes as text when they are valid UTF-8, otherwise `nil`.
    static func utf8Text(_ bytes: Data) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces invalid sequences, so a lossless round trip means the bytes were valid.
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// When a job may next run, or its lease state, for the `list` table.
    static func schedule(_ job: Job, now: Date) -> String {
        switch job.state {
        case .enqueued:
            let due = Formatting.relative(job.dueAt ?? job.runAt, to: now)
            return job.nextRetryAt != nil ? "retry \(due)" : due
        case .running:
            if let deadline = job.parkDeadline { return "parked until \(Formatting.relative(deadline, to: now))" }
            guard let expiry = job.leaseExpiresAt else { return "running" }
            return expiry > now ? "lease ends \(Formatting.relative(expiry, to: now))" : "lease expired"
        case .succeeded, .failed, .cancelled:
            return "-"
        }
    }

    /// One line saying where a job stands after a command changed it (control characters escaped).
    static func summary(_ job: Job, now: Date) -> String {
        line(job, now: now).escapingControlCharacters
    }

    private static func line(_ job: Job, now: Date) -> String {
        let attempts = "attempt \(job.attempts) of \(job.maxAttempts)"
        switch job.state {
        case .enqueued:
            if let retry = job.nextRetryAt {
                return
                    "\(job.id): enqueued after \(attempts), next retry at \(Formatting.instant(retry, relativeTo: now))"
            }
            return
                "\(job.id): enqueued (\(job.attempts) of \(job.maxAttempts) attempts used), due at \(Formatting.instant(job.dueAt ?? job.runAt, relativeTo: now))"
        case .running:
            return "\(job.id): running (\(attempts))"
        case .succeeded:
            return "\(job.id): succeeded on \(attempts)"
        case .failed:
            return "\(job.id): failed for good after \(attempts), no retry scheduled (spool retry to run it again)"
        case .cancelled:
            return "\(job.id): cancelled"
        }
    }

    /// Every field of a job, one per line, for `show`.
    static func details(_ job: Job, payload: Data, now: Date) -> [String] {
        var rows: [(String, String)] = [
            ("id", job.id.rawValue.escapingControlCharacters),
            ("kind", job.kind.escapingControlCharacters),
            ("state", job.state.rawValue + (job.isFailed ? " (permanently; spool retry to run it again)" : "")),
            ("attempts", "\(job.attempts) of \(job.maxAttempts)"),
            ("priority", String(job.priority)),
            ("created", Formatting.instant(job.createdAt, relativeTo: now)),
            ("run at", Formatting.instant(job.runAt, relativeTo: now)),
            ("next retry", job.nextRetryAt.map { Formatting.instant($0, relativeTo: now) } ?? "-"),
        ]
        if let expiry = job.leaseExpiresAt { rows.append(("lease ends", Formatting.instant(expiry, relativeTo: now))) }
        if let key = job.parkedKey {
            let until = job.parkDeadline.map { Formatting.instant($0, relativeTo: now) } ?? "-"
            rows.append(("parked", "key \(key.escapingControlCharacters), until \(until)"))
        }
        if let checkpoint = job.checkpoint {
            rows.append(("checkpoint", "\(checkpoint.count) byte" + (checkpoint.count == 1 ? "" : "s")))
        }
        if let finished = job.finishedAt { rows.append(("finished", Formatting.instant(finished, relativeTo: now))) }
        if let needs = words(job.constraints) { rows.append(("requires", needs)) }
        if !job.blockingPrerequisites.isEmpty {
            rows.append(
                (
                    "blocked by",
                    job.blockingPrerequisites.map(\.rawValue.escapingControlCharacters).joined(separator: ", ")
                ))
        }
        if let periodic = job.periodic {
            let flex = periodic.flex > 0 ? " (flex \(Formatting.duration(periodic.flex)))" : ""
            rows.append(
                ("repeats", "every \(Formatting.duration(periodic.interval))\(flex), occurrence \(job.occurrence)"))
        }
        rows.append(("unique key", job.uniqueKey?.escapingControlCharacters ?? "-"))
        rows.append(("last error", job.lastError ?? "-"))
        rows.append(("last stop", job.lastStopReason?.description ?? "-"))
        if !job.tags.isEmpty {
            rows.append(("tags", job.tags.sorted().map(\.escapingControlCharacters).joined(separator: ", ")))
        }
        if let result = job.result { rows.append(("result", describeBytes(result))) }
        for (prerequisite, result) in job.prerequisiteResults.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            rows.append(("result of \(prerequisite.rawValue.escapingControlCharacters)", describeBytes(result)))
        }
        let size = "\(payload.count) byte" + (payload.count == 1 ? "" : "s")
        if payload.isEmpty {
            rows.append(("payload", "empty"))
        } else if let text = utf8Text(payload) {
            rows.append(("payload", "\(size): \(JSONValue.string(text).rendered)"))
        } else {
            rows.append(("payload", "\(size), not UTF-8; base64: \(payload.base64EncodedString())"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        let indent = String(repeating: " ", count: width + 2)
        return rows.map { label, value in
            // Later lines of a multi-line value (an error with a stack trace) stay in the value column;
            // other control characters are escaped.
            label + String(repeating: " ", count: width - label.count) + "  "
                + value.split(separator: "\n", omittingEmptySubsequences: false)
                .map { String($0).escapingControlCharacters }.joined(separator: "\n" + indent)
        }
    }
}
