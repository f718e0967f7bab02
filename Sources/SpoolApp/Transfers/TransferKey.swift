import Spool

/// The key of one transfer of a job: what its job is parked under and what its task's description carries
/// (task identifiers start again in every new session).
///
/// Its text is `transfer:<session>:<job id>:<started>.<nonce>`: the session's identifier and the job's id
/// with `%`, `:` and line breaks percent-encoded, the start's time in milliseconds since 1970 by the
/// queue's clock, and a random 32-bit nonce in hexadecimal. No two transfers of a job share a key, whatever
/// its attempt count says (a person's retry starts the count again): a late or repeated report of an earlier
/// transfer never ends a later one. The session names which session's tasks it belongs to, so that a share
/// extension's session is reconciled with its own tasks only; the start's time tells reconciliation how
/// young a park is (``BackgroundTransfers/reconciliationGrace``).
public struct TransferKey: Sendable, Hashable, CustomStringConvertible {
    /// The background session the transfer runs in.
    public var session: String
    /// The job the transfer is for.
    public var job: JobID
    /// When the transfer was started (its job parked), to the millisecond.
    public var startedAt: Date
    /// A random number that tells apart two transfers of the job started in the same millisecond.
    public var nonce: UInt32

    /// A key of a transfer of `job` in `session`, started at `startedAt`, with `nonce` (random by default).
    public init(session: String, job: JobID, startedAt: Date, nonce: UInt32 = .random(in: .min ... .max)) {
        self.session = session
        self.job = job
        self.startedAt = Date(timeIntervalSince1970: (startedAt.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        self.nonce = nonce
    }

    /// The key in `text`, or `nil` when `text` is not one (a key another library wrote, or one of a build
    /// before nonces, `transfer:<session>:<job id>:<attempt>`).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "transfer", let session = Self.decoded(parts[1]),
            let id = Self.decoded(parts[2])
        else { return nil }
        let stamp = parts[3].split(separator: ".", omittingEmptySubsequences: false)
        guard stamp.count == 2, let millis = Int64(stamp[0]), millis >= 0, stamp[1].count == 8,
            let nonce = UInt32(stamp[1], radix: 16)
        else { return nil }
        self.session = session
        self.job = JobID(id)
        self.startedAt = Date(timeIntervalSince1970: Double(millis) / 1000)
        self.nonce = nonce
    }

    /// The key's text.
    public var description: String {
        let millis = Int64((startedAt.timeIntervalSince1970 * 1000).rounded(.down))
        let hex = String(nonce, radix: 16)
        return "transfer:\(Self.encoded(session)):\(Self.encoded(job.rawValue)):\(millis)."
            + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// The prefix of every key of the session `identifier`.
    static func prefix(session identifier: String) -> String { "transfer:\(encoded(identifier)):" }

    /// `text` with `%`, `:`, line feed and carriage return percent-encoded.
    static func encoded(_ text: String) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case ":": result += "%3A"
            case "\n": result += "%0A"
            case "\r": result += "%0D"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// `text` with the escapes of ``encoded(_:)`` undone; `nil` for any other use of `%`.
    static func decoded(_ text: Substring) -> String? {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index] == "%" else {
                result.append(text[index])
                index = text.index(after: index)
                continue
            }
            let end = text.index(index, offsetBy: 3, limitedBy: text.endIndex) ?? text.endIndex
            switch text[index..<end] {
            case "%25": result += "%"
            case "%3A": result += ":"
            case "%0A": result += "\n"
            case "%0D": result += "\r"
            default: return nil
            }
            index = end
        }
        return result
    }
}
