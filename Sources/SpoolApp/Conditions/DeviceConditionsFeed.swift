import Spool

/// What the network path is, as the platform's path monitor reports it (on Apple platforms an
/// `NWPath`).
public struct NetworkPath: Sendable, Equatable {
    /// A connection is available (`NWPath.Status.satisfied`).
    public var isSatisfied: Bool
    /// The path uses an interface the system considers expensive (cellular, a personal hotspot).
    public var isExpensive: Bool
    /// The path is in Low Data Mode.
    public var isConstrained: Bool

    /// A path, as the monitor reports it: for an app's tests.
    public init(isSatisfied: Bool, isExpensive: Bool = false, isConstrained: Bool = false) {
        self.isSatisfied = isSatisfied
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }
}

/// The platform's network path monitor (on Apple platforms `NWPathMonitor`). Tests give a fake.
public protocol NetworkPathMonitoring: Sendable {
    /// Starts reporting the path to `handler`: the current one first, then each change.
    func start(_ handler: @escaping @Sendable (NetworkPath) -> Void)
    /// Stops reporting.
    func cancel()
}

/// The platform's power state (on Apple platforms `ProcessInfo`'s Low Power Mode). Tests give a fake.
public protocol PowerStateMonitoring: Sendable {
    /// Starts reporting whether Low Power Mode is on to `handler`: the current state first, then each change.
    func start(_ handler: @escaping @Sendable (_ lowPowerMode: Bool) -> Void)
    /// Stops reporting.
    func cancel()
}

/// Feeds the device's conditions to the queue (``JobQueue/updateDeviceConditions(_:)``) as they change:
/// the network from the path monitor (an expensive or constrained path is metered), the battery from
/// Low Power Mode (on: the battery counts as low), and what the app reports itself: external power
/// (``setCharging(_:)``; on iOS from `UIDevice.batteryState`, which needs UIKit), idleness and its named
/// conditions (``setSatisfiedConditions(_:)``). A change that leaves the conditions as they were is not
/// given to the queue.
public final class DeviceConditionsFeed: Sendable {
    private let queue: JobQueue
    private let events: EventLog
    private let network: (any NetworkPathMonitoring)?
    private let power: (any PowerStateMonitoring)?
    private let conditions: Locked<DeviceConditions>

    init(
        queue: JobQueue, network: (any NetworkPathMonitoring)?, power: (any PowerStateMonitoring)?, events: EventLog
    ) {
        self.queue = queue
        self.events = events
        self.network = network
        self.power = power
        // Without a power monitor, the battery is not known to be low.
        var initial = queue.deviceConditions
        if power == nil { initial.isBatteryNotLow = true }
        conditions = Locked(initial)
    }

    /// The conditions as last given to the queue.
    public var current: DeviceConditions { conditions.withLock { $0 } }

    /// Gives the queue the conditions known now, then starts the monitors.
    func start() {
        let initial = conditions.withLock { $0 }
        do {
            try queue.updateDeviceConditions(initial)
        } catch {
            events.record(.schedulingFailed(error: "device conditions: \(error)"))
        }
        network?.start { [weak self] path in
            self?.change {
                $0.isNetworkAvailable = path.isSatisfied
                $0.isNetworkUnmetered = path.isSatisfied && !path.isExpensive && !path.isConstrained
            }
        }
        power?.start { [weak self] lowPowerMode in self?.change { $0.isBatteryNotLow = !lowPowerMode } }
    }

    /// Stops the monitors.
    func cancel() {
        network?.cancel()
        power?.cancel()
    }

    /// The device is, or is no longer, on external power.
    public func setCharging(_ charging: Bool) { change { $0.isCharging = charging } }

    /// The device is, or is no longer, idle.
    public func setDeviceIdle(_ idle: Bool) { change { $0.isDeviceIdle = idle } }

    /// The app's named conditions that hold now (``JobConstraints/requiredConditions``).
    public func setSatisfiedConditions(_ names: Set<String>) { change { $0.satisfiedConditions = names } }

    /// Applies `edit` and gives the result to the queue when it differs. Under the lock, so that two
    /// changes reach the queue in the order they were made (the queue keeps conditions in memory: quick).
    private func change(_ edit: (inout DeviceConditions) -> Void) {
        let outcome = conditions.withLock { conditions -> BackgroundWorkEvent? in
            var next = conditions
            edit(&next)
            guard next != conditions else { return nil }
            do {
                try queue.updateDeviceConditions(next)
            } catch {
                return .schedulingFailed(error: "device conditions: \(error)")
            }
            conditions = next
            return .conditionsChanged(next)
        }
        if let outcome { events.record(outcome) }
    }
}
