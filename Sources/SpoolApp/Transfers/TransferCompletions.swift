import Spool

/// Where a transfer session's delegate reports completions and progress: handed to the session when it is
/// made, before the ``BackgroundTransfers`` that records them exists; what arrives before then waits for it
/// (progress only the latest of each transfer).
///
/// In a share extension, which never owns the queue, ``init(recordingThrough:log:)`` makes one that hands
/// each completion to the app as a job of its own (``BackgroundTransfers/outcomeKind``), enqueued through
/// the extension's producer after the parked job it ends: the app's runner records the outcome.
public final class TransferCompletions: Sendable {
    private enum Report {
        case completed(TransferCompletion)
        case progressed(key: String, bytes: Int64, expected: Int64?)
        case finishedEvents(String)
    }
    private struct State {
        /// Weak: the sessions hold this receiver, and the transfers hold the sessions.
        weak var transfers: BackgroundTransfers?
        var waiting: [Report] = []
    }
    private let state = Locked(State())
    /// A share extension's producer, which completions are enqueued through; `nil` in the app.
    private let producer: QueueProducer?
    /// Where a share extension's receiver says that an outcome could not be enqueued.
    private let log: (any EventSink)?

    /// A receiver with no ``BackgroundTransfers`` yet: for an app's tests of a session it writes itself.
    public init() {
        producer = nil
        log = nil
    }

    /// A share extension's receiver: each completion is enqueued through `producer` as a job of kind
    /// ``BackgroundTransfers/outcomeKind``, which the app's ``BackgroundWork`` runs by recording the outcome
    /// for the parked job (a producer cannot end a parked job itself). Enqueued after the parked job, it is
    /// ingested after it (producers' calls are applied in the order they were acknowledged). A completion the
    /// producer could not enqueue (a full disk, a closed producer) is logged to `log` as
    /// ``BackgroundWorkEvent/transferRecordFailed(key:error:)``: the park's deadline then brings the job back
    /// to the app. Progress is not carried (the app sees it once it handles the session's events).
    public init(recordingThrough producer: QueueProducer, log: (any EventSink)? = nil) {
        self.producer = producer
        self.log = log
    }

    /// The session's delegate: a transfer ended (``BackgroundTransfers/transferDidComplete(_:)``).
    public func transferDidComplete(_ completion: TransferCompletion) {
        guard let producer else { return deliver(.completed(completion)) }
        do {
            // Durable before the delegate's call returns: the extension may end right after it.
            try producer.enqueue(
                NewJob(kind: BackgroundTransfers.outcomeKind, payload: BackgroundTransfers.encode(completion)))
        } catch {
            log?.log(.transferRecordFailed(key: completion.key, error: "enqueueing the outcome: \(error)"))
        }
    }

    /// The session's delegate: the transfer `key` moved `bytes` of the `expected` total (`nil` when unknown)
    /// (``BackgroundTransfers/transferMadeProgress(key:bytes:expected:)``).
    public func transferMadeProgress(key: String, bytes: Int64, expected: Int64?) {
        guard producer == nil else { return }
        deliver(.progressed(key: key, bytes: bytes, expected: expected))
    }

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
            if state.transfers == nil {
                if case .progressed(let key, _, _) = report {
                    state.waiting.removeAll { if case .progressed(key, _, _) = $0 { true } else { false } }
                }
                state.waiting.append(report)
            }
            return state.transfers
        }
        if let transfers { Self.send(report, to: transfers) }
    }

    private static func send(_ report: Report, to transfers: BackgroundTransfers) {
        switch report {
        case .completed(let completion): transfers.transferDidComplete(completion)
        case .progressed(let key, let bytes, let expected):
            transfers.transferMadeProgress(key: key, bytes: bytes, expected: expected)
        case .finishedEvents(let identifier): transfers.sessionDidFinishEvents(identifier: identifier)
        }
    }
}
