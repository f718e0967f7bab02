#if canImport(os)
    import os
    import Spool

    /// An ``EventSink`` that logs to `os.Logger`: failures at level `error`, everything else at `debug`
    /// (not kept by default, shown while streaming). What may be shown (identifiers, job ids, kinds, keys,
    /// states) is `.public`; error texts and anything else that can hold a path or a URL
    /// (``EventLogLine/redacted``) are `.private`, redacted unless a debugger or a profile shows them.
    public struct OSLogEventSink: EventSink {
        private let logger: Logger

        /// Logs under `subsystem` (the app's bundle identifier, say) and `category`.
        public init(subsystem: String, category: String = "Spool") {
            logger = Logger(subsystem: subsystem, category: category)
        }

        /// Logs `event`.
        public func log(_ event: BackgroundWorkEvent) {
            let line = event.logLine
            let detail = line.redacted.map { ": " + $0 } ?? ""
            if event.isFailure {
                logger.error("\(line.shown, privacy: .public)\(detail, privacy: .private)")
            } else {
                logger.debug("\(line.shown, privacy: .public)\(detail, privacy: .private)")
            }
        }
    }
#endif
