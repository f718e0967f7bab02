import Spool

/// A change of the app's state that the product follows.
public enum AppTransition: Sendable, Equatable {
    /// The app became active: it is in the foreground (UIKit's `didBecomeActiveNotification`).
    case becameActive
    /// The app entered the background (UIKit's `didEnterBackgroundNotification`).
    case enteredBackground
}

/// The platform's reports of the app's life cycle: on iOS UIKit's application notifications
/// (`UIKitLifecycleMonitor`), which UIKit posts whichever life cycle the app uses (app delegate,
/// scenes or SwiftUI). Tests give a fake.
public protocol AppLifecycleMonitoring: Sendable {
    /// Starts reporting each transition to `handler`, in the order they happen.
    func start(_ handler: @escaping @Sendable (AppTransition) -> Void)
    /// Stops reporting.
    func cancel()
}

/// Time the platform grants an app that entered the background to finish what it started (on iOS
/// `UIApplication.beginBackgroundTask(withName:expirationHandler:)`, `UIKitBackgroundTime`). The
/// platform kills an app that does not end a grant before its time runs out. Tests give a fake.
public protocol BackgroundTimeGranting: Sendable {
    /// Asks for time to finish `name`. `expiring` runs when the time is about to run out; the product
    /// ends the grant in it, at once. Returns the grant, or `nil` when the platform gives none.
    func begin(_ name: String, expiring: @escaping @Sendable () -> Void) -> (any BackgroundTimeGrant)?
}

/// Background time the platform granted (``BackgroundTimeGranting``): ended once, by the product.
public protocol BackgroundTimeGrant: Sendable {
    /// Tells the platform the work is done (on iOS `UIApplication.endBackgroundTask(_:)`).
    func end()
}

/// A grant ended once, by whichever comes first: the end of the work or the platform's expiry.
final class BackgroundTimeSlot: Sendable {
    private struct State {
        var grant: (any BackgroundTimeGrant)?
        var ended = false
    }
    private let state: Locked<State>

    /// Asks `granting` for time for `name`; on expiry, `expired` runs and the grant ends at once.
    init(_ granting: (any BackgroundTimeGranting)?, name: String, expired: @escaping @Sendable () -> Void) {
        let state = Locked(State())
        self.state = state
        let given = granting?.begin(name) {
            expired()
            Self.end(state)
        }
        // An expiry that came before `begin` returned found no grant to end: it is ended here.
        let endedAlready = state.withLock { state -> Bool in
            if !state.ended { state.grant = given }
            return state.ended
        }
        if endedAlready { given?.end() }
    }

    /// The work is done: the grant ends, unless its expiry ended it.
    func end() { Self.end(state) }

    private static func end(_ state: Locked<State>) {
        state.withLock { state -> (any BackgroundTimeGrant)? in
            state.ended = true
            return state.grant.take()
        }?.end()
    }
}
