/// What a job needs of the device before it may start: part of what the job means,
/// stored durably with it.
///
/// A claim never takes a job whose constraints the queue's current
/// ``DeviceConditions`` do not satisfy, however overdue the job is. The app
/// reports the conditions with ``JobQueue/updateDeviceConditions(_:)``; until it
/// does, nothing is known to hold, so only unconstrained jobs run.
///
/// ```swift
/// var needs = JobConstraints()
/// needs.requiresUnmeteredNetwork = true
/// needs.requiredConditions = ["signed-in"]
/// try await queue.enqueue(NewJob(kind: "upload-video", constraints: needs))
/// ```
public struct JobConstraints: Hashable, Sendable {
    /// The job needs a network connection.
    public var requiresNetwork: Bool
    /// The job needs an unmetered network connection (Wi-Fi, Ethernet); implies ``requiresNetwork``.
    public var requiresUnmeteredNetwork: Bool
    /// The job needs the device to be charging (on external power).
    public var requiresCharging: Bool
    /// The job needs the device to be idle (not in active use).
    public var requiresDeviceIdle: Bool
    /// The job must not run while the battery is low.
    public var requiresBatteryNotLow: Bool
    /// Conditions the app names and reports itself ("signed-in", "server-reachable"):
    /// each must be among ``DeviceConditions/satisfiedConditions``. Each name is 1 to 200 UTF-8 bytes.
    public var requiredConditions: Set<String>

    /// Describes what a job needs; by default, nothing.
    public init(
        requiresNetwork: Bool = false, requiresUnmeteredNetwork: Bool = false, requiresCharging: Bool = false,
        requiresDeviceIdle: Bool = false, requiresBatteryNotLow: Bool = false,
        requiredConditions: Set<String> = []
    ) {
        self.requiresNetwork = requiresNetwork
        self.requiresUnmeteredNetwork = requiresUnmeteredNetwork
        self.requiresCharging = requiresCharging
        self.requiresDeviceIdle = requiresDeviceIdle
        self.requiresBatteryNotLow = requiresBatteryNotLow
        self.requiredConditions = requiredConditions
    }

    /// No constraint: the job may run whatever the device's state.
    public static let none = JobConstraints()

    /// Whether the job needs nothing of the device.
    public var isEmpty: Bool { self == .none }

    /// Whether the job needs a network connection of any kind (``requiresNetwork`` or ``requiresUnmeteredNetwork``).
    public var needsNetwork: Bool { requiresNetwork || requiresUnmeteredNetwork }
}

/// What holds on the device now, as the app reports it to ``JobQueue/updateDeviceConditions(_:)``.
///
/// The queue keeps the current conditions in memory only (they describe the
/// moment, not the job, and are never written to the log). The default value
/// — what a queue assumes before the app reports anything — is that nothing
/// holds: no network, not charging, not idle, battery state unknown (treated as
/// low), no app condition. A job with constraints therefore waits until the app
/// says they hold; an unconstrained job can always run.
public struct DeviceConditions: Hashable, Sendable {
    /// A network connection is available.
    public var isNetworkAvailable: Bool
    /// The available network is unmetered (Wi-Fi, Ethernet). Counts only with ``isNetworkAvailable``.
    public var isNetworkUnmetered: Bool
    /// The device is charging (on external power).
    public var isCharging: Bool
    /// The device is idle.
    public var isDeviceIdle: Bool
    /// The battery is known not to be low.
    public var isBatteryNotLow: Bool
    /// The app-named conditions that hold now (see ``JobConstraints/requiredConditions``).
    public var satisfiedConditions: Set<String>

    /// Describes the device's state; by default nothing holds.
    public init(
        isNetworkAvailable: Bool = false, isNetworkUnmetered: Bool = false, isCharging: Bool = false,
        isDeviceIdle: Bool = false, isBatteryNotLow: Bool = false, satisfiedConditions: Set<String> = []
    ) {
        self.isNetworkAvailable = isNetworkAvailable
        self.isNetworkUnmetered = isNetworkUnmetered
        self.isCharging = isCharging
        self.isDeviceIdle = isDeviceIdle
        self.isBatteryNotLow = isBatteryNotLow
        self.satisfiedConditions = satisfiedConditions
    }

    /// Nothing known to hold: the queue's conditions until the app reports them.
    public static let unknown = DeviceConditions()

    /// Whether a job requiring `constraints` may start under these conditions.
    public func satisfies(_ constraints: JobConstraints) -> Bool {
        if constraints.requiresNetwork && !isNetworkAvailable { return false }
        if constraints.requiresUnmeteredNetwork && !(isNetworkAvailable && isNetworkUnmetered) { return false }
        if constraints.requiresCharging && !isCharging { return false }
        if constraints.requiresDeviceIdle && !isDeviceIdle { return false }
        if constraints.requiresBatteryNotLow && !isBatteryNotLow { return false }
        return holdsNamedConditions(of: constraints)
    }

    /// Whether every condition the app names in `constraints` (``JobConstraints/requiredConditions``) holds.
    public func holdsNamedConditions(of constraints: JobConstraints) -> Bool {
        constraints.requiredConditions.isSubset(of: satisfiedConditions)
    }
}
