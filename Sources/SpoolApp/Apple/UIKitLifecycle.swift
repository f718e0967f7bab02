#if canImport(UIKit)
    import Foundation
    import Spool
    import UIKit

    /// ``AppLifecycleMonitoring`` over UIKit's `UIApplication.didBecomeActiveNotification` and
    /// `didEnterBackgroundNotification`, which UIKit posts whichever life cycle the app uses (an app
    /// delegate alone, scenes, or SwiftUI's `App`), observed on the main queue, where UIKit posts them.
    public final class UIKitLifecycleMonitor: AppLifecycleMonitoring, Sendable {
        private let observers = Locked<[any NSObjectProtocol]>([])

        /// A monitor of the app's notifications.
        public init() {}

        /// Starts observing.
        public func start(_ handler: @escaping @Sendable (AppTransition) -> Void) {
            let center = NotificationCenter.default
            let tokens = [
                center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) {
                    _ in handler(.becameActive)
                },
                center.addObserver(
                    forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
                ) { _ in handler(.enteredBackground) },
            ]
            observers.withLock { $0 = tokens }
        }

        /// Stops observing.
        public func cancel() {
            let tokens = observers.withLock { observers in
                defer { observers = [] }
                return observers
            }
            for token in tokens { NotificationCenter.default.removeObserver(token) }
        }
    }

    /// ``BackgroundTimeGranting`` over `UIApplication.beginBackgroundTask(withName:expirationHandler:)` and
    /// `endBackgroundTask(_:)` (both `nonisolated`: callable from any thread). Not in app extensions, which
    /// have no `UIApplication` (they use `ProcessInfo.performExpiringActivity`).
    @available(iOSApplicationExtension, unavailable)
    public final class UIKitBackgroundTime: BackgroundTimeGranting, @unchecked Sendable {
        // @unchecked: the application object is used only for its two nonisolated methods.
        private let application: UIApplication

        /// Background time of the app (`UIApplication.shared`).
        @MainActor public init() { application = UIApplication.shared }

        /// Begins a background task named `name` whose expiration handler runs `expiring`.
        public func begin(_ name: String, expiring: @escaping @Sendable () -> Void) -> (any BackgroundTimeGrant)? {
            let identifier = application.beginBackgroundTask(withName: name) { expiring() }
            guard identifier != .invalid else { return nil }
            return Grant(application: application, identifier: identifier)
        }

        /// A background task begun: `end()` ends it.
        private final class Grant: BackgroundTimeGrant, @unchecked Sendable {
            // @unchecked: as UIKitBackgroundTime; the identifier is a value.
            private let application: UIApplication
            private let identifier: UIBackgroundTaskIdentifier

            init(application: UIApplication, identifier: UIBackgroundTaskIdentifier) {
                self.application = application
                self.identifier = identifier
            }

            func end() { application.endBackgroundTask(identifier) }
        }
    }
#endif
