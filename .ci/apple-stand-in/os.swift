// Stand-in for the part of Apple's `os` module Spool's Apple-only code uses (Logger), for
// type-checking on Linux: see ../darwin-stand-in/Darwin.swift and docs/DARWIN-TYPECHECK.md.
// Compiled, never linked: every body is `fatalError()` or empty.
//
// Sources: Apple's documentation pages https://developer.apple.com/documentation/os/... named on each
// declaration (2026 snapshots: Swift declaration, availability, "Conforms To"); OSLogType's raw values
// from <os/log.h> (OS_LOG_TYPE_DEFAULT 0x00, INFO 0x01, DEBUG 0x02, ERROR 0x10, FAULT 0x11).
//
// Sendability, as documented: Logger and OSLogType conform to Sendable; OSLogMessage's "Conforms To"
// list has only the ExpressibleBy…Literal/Interpolation protocols — not Sendable (it captures its
// arguments in closures). The iOS 26 SDK's interface (alexey-lysiuk/macos-sdk MacOSX26.1.sdk/usr/lib/swift/
// os.swiftmodule/arm64e-apple-ios-macabi.swiftinterface, commit 33d295b5) declares `public struct Logger :
// @unchecked Swift.Sendable` and no Sendable for OSLogPrivacy (it stores a non-frozen `Mask`),
// OSLogStringAlignment, OSLogIntegerFormatting, OSLogFloatFormatting (closures) or OSLogBoolFormat: none is
// Sendable here either.
//
// What the real OSLogMessage checks and this one does not: it is compiler-evaluated, so the `privacy:`,
// `format:` and `align:` arguments must be static members written in the literal (a variable of type
// OSLogPrivacy is rejected on Apple platforms, accepted here), and a message has at most 48
// interpolations (`maxOSLogArgumentCount`). What it does check, as Apple's does: a Logger method takes a
// string literal, not a `String` value; each interpolated value must match one of the overloads below
// (String, Int and other fixed-width integers, Double, Bool, CustomStringConvertible, NSObject, Error,
// metatypes) — so an `Optional`, or a struct that is not CustomStringConvertible, does not compile.
// The autoclosures are not @Sendable, as documented.

import Foundation  // for the NSObject overload (Apple's os overlay imports Foundation's ObjC types likewise)

// MARK: - Logger

/// https://developer.apple.com/documentation/os/logger — `struct Logger`; iOS 14.0, macOS 11.0,
/// tvOS 14.0, watchOS 7.0 (Mac Catalyst 14.0, visionOS). Conforms To: Sendable, SendableMetatype.
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct Logger: Sendable {
    /// .../logger/init(subsystem:category:) — `init(subsystem: String, category: String)`
    public init(subsystem: String, category: String) {}
    /// .../logger/init() — `init()`: "Creates a logger that writes to the default subsystem."
    public init() {}

    /// .../logger/log(_:) — "Writes a message to the log using the default log type."
    /// `func log(_ message: OSLogMessage)`
    public func log(_ message: OSLogMessage) {}
    /// .../logger/log(level:_:) — `func log(level: OSLogType, _ message: OSLogMessage)`
    public func log(level: OSLogType, _ message: OSLogMessage) {}
    /// .../logger/trace(_:) — `func trace(_ message: OSLogMessage)` (debug level).
    public func trace(_ message: OSLogMessage) {}
    /// .../logger/debug(_:) — `func debug(_ message: OSLogMessage)`
    public func debug(_ message: OSLogMessage) {}
    /// .../logger/info(_:) — `func info(_ message: OSLogMessage)`
    public func info(_ message: OSLogMessage) {}
    /// .../logger/notice(_:) — `func notice(_ message: OSLogMessage)` (default level).
    public func notice(_ message: OSLogMessage) {}
    /// .../logger/warning(_:) — `func warning(_ message: OSLogMessage)` (error level).
    public func warning(_ message: OSLogMessage) {}
    /// .../logger/error(_:) — `func error(_ message: OSLogMessage)`
    public func error(_ message: OSLogMessage) {}
    /// .../logger/critical(_:) — `func critical(_ message: OSLogMessage)` (fault level).
    public func critical(_ message: OSLogMessage) {}
    /// .../logger/fault(_:) — `func fault(_ message: OSLogMessage)`
    public func fault(_ message: OSLogMessage) {}
}

// MARK: - OSLogType

/// https://developer.apple.com/documentation/os/oslogtype — `struct OSLogType` (the C `os_log_type_t`,
/// a uint8_t enum in <os/log.h>). Conforms To: BitwiseCopyable, Equatable, Hashable, RawRepresentable,
/// Sendable. Members: debug, info, default, error, fault; init(_:), init(rawValue:), rawValue.
public struct OSLogType: Hashable, RawRepresentable, Sendable {
    public var rawValue: UInt8
    /// .../oslogtype/init(rawvalue:)
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// .../oslogtype/init(_:)
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    /// .../oslogtype/default — OS_LOG_TYPE_DEFAULT = 0x00
    public static var `default`: OSLogType { OSLogType(0x00) }
    /// .../oslogtype/info — OS_LOG_TYPE_INFO = 0x01
    public static var info: OSLogType { OSLogType(0x01) }
    /// .../oslogtype/debug — OS_LOG_TYPE_DEBUG = 0x02
    public static var debug: OSLogType { OSLogType(0x02) }
    /// .../oslogtype/error — OS_LOG_TYPE_ERROR = 0x10
    public static var error: OSLogType { OSLogType(0x10) }
    /// .../oslogtype/fault — OS_LOG_TYPE_FAULT = 0x11
    public static var fault: OSLogType { OSLogType(0x11) }
}

// MARK: - Privacy and formatting options

/// https://developer.apple.com/documentation/os/oslogprivacy — `@frozen struct OSLogPrivacy`; iOS 14.0,
/// macOS 11.0. Static options `auto`, `private`, `public`, `sensitive` (each documented as
/// `static var ...: OSLogPrivacy { get }`, e.g. .../oslogprivacy/sensitive, iOS 14.0).
/// Not declared: `auto(mask:)`, `private(mask:)`, `sensitive(mask:)` and `OSLogPrivacy.Mask` (they exist on
/// Apple platforms; add them here when Spool uses them).
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogPrivacy {
    @usableFromInline let option: UInt8
    @inlinable init(_ option: UInt8) { self.option = option }
    /// .../oslogprivacy/auto — "let the system determine whether to redact or display a value" (the default).
    public static var auto: OSLogPrivacy { OSLogPrivacy(0) }
    /// .../oslogprivacy/public — always show the value.
    public static var `public`: OSLogPrivacy { OSLogPrivacy(1) }
    /// .../oslogprivacy/private — always redact the value.
    public static var `private`: OSLogPrivacy { OSLogPrivacy(2) }
    /// .../oslogprivacy/sensitive — always redact, even where private values are shown.
    public static var sensitive: OSLogPrivacy { OSLogPrivacy(3) }
}

/// https://developer.apple.com/documentation/os/oslogstringalignment — the `align:` argument of the
/// String, integer, floating-point and CustomStringConvertible overloads (default `.none`).
/// UNCONFIRMED: its other members (`right(columns:)`, `left(columns:)`), not read; only `.none` declared.
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogStringAlignment {
    public static var none: OSLogStringAlignment { OSLogStringAlignment() }
}

/// https://developer.apple.com/documentation/os/oslogintegerformatting — the `format:` of integer
/// interpolations, default `.decimal` (documented). UNCONFIRMED: its other members (hex/octal forms); only
/// `.decimal` declared.
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogIntegerFormatting {
    public static var decimal: OSLogIntegerFormatting { OSLogIntegerFormatting() }
}

/// https://developer.apple.com/documentation/os/oslogfloatformatting — the `format:` of Double
/// interpolations, default `.fixed` (documented). UNCONFIRMED: other members; only `.fixed` declared.
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogFloatFormatting {
    public static var fixed: OSLogFloatFormatting { OSLogFloatFormatting() }
}

/// https://developer.apple.com/documentation/os/oslogboolformat — the `format:` of Bool interpolations,
/// default `.truth` (documented); the Bool overload's page says values format "as either true/false or
/// yes/no strings". UNCONFIRMED: the name `answer` of the yes/no case (not read).
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public enum OSLogBoolFormat {
    case truth
    case answer
}

// MARK: - OSLogMessage

/// https://developer.apple.com/documentation/os/oslogmessage — `@frozen struct OSLogMessage`; iOS 14.0,
/// macOS 11.0. Conforms To: ExpressibleByExtendedGraphemeClusterLiteral, ExpressibleByStringInterpolation,
/// ExpressibleByStringLiteral, ExpressibleByUnicodeScalarLiteral — not Sendable ("You don't create
/// instances of OSLogMessage directly"). .../oslogmessage/interpolation: `let interpolation:
/// OSLogInterpolation`.
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public typealias StringInterpolation = OSLogInterpolation
    public let interpolation: OSLogInterpolation
    public init(stringInterpolation: OSLogInterpolation) { self.interpolation = stringInterpolation }
    public init(stringLiteral value: String) {
        var interpolation = OSLogInterpolation(literalCapacity: 0, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.interpolation = interpolation
    }
}

/// Explicitly not Sendable, as documented (the stand-in's own stored members would otherwise let a
/// non-resilient build infer it).
@available(*, unavailable)
extension OSLogMessage: Sendable {}

/// https://developer.apple.com/documentation/os/osloginterpolation — `@frozen struct OSLogInterpolation`;
/// iOS 14.0, macOS 11.0: "A container for the elements of a log message." Each `appendInterpolation`
/// below is copied from its documentation page (Swift declaration); the stand-in drops the values.
@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogInterpolation: StringInterpolationProtocol {
    @usableFromInline var storage: [() -> Void] = []  // non-Sendable storage, as Apple's (closures)
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}

    /// .../appendinterpolation(_:align:privacy:)-6tazr — "Appends an interpolated string."
    /// `mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String,
    /// align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto)`
    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {}

    /// .../appendinterpolation(_:align:privacy:)-84m60 — "Appends an interpolated textual representation
    /// of a type." `mutating func appendInterpolation<T>(_ value: @autoclosure @escaping () -> T,
    /// align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto) where T : CustomStringConvertible`
    public mutating func appendInterpolation<T: CustomStringConvertible>(
        _ value: @autoclosure @escaping () -> T,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {}

    /// .../appendinterpolation(_:format:align:privacy:)-8kli1 — "Appends an interpolated integer."
    /// `mutating func appendInterpolation(_ number: @autoclosure @escaping () -> Int, format:
    /// OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto)`
    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Int,
        format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {}

    /// .../appendinterpolation(_:format:align:privacy:attributes:)-8107a — "Appends an interpolated numeric
    /// type using the specified attributes." `mutating func appendInterpolation<T>(_ number: @autoclosure
    /// @escaping () -> T, format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none,
    /// privacy: OSLogPrivacy = .auto, attributes: String) where T : FixedWidthInteger`
    /// (other fixed-width integers without `attributes:` go through the CustomStringConvertible overload).
    public mutating func appendInterpolation<T: FixedWidthInteger>(
        _ number: @autoclosure @escaping () -> T,
        format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto, attributes: String
    ) {}

    /// .../appendinterpolation(_:format:align:privacy:)-6mu00 — "Appends an interpolated double."
    /// `mutating func appendInterpolation(_ number: @autoclosure @escaping () -> Double, format:
    /// OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto)`
    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Double,
        format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {}

    /// .../appendinterpolation(_:format:privacy:)-686xc — "Adds a Boolean argument to the message."
    /// `mutating func appendInterpolation(_ boolean: @autoclosure @escaping () -> Bool, format:
    /// OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto)`
    public mutating func appendInterpolation(
        _ boolean: @autoclosure @escaping () -> Bool,
        format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto
    ) {}

    /// .../appendinterpolation(_:privacy:) — "Appends an interpolated object description."
    /// `mutating func appendInterpolation(_ argumentObject: @autoclosure @escaping () -> NSObject,
    /// privacy: OSLogPrivacy = .auto)`
    public mutating func appendInterpolation(
        _ argumentObject: @autoclosure @escaping () -> NSObject, privacy: OSLogPrivacy = .auto
    ) {}

    /// .../appendinterpolation(_:privacy:attributes:)-4o74h — `mutating func appendInterpolation(_ error:
    /// @autoclosure @escaping () -> any Error, privacy: OSLogPrivacy = .auto, attributes: String = "")`
    /// (page availability: iOS 14.0, macOS 11.0).
    public mutating func appendInterpolation(
        _ error: @autoclosure @escaping () -> any Error,
        privacy: OSLogPrivacy = .auto, attributes: String = ""
    ) {}

    /// Metatypes: the Logger page says interpolations may include "metatypes such as `Int.self`".
    /// UNCONFIRMED: the exact declaration (not read); this is the shape of the other overloads.
    public mutating func appendInterpolation(
        _ value: @autoclosure @escaping () -> any Any.Type, privacy: OSLogPrivacy = .auto
    ) {}
}
