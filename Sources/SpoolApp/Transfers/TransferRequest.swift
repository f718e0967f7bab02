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

    /// Which networks the transfer may use: the request's own switches (`URLRequest`'s
    /// `allowsCellularAccess`, `allowsExpensiveNetworkAccess`, `allowsConstrainedNetworkAccess`). A job's
    /// constraints narrow them when the transfer starts: `JobConstraints.requiresUnmeteredNetwork` turns
    /// cellular and expensive networks off.
    public struct NetworkAccess: Sendable, Equatable {
        /// Whether the transfer may go over a cellular network.
        public var cellular: Bool
        /// Whether it may use a network the system considers expensive (cellular, a personal hotspot).
        public var expensive: Bool
        /// Whether it may use a network in Low Data Mode.
        public var constrained: Bool

        /// Access as given; everything allowed by default.
        public init(cellular: Bool = true, expensive: Bool = true, constrained: Bool = true) {
            self.cellular = cellular
            self.expensive = expensive
            self.constrained = constrained
        }

        /// Any network.
        public static let any = NetworkAccess()
        /// No cellular, expensive or constrained network.
        public static let unmetered = NetworkAccess(cellular: false, expensive: false, constrained: false)

        /// This access narrowed by a job's `constraints`: an unmetered network turns cellular and expensive
        /// networks off.
        public func narrowed(by constraints: JobConstraints) -> NetworkAccess {
            guard constraints.requiresUnmeteredNetwork else { return self }
            return NetworkAccess(cellular: false, expensive: false, constrained: constrained)
        }
    }

    /// The URL of the request.
    public var url: URL
    /// The HTTP method ("PUT", "POST", "GET").
    public var method: String
    /// The request's header fields.
    public var headers: [String: String]
    /// Upload or download.
    public var direction: Direction
    /// The networks it may use.
    public var network: NetworkAccess

    /// A transfer of `direction` to or from `url`, over the networks `network` allows.
    public init(
        url: URL, method: String, headers: [String: String] = [:], direction: Direction, network: NetworkAccess = .any
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.direction = direction
        self.network = network
    }

    /// An upload of `file` with `method` (a `PUT` by default).
    public static func upload(
        _ file: URL, to url: URL, method: String = "PUT", headers: [String: String] = [:],
        network: NetworkAccess = .any
    ) -> TransferRequest {
        TransferRequest(url: url, method: method, headers: headers, direction: .upload(file: file), network: network)
    }

    /// A download of `url` into `destination`.
    public static func download(
        _ url: URL, to destination: URL, headers: [String: String] = [:], network: NetworkAccess = .any
    ) -> TransferRequest {
        TransferRequest(
            url: url, method: "GET", headers: headers, direction: .download(destination: destination),
            network: network)
    }
}
