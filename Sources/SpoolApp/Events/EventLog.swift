import Spool

/// Where the product's events go besides the app's streams: on Apple platforms an `os.Logger`
/// (`OSLogEventSink`). Tests give a fake.
public protocol EventSink: Sendable {
    /// Logs `event`.
    func log(_ event: BackgroundWorkEvent)
}

/// How much of the product's events reach the ``EventSink``.
public enum EventLogging: Sendable, Equatable {
    /// Failures only (the default: quiet).
    case failures
    /// Every event.
    case all
}

/// The product's events: each one goes to the sink (as ``EventLogging`` allows) and to every stream an
/// app made with ``BackgroundWork/events()``, each bounded: a stream that is not read keeps only its
/// newest events.
final class EventLog: Sendable {
    private let sink: (any EventSink)?
    private let logging: EventLogging
    private let bufferLimit: Int
    private let streams = Locked<[UInt64: AsyncStream<BackgroundWorkEvent>.Continuation]>([:])
    private let nextStream = Locked<UInt64>(0)

    init(sink: (any EventSink)?, logging: EventLogging, bufferLimit: Int) {
        self.sink = sink
        self.logging = logging
        self.bufferLimit = bufferLimit
    }

    func record(_ event: BackgroundWorkEvent) {
        if logging == .all || event.isFailure { sink?.log(event) }
        for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// A new stream of the events from now on, holding at most `bufferLimit` unread ones.
    func stream() -> AsyncStream<BackgroundWorkEvent> {
        let id = nextStream.withLock { next in
            defer { next += 1 }
            return next
        }
        let (stream, continuation) = AsyncStream.makeStream(
            of: BackgroundWorkEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        continuation.onTermination = { [streams] _ in _ = streams.withLock { $0.removeValue(forKey: id) } }
        streams.withLock { $0[id] = continuation }
        return stream
    }

    /// Ends every stream.
    func finish() {
        for continuation in streams.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
