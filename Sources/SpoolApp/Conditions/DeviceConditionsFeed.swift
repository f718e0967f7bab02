import Spool

/// What the network path is, as the platform's path monitor reports it (on Apple platforms an
/// `NWPath`).
public struct NetworkPath: Sendable, Equatable {
    /// Whether the path can be used (on Apple platforms `NWPath.Status`).
    public enum Status: Sendable, Equatable {
        /// A connection is available.
        case satisfied
        /// No connection is available.
        case unsatisfied
        /// No connection is available now, but establishing one may activate the path (a VPN on demand,
        /// a cellular interface that wakes): a network that can be tried.
        case requiresConnection
    }

    /// Whether the path can be used.
    public var status: Status
    /// The path uses an interface the system considers expensive (cellular, a personal hotspot).
    public var isExpensive: Bool
    /// The path is in Low Data Mode.
    public var isConstrained: Bool

    /// A path, as the monitor reports it: for an app's tests.
    public init(status: Status, isExpensive: Bool = false, isConstrained: Bool = false) {
        self.status = status
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    /// Whether jobs that need the network may try it: the path is satisfied, or establishing a connection
    /// may activate it (``Status/requiresConnection``: a transfer or request started then brings it up, as
    /// `URLSession` does).
    public var isAvailable: Bool { status != .unsatisfied }
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

/// Feeds the device's conditions to the queue (`JobQueue/updateDeviceConditions(_:)`) as they change:
/// the network from the path monitor (a path that is satisfied or requires a connection is available; an
/// expensive or constrained one is metered), the battery from
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
    /// The monitors that have not reported their first state yet.
    private let unreported: Awaitable<Set<Monitor>>

    private enum Monitor: Hashable {
        case network, power
    }

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
        var monitors: Set<Monitor> = []
        if network != nil { monitors.insert(.network) }
        if power != nil { monitors.insert(.power) }
        unreported = Awaitable(monitors)
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
            self?.change(reporting: .network) {
                $0.isNetworkAvailable = path.isAvailable
                $0.isNetworkUnmetered = path.isAvailable && !path.isExpensive && !path.isConstrained
            }
        }
        power?.start { [weak self] lowPowerMode in
            self?.change(reporting: .power) { $0.isBatteryNotLow = !lowPowerMode }
        }
    }

    /// Returns once every monitor has reported its first state (the monitors report asynchronously), or
    /// once `bound` seconds have passed on `clock`, whichever comes first.
    func firstReports(within bound: TimeInterval, on clock: any SpoolClock) async {
        let deadline = clock.now().addingTimeInterval(bound)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [unreported] in await unreported.wait { $0.isEmpty } }
            group.addTask { try? await clock.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
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

    /// The app's named conditions that hold now (`JobConstraints/requiredConditions`).
    public func setSatisfiedConditions(_ names: Set<String>) { change { $0.satisfiedConditions = names } }

    /// Applies `edit` and gives the result to the queue when it differs. Under the lock, so that two
    /// changes reach the queue in the order they were made (the queue keeps conditions in memory: quick).
    private func change(reporting monitor: Monitor? = nil, _ edit: (inout DeviceConditions) -> Void) {
        defer { if let monitor { unreported.update { _ = $0.remove(monitor) } } }
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
