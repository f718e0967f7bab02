#if canImport(os)
    import os
    import Spool

    /// An ``EventSink`` that logs to `os.Logger`: failures at level `error`, everything else at `debug`
    /// (not kept by default, shown while streaming), each line public (events hold ids, kinds and keys,
    /// no payload).
    public struct OSLogEventSink: EventSink {
        private let logger: Logger

        /// Logs under `subsystem` (the app's bundle identifier, say) and `category`.
        public init(subsystem: String, category: String = "Spool") {
            logger = Logger(subsystem: subsystem, category: category)
        }

        /// Logs `event`.
        public func log(_ event: BackgroundWorkEvent) {
            let line = event.description
            if event.isFailure {
                logger.error("\(line, privacy: .public)")
            } else {
                logger.debug("\(line, privacy: .public)")
            }
        }
    }
#endif
