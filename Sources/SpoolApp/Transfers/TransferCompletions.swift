import Spool

/// Where a transfer session's delegate reports completions: handed to the session when it is made,
/// before the ``BackgroundTransfers`` that records them exists; what arrives before then waits for it.
public final class TransferCompletions: Sendable {
    private enum Report {
        case completed(TransferCompletion)
        case finishedEvents(String)
    }
    private struct State {
        var transfers: BackgroundTransfers?
        var waiting: [Report] = []
    }
    private let state = Locked(State())

    /// A receiver with no ``BackgroundTransfers`` yet: for an app's tests of a session it writes itself.
    public init() {}

    /// The session's delegate: a transfer ended (``BackgroundTransfers/transferDidComplete(_:)``).
    public func transferDidComplete(_ completion: TransferCompletion) { deliver(.completed(completion)) }

    /// The session's delegate: the session `identifier` reported all its events
    /// (``BackgroundTransfers/sessionDidFinishEvents(identifier:)``).
    public func sessionDidFinishEvents(identifier: String) { deliver(.finishedEvents(identifier)) }

    /// Sends what arrived so far, and all that follows, to `transfers`.
    func attach(_ transfers: BackgroundTransfers) {
        let waiting = state.withLock { state -> [Report] in
            state.transfers = transfers
            defer { state.waiting = [] }
            return state.waiting
        }
        for report in waiting { Self.send(report, to: transfers) }
    }

    private func deliver(_ report: Report) {
        let transfers = state.withLock { state -> BackgroundTransfers? in
            if state.transfers == nil { state.waiting.append(report) }
            return state.transfers
        }
        if let transfers { Self.send(report, to: transfers) }
    }

    private static func send(_ report: Report, to transfers: BackgroundTransfers) {
        switch report {
        case .completed(let completion): transfers.transferDidComplete(completion)
        case .finishedEvents(let identifier): transfers.sessionDidFinishEvents(identifier: identifier)
        }
    }
}
