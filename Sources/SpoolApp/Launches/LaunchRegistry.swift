import Spool

/// The schedulers whose identifiers a ``BackgroundWork`` registered in this process: each one once. iOS
/// kills an app that registers a task identifier a second time, and a registration cannot be undone, so
/// a second set-up over the same scheduler is refused before it registers anything.
enum LaunchRegistry {
    /// The schedulers claimed, kept for the process's life (so that no identity is ever reused).
    private static let claimed = Locked<[ObjectIdentifier: any BackgroundTaskScheduling]>([:])

    /// Claims `scheduler` for one set-up.
    ///
    /// - Throws: `SpoolError/Code/invalidState` when it was claimed before in this process.
    static func claim(_ scheduler: any BackgroundTaskScheduling) throws {
        let fresh = claimed.withLock { claimed -> Bool in
            let key = ObjectIdentifier(scheduler)
            guard claimed[key] == nil else { return false }
            claimed[key] = scheduler
            return true
        }
        guard fresh else {
            throw SpoolError(
                .invalidState,
                "BackgroundWork was set up already in this process: its launch identifiers are registered, and iOS "
                    + "kills an app that registers one twice; keep the first BackgroundWork for the process's life")
        }
    }
}
