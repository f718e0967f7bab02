import Spool

/// How a transfer ended, as the session's delegate reports it: the server's answer with it.
public struct TransferCompletion: Sendable, Equatable, Codable {
    /// The most bytes of an upload's response body a completion carries (``body``): as much as a job's
    /// result may hold (`JobLimits.maxResultBytes`). A longer body is cut there, and ``isBodyCut`` says so.
    public static let maxBodyBytes = JobLimits.maxResultBytes

    /// The transfer's key (its task's description): the key its job is parked under.
    public var key: String
    /// The HTTP status of the response, or `nil` when there was none.
    public var statusCode: Int?
    /// The transport error (no connection, cancelled, a download that could not be moved), or `nil`.
    public var error: String?
    /// The response's header fields, as the server sent them (empty without a response).
    public var headers: [String: String]
    /// An upload's response body, up to ``maxBodyBytes``; `nil` for a download or without a body.
    public var body: Data?
    /// Whether the body was longer than ``maxBodyBytes`` and cut.
    public var isBodyCut: Bool
    /// Where a download's body was moved (the request's destination); `nil` for an upload or a failure.
    public var file: URL?

    /// A completion, as the session's delegate reports it: for an app's tests of its ``TransferRules``.
    public init(
        key: String, statusCode: Int?, error: String?, headers: [String: String] = [:], body: Data? = nil,
        isBodyCut: Bool = false, file: URL? = nil
    ) {
        self.key = key
        self.statusCode = statusCode
        self.error = error
        self.headers = headers
        self.body = body
        self.isBodyCut = isBodyCut
        self.file = file
    }

    private enum CodingKeys: String, CodingKey {
        case key, statusCode, error, headers, body, isBodyCut, file
    }

    /// Decodes a completion; the fields a build before the server's answer did not write are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        statusCode = try container.decodeIfPresent(Int.self, forKey: .statusCode)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        body = try container.decodeIfPresent(Data.self, forKey: .body)
        isBodyCut = try container.decodeIfPresent(Bool.self, forKey: .isBodyCut) ?? false
        file = try container.decodeIfPresent(URL.self, forKey: .file)
    }

    /// The value of the header field `name`, compared without regard to case (as HTTP's field names are).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.key.lowercased() == wanted }?.value
    }

    /// How long the server asked to wait before the next request (`Retry-After`): its seconds, or its
    /// date less the response's `Date`; `nil` without the field or with a value neither form reads.
    public var retryAfter: TimeInterval? {
        guard let value = header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        guard let until = HTTPDate.parse(value), let sent = header("Date").flatMap(HTTPDate.parse) else { return nil }
        return max(0, until.timeIntervalSince(sent))
    }
}

/// What a transfer's completion means for its job.
public enum TransferOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The job succeeds (`JobQueue/completeParked(key:)`).
    case success
    /// The job succeeds with this result (`JobQueue/completeParked(key:result:)`): the server's answer,
    /// such as the new photo's id, for the app and the jobs waiting for this one.
    case result(Data)
    /// The attempt failed: the job is retried by its retry policy (`JobQueue/failParked(key:error:terminal:)`).
    case retry(String)
    /// The attempt failed and the server said when to come back: the next attempt comes after this many
    /// seconds instead of the retry policy's delay (`JobQueue/failParked(key:error:retryAt:)`).
    case retryAfter(String, seconds: TimeInterval)
    /// The job fails for good, without a retry.
    case fail(String)

    /// Whether the job succeeds.
    public var isSuccess: Bool {
        switch self {
        case .success, .result: return true
        case .retry, .retryAfter, .fail: return false
        }
    }

    /// One line for a log.
    public var description: String {
        switch self {
        case .success: return "success"
        case .result(let data): return "success with a result of \(data.count) bytes"
        case .retry(let error): return "retry (\(error))"
        case .retryAfter(let error, let seconds): return "retry in \(seconds) s (\(error))"
        case .fail(let error): return "failed for good (\(error))"
        }
    }
}

/// The app's rule from a transfer's completion to its job's outcome.
public struct TransferRules: Sendable {
    /// The outcome of a completion.
    public var outcome: @Sendable (TransferCompletion) -> TransferOutcome

    /// A rule of the app's own.
    public init(outcome: @escaping @Sendable (TransferCompletion) -> TransferOutcome) {
        self.outcome = outcome
    }

    /// A transport error, a 408, a 429 and a 5xx are retried (a 429 or 503 with `Retry-After` after the time
    /// the server asked for); any other status outside 200–299 fails the job for good (the request itself
    /// is wrong: retrying cannot help); 2xx succeeds, with the response's body as the job's result when an
    /// upload's response has one (not cut).
    public static let standard = TransferRules { completion in
        if let error = completion.error { return .retry(error) }
        guard let status = completion.statusCode else { return .retry("no response") }
        switch status {
        case 200...299:
            if let body = completion.body, !body.isEmpty, !completion.isBodyCut { return .result(body) }
            return .success
        case 429, 503:
            if let delay = completion.retryAfter { return .retryAfter("HTTP \(status)", seconds: delay) }
            return .retry("HTTP \(status)")
        case 408, 500...599: return .retry("HTTP \(status)")
        default: return .fail("HTTP \(status)")
        }
    }
}

/// HTTP's dates (RFC 9110 section 5.6.7): the preferred `Sun, 06 Nov 1994 08:49:37 GMT`, which servers send.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date in `text`, or `nil` when it is not an IMF-fixdate.
    static func parse(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int(fields[1]), let month = months.firstIndex(of: String(fields[2])),
            let year = Int(fields[3]), (1..<10000).contains(year)
        else { return nil }
        let time = fields[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), (0..<24).contains(time[0]), (0..<60).contains(time[1]),
            (0...60).contains(time[2])
        else { return nil }
        let days = daysSince1970(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2]))
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
