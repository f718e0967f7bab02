import Spool

/// A request for a background launch, as the product submits it to the platform's scheduler (on
/// Apple platforms a `BGAppRefreshTaskRequest` or a `BGProcessingTaskRequest`).
public struct LaunchRequest: Sendable, Equatable {
    /// The task identifier the request is submitted under (one of the app's registered identifiers).
    public var identifier: String
    /// A refresh request or a processing request.
    public var kind: SchedulingRequestKind
    /// The earliest moment the system may launch the app for it.
    public var earliestBeginDate: Date
    /// The launch needs a network connection (processing requests only).
    public var requiresNetworkConnectivity: Bool
    /// The launch needs external power (processing requests only).
    public var requiresExternalPower: Bool

    /// A request, as the product would submit it: for an app's tests of a scheduler it writes itself.
    public init(
        identifier: String, kind: SchedulingRequestKind, earliestBeginDate: Date,
        requiresNetworkConnectivity: Bool = false, requiresExternalPower: Bool = false
    ) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBeginDate = earliestBeginDate
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
        self.requiresExternalPower = requiresExternalPower
    }

    /// Whether a pending `self` already asks what `other` asks at `now`: the same kind and needs, and the
    /// same earliest moment, or both moments past (a request due now is not resubmitted as time passes).
    func covers(_ other: LaunchRequest, at now: Date) -> Bool {
        kind == other.kind && requiresNetworkConnectivity == other.requiresNetworkConnectivity
            && requiresExternalPower == other.requiresExternalPower
            && (earliestBeginDate == other.earliestBeginDate
                || (earliestBeginDate <= now && other.earliestBeginDate <= now))
    }
}

/// The platform's background-task scheduler (on Apple platforms `BGTaskScheduler.shared`, through
/// `AppleTaskScheduler/shared`), as the product uses it: registering the launch handlers, submitting and
/// cancelling requests. Tests give a fake.
///
/// A class: a scheduler is the process's, and its identifiers are registered once
/// (``BackgroundWork/init(options:system:)`` refuses a second set-up over the same scheduler, as iOS kills
/// an app that registers an identifier twice).
public protocol BackgroundTaskScheduling: AnyObject, Sendable {
    /// The identifiers the app may register (on Apple platforms its `Info.plist`'s
    /// `BGTaskSchedulerPermittedIdentifiers`; an entry ending in `.*` permits every identifier it
    /// prefixes), or `nil` when unknown. Checked before any identifier is registered.
    var permittedIdentifiers: [String]? { get }
    /// Registers `handler` for launches under `identifier`; `false` when the platform refuses (an
    /// identifier missing from the app's permitted identifiers, or a registration after launch).
    func register(identifier: String, handler: @escaping @Sendable (any LaunchedTask) -> Void) -> Bool
    /// Submits `request`, replacing a pending request with its identifier.
    func submit(_ request: LaunchRequest) throws
    /// Cancels the pending request with `identifier`, if any.
    func cancel(identifier: String)
}

extension BackgroundTaskScheduling {
    /// Unknown: no identifier is refused before registering.
    public var permittedIdentifiers: [String]? { nil }
}

/// A background launch in progress (on Apple platforms a `BGTask`): the app must complete it once, and
/// stop its work when the system says its time is up.
public protocol LaunchedTask: AnyObject, Sendable {
    /// The identifier the launch was requested under.
    var identifier: String { get }
    /// Sets what runs when the system is about to end the launch's time.
    func setExpirationHandler(_ handler: (@Sendable () -> Void)?)
    /// Tells the system the launch's work is done.
    func setTaskCompleted(success: Bool)
}

/// The task identifiers an app registers with the platform's scheduler, as its `Info.plist` lists them
/// (`BGTaskSchedulerPermittedIdentifiers`).
public struct LaunchIdentifiers: Sendable, Equatable {
    /// The identifier of the refresh request, or `nil` for none.
    public var refresh: String?
    /// The identifiers of processing requests, 1 to 10 of them: as many requests can be pending at once.
    public var processing: [String]

    /// The app's identifiers: `processing` holds at least one and at most 10
    /// (`SchedulingLimits/iOS`), all of them distinct from one another and from `refresh`.
    public init(refresh: String?, processing: [String]) {
        self.refresh = refresh
        self.processing = processing
    }

    /// Every identifier.
    var all: [String] { (refresh.map { [$0] } ?? []) + processing }

    /// The limits the hints are cut to: one request per identifier.
    var limits: SchedulingLimits {
        SchedulingLimits(refreshRequests: refresh == nil ? 0 : 1, processingRequests: processing.count)
    }

    /// Throws `SpoolError/Code/invalidArgument` unless the identifiers are as ``init(refresh:processing:)``
    /// says and each is in `permitted` (when known).
    func validate(permitted: [String]?) throws {
        let limit = SchedulingLimits.iOS.processingRequests
        guard (1...limit).contains(processing.count) else {
            throw SpoolError(
                .invalidArgument, "an app needs 1 to \(limit) processing identifiers, not \(processing.count)")
        }
        guard Set(all).count == all.count, !all.contains(where: \.isEmpty) else {
            throw SpoolError(.invalidArgument, "the task identifiers must be distinct and not empty: \(all)")
        }
        if let permitted {
            let missing = all.filter { !Self.permits(permitted, $0) }
            guard missing.isEmpty else {
                throw SpoolError(
                    .invalidArgument,
                    "not in BGTaskSchedulerPermittedIdentifiers, so not registered (nor any other): \(missing)")
            }
        }
    }

    /// Whether `permitted` lists `identifier`, itself or under an entry ending in `.*`.
    static func permits(_ permitted: [String], _ identifier: String) -> Bool {
        permitted.contains { entry in
            entry == identifier || (entry.hasSuffix(".*") && identifier.hasPrefix(entry.dropLast()))
        }
    }

    /// The requests `hints` ask for (cut to ``limits`` already): the refresh hint under ``refresh``, the
    /// processing hints under ``processing`` in order of their earliest moments.
    func requests(for hints: [SchedulingHint]) -> [LaunchRequest] {
        var requests: [LaunchRequest] = []
        if let refresh, let hint = hints.first(where: { $0.request == .refresh }) {
            requests.append(
                LaunchRequest(identifier: refresh, kind: .refresh, earliestBeginDate: hint.earliestBeginDate))
        }
        let processingHints = hints.filter { $0.request == .processing }.sorted {
            $0.earliestBeginDate < $1.earliestBeginDate
        }
        for (identifier, hint) in zip(processing, processingHints) {
            requests.append(
                LaunchRequest(
                    identifier: identifier, kind: .processing, earliestBeginDate: hint.earliestBeginDate,
                    requiresNetworkConnectivity: hint.requiresNetworkConnectivity,
                    requiresExternalPower: hint.requiresExternalPower))
        }
        return requests
    }
}
