// Stand-in for the part of Apple's `Network` module Spool's Apple-only code uses (path monitoring),
// for type-checking on Linux: see ../darwin-stand-in/Darwin.swift and docs/DARWIN-TYPECHECK.md.
// Compiled, never linked: every body is `fatalError()`.
//
// Sources. Network's Swift API is a Swift overlay (no header to copy), so each declaration follows
// Apple's documentation page named on it, https://developer.apple.com/documentation/network/... (2026
// snapshots, which give the Swift declaration, availability and the "Conforms To" list).
//
// Sendability, as the iOS 26 SDK's Swift interface declares it (alexey-lysiuk/macos-sdk, MacOSX26.0.sdk/System/Library/Frameworks/Network.framework/Versions/A/Modules/Network.swiftmodule/arm64e-apple-ios-macabi.swiftinterface (commit c47669c5, -target arm64e-apple-ios26.0-macabi)): NWPath, NWPath.Status,
// NWInterface and NWInterface.InterfaceType are Sendable since iOS 12; NWPathMonitor is Sendable (with
// CustomDebugStringConvertible and AsyncSequence) only from iOS 17 / macOS 14 / tvOS 17 / watchOS 10, in an
// `@available` extension — above Spool's minimum (iOS 15, macOS 12), so NWPathMonitor is declared NOT Sendable
// here (this check ignores availability: declaring the conformance would accept code that fails an iOS 15
// build). `pathUpdateHandler` is `@preconcurrency` and `@Sendable`.
//
// Compile with `-enable-library-evolution`: the SDK's enums are non-frozen (switches need
// `@unknown default`), and so are these only in a resilient module.

import Dispatch

// MARK: - NWInterface

/// https://developer.apple.com/documentation/network/nwinterface — `struct NWInterface`; iOS 12.0,
/// macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0. Conforms To: CustomDebugStringConvertible, Equatable,
/// Hashable, Sendable. No public initializer (instances come from paths).
@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct NWInterface: Hashable, CustomDebugStringConvertible, Sendable {
    /// https://developer.apple.com/documentation/network/nwinterface/interfacetype — `enum InterfaceType`;
    /// Conforms To: Equatable, Hashable, Sendable (no raw values). Non-frozen.
    public enum InterfaceType: Hashable, Sendable {
        /// `NWInterface.InterfaceType.other` — virtual networks or networks of unknown types.
        case other
        /// `NWInterface.InterfaceType.wifi`
        case wifi
        /// `NWInterface.InterfaceType.cellular`
        case cellular
        /// `NWInterface.InterfaceType.wiredEthernet`
        case wiredEthernet
        /// `NWInterface.InterfaceType.loopback`
        case loopback
    }

    /// .../nwinterface/type — `var type: NWInterface.InterfaceType { get }`
    public var type: InterfaceType { fatalError("stand-in: type-check only") }
    /// .../nwinterface/name — the name of the interface.
    /// UNCONFIRMED: exact form (`let name: String` vs a get-only var; the page text was not read).
    public var name: String { fatalError("stand-in: type-check only") }
    /// .../nwinterface/index — the system interface index.
    /// UNCONFIRMED: exact form (`let index: Int` is the usual spelling; the page text was not read).
    public var index: Int { fatalError("stand-in: type-check only") }
    /// CustomDebugStringConvertible (Conforms To list).
    public var debugDescription: String { fatalError("stand-in: type-check only") }
    /// Hashable/Equatable (Conforms To list); the stand-in implements them without stored properties.
    public static func == (lhs: NWInterface, rhs: NWInterface) -> Bool { fatalError("stand-in: type-check only") }
    public func hash(into hasher: inout Hasher) { fatalError("stand-in: type-check only") }
}

// MARK: - NWPath

/// https://developer.apple.com/documentation/network/nwpath — `struct NWPath`; iOS 12.0, macOS 10.14,
/// tvOS 12.0, watchOS 5.0, visionOS 1.0. No public initializer. The SDK's Swift interface (alexey-lysiuk/macos-sdk, MacOSX26.0.sdk/System/Library/Frameworks/Network.framework/Versions/A/Modules/Network.swiftmodule/arm64e-apple-ios-macabi.swiftinterface (commit c47669c5, -target arm64e-apple-ios26.0-macabi)):
/// `public struct NWPath : Swift.Equatable, Swift.CustomDebugStringConvertible, Swift.Sendable`.
public struct NWPath: Equatable, Sendable {
    /// https://developer.apple.com/documentation/network/nwpath/status-swift.enum — `enum Status`;
    /// Conforms To: Equatable, Hashable, Sendable. Non-frozen: switches need `@unknown default`.
    public enum Status: Hashable, Sendable {
        /// `NWPath.Status.satisfied` — available to establish connections and send data.
        case satisfied
        /// `NWPath.Status.unsatisfied` — not available for use.
        case unsatisfied
        /// `NWPath.Status.requiresConnection` — not currently available, but a new connection may activate it.
        case requiresConnection
    }

    /// .../nwpath/status-swift.property — `let status: NWPath.Status` (a get-only member here).
    public var status: Status { fatalError("stand-in: type-check only") }
    /// .../nwpath/isexpensive — `let isExpensive: Bool` (cellular, Personal Hotspot).
    public var isExpensive: Bool { fatalError("stand-in: type-check only") }
    /// .../nwpath/isconstrained — `var isConstrained: Bool { get }`, iOS 13.0, macOS 10.15, tvOS 13.0,
    /// watchOS 6.0 (Low Data Mode).
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var isConstrained: Bool { fatalError("stand-in: type-check only") }
    /// .../nwpath/usesinterfacetype(_:) — `func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool`
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool { fatalError("stand-in: type-check only") }
    /// .../nwpath/availableinterfaces — `let availableInterfaces: [NWInterface]` (in order of preference).
    public var availableInterfaces: [NWInterface] { fatalError("stand-in: type-check only") }
    public static func == (lhs: NWPath, rhs: NWPath) -> Bool { fatalError("stand-in: type-check only") }
}

// MARK: - NWPathMonitor

/// https://developer.apple.com/documentation/network/nwpathmonitor — `final class NWPathMonitor`; iOS 12.0,
/// macOS 10.14, tvOS 12.0, watchOS 5.0, visionOS 1.0. The SDK's Swift interface (alexey-lysiuk/macos-sdk, MacOSX26.0.sdk/System/Library/Frameworks/Network.framework/Versions/A/Modules/Network.swiftmodule/arm64e-apple-ios-macabi.swiftinterface (commit c47669c5, -target arm64e-apple-ios26.0-macabi)): `final public class
/// NWPathMonitor` with no conformance, and `@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
/// extension Network.NWPathMonitor : Swift.Sendable, Swift.CustomDebugStringConvertible,
/// _Concurrency.AsyncSequence`: above Spool's minimum, so neither Sendable nor CustomDebugStringConvertible is
/// declared here (see the note at the top).
@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public final class NWPathMonitor {
    /// .../nwpathmonitor/init() — `init()`: all available interface types.
    public init() {}
    /// .../nwpathmonitor/init(requiredinterfacetype:) — `init(requiredInterfaceType: NWInterface.InterfaceType)`.
    public init(requiredInterfaceType: NWInterface.InterfaceType) {}
    /// .../nwpathmonitor/init(prohibitedinterfacetypes:) — `init(prohibitedInterfaceTypes:
    /// [NWInterface.InterfaceType])`; iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0.
    @available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
    public init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {}

    /// .../nwpathmonitor/pathupdatehandler — `@preconcurrency final var pathUpdateHandler: (@Sendable
    /// (NWPath) -> Void)? { get set }`. Called on the queue given to `start(queue:)`; fires soon after
    /// `start` with the current path.
    @preconcurrency public final var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../nwpathmonitor/start(queue:) — starts monitoring and sets the queue path events are delivered on.
    /// Declaration `final func start(queue: DispatchQueue)` (also in the swiftinterface excerpt quoted in
    /// a public design note: `final public func start(queue: Dispatch.DispatchQueue)`).
    public final func start(queue: DispatchQueue) { fatalError("stand-in: type-check only") }

    /// .../nwpathmonitor/cancel() — `final func cancel()`: stops receiving updates.
    public final func cancel() { fatalError("stand-in: type-check only") }

    /// .../nwpathmonitor/currentpath — the currently available path. The SDK's interface has a setter,
    /// deprecated from iOS 17 ("setting currentPath not supported"); declared get-only here (restrictive).
    public final var currentPath: NWPath { fatalError("stand-in: type-check only") }

    /// .../nwpathmonitor/queue — the queue on which path events are delivered; nil before `start(queue:)`.
    /// UNCONFIRMED: exact form (`final var queue: DispatchQueue? { get }` per the swiftinterface excerpt).
    public final var queue: DispatchQueue? { fatalError("stand-in: type-check only") }

}

/// AsyncSequence conformance (Conforms To list) — https://developer.apple.com/documentation/network/
/// nwpathmonitor/iterator: `struct Iterator` (AsyncIteratorProtocol), iOS 17.0, macOS 14.0, tvOS 17.0,
/// watchOS 10.0; onestack.dev: `typealias AsyncIterator = NWPathMonitor.Iterator`, `mutating func next()
/// async -> NWPathMonitor.Element?`; Element NWPath, Failure Never (as a public design note measured it).
/// Above Spool's minimum (iOS 15 / macOS 12): an Apple build needs `if #available`, this check does not
/// enforce it.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
extension NWPathMonitor: AsyncSequence {
    public typealias Element = NWPath
    public typealias Failure = Never
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = NWPath
        public typealias Failure = Never
        public mutating func next() async -> NWPath? { fatalError("stand-in: type-check only") }
    }
    public func makeAsyncIterator() -> Iterator { fatalError("stand-in: type-check only") }
}
