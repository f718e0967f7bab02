import Spool

/// A transfer the system carries out for a job, outside the app's process: an upload of a file, or a
/// download into a file.
public struct TransferRequest: Sendable, Equatable {
    /// What moves, and where.
    public enum Direction: Sendable, Equatable {
        /// Uploads the file at this URL as the request's body.
        case upload(file: URL)
        /// Downloads the response's body, then moves it to this URL (replacing a file there).
        case download(destination: URL)
    }

    /// The URL of the request.
    public var url: URL
    /// The HTTP method ("PUT", "POST", "GET").
    public var method: String
    /// The request's header fields.
    public var headers: [String: String]
    /// Upload or download.
    public var direction: Direction

    /// A transfer of `direction` to or from `url`.
    public init(url: URL, method: String, headers: [String: String] = [:], direction: Direction) {
        self.url = url
        self.method = method
        self.headers = headers
        self.direction = direction
    }

    /// An upload of `file` with `method` (a `PUT` by default).
    public static func upload(_ file: URL, to url: URL, method: String = "PUT", headers: [String: String] = [:])
        -> TransferRequest
    {
        TransferRequest(url: url, method: method, headers: headers, direction: .upload(file: file))
    }

    /// A download of `url` into `destination`.
    public static func download(_ url: URL, to destination: URL, headers: [String: String] = [:]) -> TransferRequest {
        TransferRequest(url: url, method: "GET", headers: headers, direction: .download(destination: destination))
    }
}

/// How a transfer ended, as the session's delegate reports it.
public struct TransferCompletion: Sendable, Equatable, Codable {
    /// The transfer's key (its task's description): the key its job is parked under.
    public var key: String
    /// The HTTP status of the response, or `nil` when there was none.
    public var statusCode: Int?
    /// The transport error (no connection, cancelled, a download that could not be moved), or `nil`.
    public var error: String?

    /// A completion, as the session's delegate reports it: for an app's tests of its ``TransferRules``.
    public init(key: String, statusCode: Int?, error: String?) {
        self.key = key
        self.statusCode = statusCode
        self.error = error
    }
}

/// What a transfer's completion means for its job.
public enum TransferOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The job succeeds (`JobQueue/completeParked(key:)`).
    case success
    /// The attempt failed: the job is retried by its retry policy (`JobQueue/failParked(key:error:terminal:)`).
    case retry(String)
    /// The job fails for good, without a retry.
    case fail(String)

    /// One line for a log.
    public var description: String {
        switch self {
        case .success: return "success"
        case .retry(let error): return "retry (\(error))"
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

    /// A transport error, a 408, a 429 and a 5xx are retried; any other status outside 200–299 fails
    /// the job for good (the request itself is wrong: retrying cannot help); 2xx succeeds.
    public static let standard = TransferRules { completion in
        if let error = completion.error { return .retry(error) }
        guard let status = completion.statusCode else { return .retry("no response") }
        switch status {
        case 200...299: return .success
        case 408, 429, 500...599: return .retry("HTTP \(status)")
        default: return .fail("HTTP \(status)")
        }
    }
}

/// The system's transfer service for one session (on Apple platforms a background `URLSession`),
/// as the product uses it. Tests give a fake.
public protocol TransferSession: Sendable {
    /// The session's identifier (a background session's), part of each of its transfers' keys.
    var identifier: String { get }
    /// Starts `request`, its task described by `key` (``TransferCompletion/key`` reports it back).
    func start(_ request: TransferRequest, key: String) throws
    /// The keys of the session's transfers whose completion has not been reported yet (running,
    /// waiting, or finished while the app was not running and to be reported).
    func pendingKeys() async -> Set<String>
    /// Lets the session go once its transfers are handed over (the system carries them on): on Apple
    /// platforms `finishTasksAndInvalidate()`, which releases its delegate.
    func finish()
}

extension TransferSession {
    /// Nothing to let go.
    public func finish() {}
}
