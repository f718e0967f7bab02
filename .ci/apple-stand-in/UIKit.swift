// Stand-in for the part of Apple's `UIKit` module that an app delegate using Spool needs (the sample app's
// `AppDelegate`, and `#if canImport(UIKit)` conditions), for type-checking on Linux: see
// ../darwin-stand-in/Darwin.swift and docs/DARWIN-TYPECHECK.md. Compiled, never linked: every body is
// `fatalError()` or empty.
//
// Sources: Apple's documentation pages https://developer.apple.com/documentation/uikit/... named on each
// declaration (2026 snapshots: Swift declaration, availability, "Conforms To"); onestack.dev's iOS reference
// (SDK 27.1) where named; enum raw values from the UIKit headers' NS_ENUMs as given by the pages named.
//
// Actor isolation, as the SDK declares it: UIKit's classes and UIApplicationDelegate are main-actor isolated
// (documented: `@MainActor protocol UIApplicationDelegate : NSObjectProtocol`; `UIDevice.current` is
// "Main actor-isolated class property 'current'" in Swift 6 diagnostics quoted on Apple's forums), so they
// are `@MainActor` here; the nested enums and the notification name are not isolated (documented:
// `nonisolated class let batteryStateDidChangeNotification`). Sendable: UIApplication.State is documented
// Sendable; UIDevice.BatteryState and UIApplication.LaunchOptionsKey are declared Sendable by analogy (see
// their notes). The classes are not Sendable (main-actor isolated instead).
//
// Optional protocol requirements: UIApplicationDelegate is an @objc protocol whose methods are all
// `@optional` on Apple platforms; here each is a requirement with a default implementation in a protocol
// extension. A misspelt delegate method therefore compiles, as on Apple platforms; when it sits in the
// extension that declares the conformance the compiler warns "nearly matches defaulted requirement" (the
// check fails on warnings), but in the class body of `class AppDelegate: UIResponder, UIApplicationDelegate`
// (the usual place, and the sample app's) it is NOT warned about — on Apple platforms likewise, as far as
// this stand-in can tell (UNCONFIRMED: whether Apple's compiler warns there for @objc optional requirements).
//
// `@main`: on Apple platforms `@main` on an app delegate works because UIKit's overlay gives
// `UIApplicationDelegate` a static `main()` (documented, below), which calls UIApplicationMain. This stand-in
// declares that same extension method, so `@main final class AppDelegate: UIResponder, UIApplicationDelegate`
// type-checks as it does on Apple platforms (compile the file with `-parse-as-library`, as SwiftPM does for a
// file not named main.swift).
//
// Platforms: UIKit does not exist on macOS (outside Mac Catalyst) and the availability attributes below are
// ignored on Linux; they record the SDK's availability and are checked only by an Apple build.
//
// Compile with `-enable-library-evolution`: the SDK's imported NS_ENUMs are non-frozen (a switch over them
// needs `@unknown default`), and so are these only in a resilient module.

@_exported import Foundation  // UIKit.h imports <Foundation/Foundation.h>; the framework module re-exports it.

// MARK: - UIResponder

/// https://developer.apple.com/documentation/uikit/uiresponder — `@MainActor class UIResponder : NSObject`
/// (UIResponder.h: `UIKIT_EXTERN API_AVAILABLE(ios(2.0)) NS_SWIFT_UI_ACTOR @interface UIResponder : NSObject
/// <UIResponderStandardEditActions>`; the edit actions are not declared here).
/// UNCONFIRMED: the header line above is recalled, not read; the page's declaration was not read either. The
/// main-actor isolation follows from UIKit's classes being NS_SWIFT_UI_ACTOR (see the note at the top).
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor
open class UIResponder: NSObject {
    /// `init()` (NSObject's, main-actor isolated as the class is); an app delegate subclass is created by
    /// UIApplicationMain through it.
    public override init() { super.init() }
}

// MARK: - UIApplication

/// https://developer.apple.com/documentation/uikit/uiapplication — `@MainActor class UIApplication : UIResponder`;
/// iOS 2.0, Mac Catalyst 13.1, tvOS, visionOS 1.0. One instance per app, made by UIApplicationMain. No
/// initializer is declared (`UIApplication()` compiles, as on Apple platforms, and fails at run time there).
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor
open class UIApplication: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(expirationhandler:) —
    /// `nonisolated func beginBackgroundTask(expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil)
    /// -> UIBackgroundTaskIdentifier`; iOS 4.0, Mac Catalyst 13.1, visionOS 1.0. "The system calls the handler
    /// synchronously on the main thread."
    nonisolated open func beginBackgroundTask(expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil)
        -> UIBackgroundTaskIdentifier
    { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(withname:expirationhandler:)
    /// — `nonisolated func beginBackgroundTask(withName taskName: String?, expirationHandler handler:
    /// (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier`; iOS 7.0. The header confirms it
    /// (UIApplication.h, iOS 26 SDK: `beginBackgroundTaskWithName:expirationHandler:` … `API_AVAILABLE(ios(7.0))
    /// NS_REQUIRES_SUPER NS_SWIFT_NONISOLATED`).
    nonisolated open func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/endbackgroundtask(_:) — `nonisolated func
    /// endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier)`; iOS 4.0; `NS_SWIFT_NONISOLATED` in
    /// UIApplication.h of the iOS 26 SDK.
    nonisolated open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        fatalError("stand-in: type-check only")
    }

    /// The application notifications (alexey-lysiuk/macos-sdk MacOSX26.0.sdk/System/iOSSupport/System/Library/Frameworks/UIKit.framework/Versions/A/Headers/UIApplication.h (commit c47669c5): `UIKIT_EXTERN NSNotificationName const
    /// UIApplicationDidBecomeActiveNotification API_UNAVAILABLE(watchos) NS_SWIFT_NONISOLATED;`, and
    /// `UIApplicationDidEnterBackgroundNotification API_AVAILABLE(ios(4.0)) … NS_SWIFT_NONISOLATED`; not deprecated
    /// in the iOS 26 SDK). Swift: `nonisolated class let didBecomeActiveNotification: NSNotification.Name`
    /// (https://developer.apple.com/documentation/uikit/uiapplication/didenterbackgroundnotification: "UIKit posts
    /// a didEnterBackgroundNotification regardless of whether your app uses scenes", per the
    /// applicationDidEnterBackground(_:) page; with scenes they reflect the app's aggregate state). `static let`
    /// here (Swift source has no stored `class let`). The string values are the constants' names (nothing runs).
    nonisolated public static let didBecomeActiveNotification = NSNotification.Name(
        "UIApplicationDidBecomeActiveNotification")
    /// See ``didBecomeActiveNotification``; iOS 4.0.
    @available(iOS 4.0, tvOS 9.0, visionOS 1.0, *)
    nonisolated public static let didEnterBackgroundNotification = NSNotification.Name(
        "UIApplicationDidEnterBackgroundNotification")

    /// alexey-lysiuk/macos-sdk MacOSX26.0.sdk/System/iOSSupport/System/Library/Frameworks/UIKit.framework/Versions/A/Headers/UIApplication.h (commit c47669c5): `@property(nonatomic,readonly) NSTimeInterval backgroundTimeRemaining API_AVAILABLE(ios(4.0))
    /// NS_SWIFT_NONISOLATED;`.
    @available(iOS 4.0, tvOS 9.0, visionOS 1.0, *)
    nonisolated open var backgroundTimeRemaining: TimeInterval { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/shared — `class var shared: UIApplication
    /// { get }` (`+sharedApplication`, NS_EXTENSION_UNAVAILABLE_IOS). The unavailability in app extensions and its
    /// message are as Xcode reports them: "'shared' is unavailable in application extensions for iOS: Use view
    /// controller based solutions where appropriate instead." (quoted in Apple's developer forums, thread 685369).
    @available(iOSApplicationExtension, unavailable, message: "Use view controller based solutions where appropriate instead.")
    open class var shared: UIApplication { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/applicationstate — `var applicationState:
    /// UIApplication.State { get }`; iOS 4.0. "The app’s current state, or that of its most active scene."
    @available(iOS 4.0, tvOS 9.0, visionOS 1.0, *)
    open var applicationState: State { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/state — `enum State` (UIApplicationState, an
    /// NSInteger NS_ENUM), iOS 4.0. Conforms To: Sendable, Hashable, BitwiseCopyable, SendableMetatype, Equatable,
    /// RawRepresentable. Raw values: active 0, inactive 1, background 2 (the header's order; also Microsoft's
    /// .NET binding of UIApplicationState). Non-frozen: switches need `@unknown default`.
    @available(iOS 4.0, tvOS 9.0, visionOS 1.0, *)
    public enum State: Int, Sendable {
        /// `UIApplicationStateActive` — running in the foreground and receiving events.
        case active = 0
        /// `UIApplicationStateInactive` — in the foreground but not receiving events.
        case inactive = 1
        /// `UIApplicationStateBackground` — running in the background.
        case background = 2
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/launchoptionskey — `struct
    /// LaunchOptionsKey` (`typedef NSString *UIApplicationLaunchOptionsKey`): the keys of the launch options
    /// dictionary given to `application(_:willFinishLaunchingWithOptions:)` and
    /// `application(_:didFinishLaunchingWithOptions:)`. No keys are declared here.
    /// UNCONFIRMED: its exact conformances (a string-typed enum imports as `Hashable, Equatable,
    /// RawRepresentable` and, as a typed string constant, Sendable) and whether it also has the unlabeled
    /// `init(_:)` of an *extensible* typed enum; only `init(rawValue:)` is declared here.
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

// MARK: - UIApplicationDelegate

/// https://developer.apple.com/documentation/uikit/uiapplicationdelegate — `@MainActor protocol
/// UIApplicationDelegate : NSObjectProtocol` (onestack.dev, SDK 27.1, gives the same declaration). Every method
/// is `optional` on Apple platforms: here each has a default (see the note at the top).
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    /// `application(_:willFinishLaunchingWithOptions:)` (named on the LaunchOptionsKey page): `optional func
    /// application(_ application: UIApplication, willFinishLaunchingWithOptions launchOptions:
    /// [UIApplication.LaunchOptionsKey : Any]? = nil) -> Bool`.
    /// UNCONFIRMED: the exact declaration (page not read; by symmetry with the did- method below).
    func application(
        _ application: UIApplication, willFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool

    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:didfinishlaunchingwithoptions:)
    /// — `optional func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions:
    /// [UIApplication.LaunchOptionsKey : Any]? = nil) -> Bool`; iOS 3.0. The `= nil` default argument of the
    /// imported method cannot be written on a Swift protocol requirement; an implementation may declare it.
    @available(iOS 3.0, tvOS 9.0, visionOS 1.0, *)
    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool

    /// `applicationDidBecomeActive(_:)` — `optional func applicationDidBecomeActive(_ application: UIApplication)`
    /// (selector `applicationDidBecomeActive:`, listed by objc2-ui-kit's binding of the protocol).
    /// UNCONFIRMED: page not read; the Swift spelling is the selector's.
    /// Deprecated in the iOS 26 SDK (UIApplication.h: `API_DEPRECATED("Use UIScene lifecycle and sceneDidBecomeActive(_:) from UISceneDelegate or the UIApplication.didBecomeActiveNotification instead.",
    /// ios(2.0, 26.0), …)`; "This method is not called if `UIScene` lifecycle has been adopted").
    @available(iOS, introduced: 2.0, deprecated: 26.0, message: "Use UIScene lifecycle and sceneDidBecomeActive(_:) from UISceneDelegate or the UIApplication.didBecomeActiveNotification instead.")
    func applicationDidBecomeActive(_ application: UIApplication)

    /// `applicationWillResignActive(_:)` — `optional func applicationWillResignActive(_ application:
    /// UIApplication)` (selector listed by objc2-ui-kit). UNCONFIRMED: page not read.
    /// Deprecated in the iOS 26 SDK (UIApplication.h: `API_DEPRECATED("Use UIScene lifecycle and sceneWillResignActive(_:) from UISceneDelegate or the UIApplication.willResignActiveNotification instead.",
    /// ios(2.0, 26.0), …)`; "This method is not called if `UIScene` lifecycle has been adopted").
    @available(iOS, introduced: 2.0, deprecated: 26.0, message: "Use UIScene lifecycle and sceneWillResignActive(_:) from UISceneDelegate or the UIApplication.willResignActiveNotification instead.")
    func applicationWillResignActive(_ application: UIApplication)

    /// `applicationDidEnterBackground(_:)` — `optional func applicationDidEnterBackground(_ application:
    /// UIApplication)` (selector listed by objc2-ui-kit; iOS 4.0). UNCONFIRMED: page not read.
    /// Deprecated in the iOS 26 SDK (UIApplication.h: `API_DEPRECATED("Use UIScene lifecycle and sceneDidEnterBackground(_:) from UISceneDelegate or the UIApplication.didEnterBackgroundNotification instead.",
    /// ios(4.0, 26.0), …)`; "This method is not called if `UIScene` lifecycle has been adopted").
    @available(iOS, introduced: 4.0, deprecated: 26.0, message: "Use UIScene lifecycle and sceneDidEnterBackground(_:) from UISceneDelegate or the UIApplication.didEnterBackgroundNotification instead.")
    func applicationDidEnterBackground(_ application: UIApplication)

    /// `applicationWillEnterForeground(_:)` — `optional func applicationWillEnterForeground(_ application:
    /// UIApplication)` (selector listed by objc2-ui-kit; iOS 4.0). UNCONFIRMED: page not read.
    /// Deprecated in the iOS 26 SDK (UIApplication.h: `API_DEPRECATED("Use UIScene lifecycle and sceneWillEnterForeground(_:) from UISceneDelegate or the UIApplication.willEnterForegroundNotification instead.",
    /// ios(4.0, 26.0), …)`; "This method is not called if `UIScene` lifecycle has been adopted").
    @available(iOS, introduced: 4.0, deprecated: 26.0, message: "Use UIScene lifecycle and sceneWillEnterForeground(_:) from UISceneDelegate or the UIApplication.willEnterForegroundNotification instead.")
    func applicationWillEnterForeground(_ application: UIApplication)

    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:handleeventsforbackgroundurlsession:completionhandler:)
    /// — `optional func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier:
    /// String, completionHandler: @escaping () -> Void)`; iOS 7.0, Mac Catalyst 13.1, tvOS, visionOS 1.0. The
    /// completion handler is NOT @Sendable (the documented Swift declaration has no `@Sendable`, where the pages
    /// of Foundation's NS_SWIFT_SENDABLE blocks show it): passing it where a `@Sendable` closure is expected is
    /// an error in Swift 6 mode, on Apple platforms as here. "Calling this completion handler lets the system
    /// know that your app’s user interface is updated and a new snapshot can be taken."
    @available(iOS 7.0, tvOS 9.0, visionOS 1.0, *)
    func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void)
}

/// Optional requirements of UIApplicationDelegate (Apple: `@optional`): defaults. The two Bool methods'
/// defaults are never called (the system treats a missing method as `true`); they trap.
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
extension UIApplicationDelegate {
    public func application(
        _ application: UIApplication, willFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { fatalError("stand-in: type-check only") }
    @available(iOS 3.0, tvOS 9.0, visionOS 1.0, *)
    public func application(
        _ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { fatalError("stand-in: type-check only") }
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    public func applicationWillResignActive(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
    public func applicationWillEnterForeground(_ application: UIApplication) {}
    @available(iOS 7.0, tvOS 9.0, visionOS 1.0, *)
    public func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {}
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
extension UIApplicationDelegate {
    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/main() — `@MainActor @preconcurrency
    /// static func main()` (symbol `s:So21UIApplicationDelegateP5UIKitE4mainyyFZ`: an extension method of the
    /// UIKit overlay). "UIApplicationDelegate provides an implementation of the main() method so that it can serve
    /// as the main entry point for a UIKit app ... which you mark with the @main attribute."
    @MainActor @preconcurrency
    public static func main() { fatalError("stand-in: type-check only") }
}

// MARK: - UIDevice

/// https://developer.apple.com/documentation/uikit/uidevice — `@MainActor class UIDevice : NSObject` (main-actor
/// isolation: Swift 6 reports "Main actor-isolated class property 'current' can not be referenced from a
/// non-isolated context", Apple developer forums thread 756749). The battery members are iOS 3.0, Mac Catalyst
/// 13.1, visionOS 1.0, and not on tvOS (their pages list no tvOS).
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor
open class UIDevice: NSObject {
    /// `class var current: UIDevice { get }` (`+currentDevice`); main-actor isolated (forum thread above).
    /// UNCONFIRMED: page not read (the spelling is the one in that thread's code and diagnostic).
    open class var current: UIDevice { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uidevice/isbatterymonitoringenabled — `var
    /// isBatteryMonitoringEnabled: Bool { get set }`; default false, which disables the battery notifications and
    /// the battery level and state.
    @available(iOS 3.0, visionOS 1.0, *)
    @available(tvOS, unavailable)
    open var isBatteryMonitoringEnabled: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// https://developer.apple.com/documentation/uikit/uidevice/batterystate-swift.property — `var batteryState:
    /// UIDevice.BatteryState { get }`; `.unknown` while battery monitoring is not enabled.
    @available(iOS 3.0, visionOS 1.0, *)
    @available(tvOS, unavailable)
    open var batteryState: BatteryState { fatalError("stand-in: type-check only") }

    /// https://developer.apple.com/documentation/uikit/uidevice/batterystate-swift.enum — `UIDevice.BatteryState`
    /// (UIDeviceBatteryState, an NSInteger NS_ENUM); cases documented: unknown, unplugged, charging, full. Raw
    /// values 0, 1, 2, 3 (Microsoft's .NET binding of UIDeviceBatteryState; the header's order). Non-frozen.
    /// UNCONFIRMED: Sendable (the page's "Conforms To" list was not read; imported NS_ENUMs are Sendable, as
    /// UIApplication.State's list shows).
    @available(iOS 3.0, visionOS 1.0, *)
    @available(tvOS, unavailable)
    public enum BatteryState: Int, Sendable {
        /// `UIDeviceBatteryStateUnknown` — the battery state cannot be determined.
        case unknown = 0
        /// `UIDeviceBatteryStateUnplugged` — not plugged into power; the battery is discharging.
        case unplugged = 1
        /// `UIDeviceBatteryStateCharging` — plugged into power, less than 100% charged.
        case charging = 2
        /// `UIDeviceBatteryStateFull` — plugged into power, 100% charged.
        case full = 3
    }

    /// https://developer.apple.com/documentation/uikit/uidevice/batterystatedidchangenotification — `nonisolated
    /// class let batteryStateDidChangeNotification: NSNotification.Name` (`static let` here: Swift source has no
    /// stored `class let`; `UIDevice.batteryStateDidChangeNotification` reads the same). Posted only while
    /// `isBatteryMonitoringEnabled` is true.
    /// UNCONFIRMED: the string value (the constant's name, UIDeviceBatteryStateDidChangeNotification, is assumed;
    /// nothing here runs).
    @available(iOS 3.0, visionOS 1.0, *)
    @available(tvOS, unavailable)
    nonisolated public static let batteryStateDidChangeNotification = NSNotification.Name(
        "UIDeviceBatteryStateDidChangeNotification")
}

/// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier — `struct
/// UIBackgroundTaskIdentifier` (`typedef NSUInteger UIBackgroundTaskIdentifier NS_TYPED_ENUM`); Equatable,
/// Hashable, RawRepresentable, Sendable; `static let invalid`.
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/invalid — `static let invalid:
    /// UIBackgroundTaskIdentifier`.
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

// MARK: - The scene life cycle

// Sources: alexey-lysiuk/macos-sdk MacOSX26.0.sdk/System/iOSSupport/System/Library/Frameworks/UIKit.framework/
// Versions/A/Headers/UISceneConfiguration.h and UIApplication.h (commit c47669c5); Apple's documentation pages
// named on each declaration (UIScene.h and UISceneSession.h are not in the index: their declarations follow the
// pages). TN3187 (https://developer.apple.com/documentation/technotes/tn3187-migrating-to-the-uikit-scene-based-
// life-cycle) and "Transitioning to the UIKit scene-based life cycle": from iOS 27, apps built with the latest SDK
// must adopt the scene life cycle or they fail to launch.

/// https://developer.apple.com/documentation/uikit/uiscene — `@MainActor class UIScene : UIResponder`; iOS 13.0.
/// No initializer is declared (scenes are made by UIKit).
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor
open class UIScene: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiscene/connectionoptions — `class ConnectionOptions`
    /// (UISceneConnectionOptions, main-actor isolated as UIKit's classes are). No member is used here.
    /// UNCONFIRMED: its members (none declared).
    @MainActor
    open class ConnectionOptions: NSObject {}
}

/// https://developer.apple.com/documentation/uikit/uiwindowscene — `@MainActor class UIWindowScene : UIScene`;
/// iOS 13.0.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor
open class UIWindowScene: UIScene {}

/// https://developer.apple.com/documentation/uikit/uiscenesession — `@MainActor class UISceneSession : NSObject`;
/// iOS 13.0. `role` (`var role: UISceneSession.Role { get }`).
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor
open class UISceneSession: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiscenesession/role-swift.struct — `struct Role`
    /// (`typedef NSString *UISceneSessionRole NS_TYPED_ENUM`): Hashable, RawRepresentable, Sendable.
    /// UNCONFIRMED: the Swift name of `UIWindowSceneSessionRoleApplication` (`windowApplication`), not used here.
    public struct Role: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
    /// The session's role.
    open var role: Role { fatalError("stand-in: type-check only") }
}

/// UISceneConfiguration.h: `UIKIT_EXTERN API_AVAILABLE(ios(13.0)) API_UNAVAILABLE(watchos) NS_SWIFT_UI_ACTOR
/// @interface UISceneConfiguration : NSObject <NSCopying, NSSecureCoding>` with `- (instancetype)initWithName:
/// (nullable NSString *)name sessionRole:(UISceneSessionRole)sessionRole NS_DESIGNATED_INITIALIZER;` and
/// `@property (nonatomic, nullable) Class delegateClass;` (Swift, https://developer.apple.com/documentation/uikit/
/// uisceneconfiguration/init(name:sessionrole:): `init(name: String?, sessionRole: UISceneSession.Role)`).
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor
open class UISceneConfiguration: NSObject {
    /// `init(name:sessionRole:)`.
    public init(name: String?, sessionRole: UISceneSession.Role) { super.init() }
    /// `var delegateClass: AnyClass?`.
    open var delegateClass: AnyClass? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }
}

/// https://developer.apple.com/documentation/uikit/uiscenedelegate — `@MainActor protocol UISceneDelegate :
/// NSObjectProtocol`, iOS 13.0; every method `optional` (a default here, as for UIApplicationDelegate).
/// UNCONFIRMED: `@MainActor` (UIScene.h not read; as UIApplicationDelegate, which UIApplication.h declares
/// NS_SWIFT_UI_ACTOR).
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor
public protocol UISceneDelegate: NSObjectProtocol {
    /// .../uiscenedelegate/scene(_:willconnectto:options:) — `optional func scene(_ scene: UIScene, willConnectTo
    /// session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions)`.
    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions)
    /// .../uiscenedelegate/scenedidenterbackground(_:) — `optional func sceneDidEnterBackground(_ scene: UIScene)`.
    func sceneDidEnterBackground(_ scene: UIScene)
    /// `optional func sceneDidBecomeActive(_ scene: UIScene)` (named by UIApplication.h's deprecation messages).
    func sceneDidBecomeActive(_ scene: UIScene)
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
extension UISceneDelegate {
    public func scene(
        _ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions
    ) {}
    public func sceneDidEnterBackground(_ scene: UIScene) {}
    public func sceneDidBecomeActive(_ scene: UIScene) {}
}

/// https://developer.apple.com/documentation/uikit/uiwindowscenedelegate — `@MainActor protocol
/// UIWindowSceneDelegate : UISceneDelegate`; iOS 13.0. Its `window` property is not declared here.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor
public protocol UIWindowSceneDelegate: UISceneDelegate {}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
extension UIApplicationDelegate {
    /// UIApplication.h: `- (UISceneConfiguration *)application:(UIApplication *)application
    /// configurationForConnectingSceneSession:(UISceneSession *)connectingSceneSession options:
    /// (UISceneConnectionOptions *)options API_AVAILABLE(ios(13.0)) API_UNAVAILABLE(watchos);` — Swift (https://
    /// developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:configurationforconnecting:options:)):
    /// `optional func application(_ application: UIApplication, configurationForConnecting connectingSceneSession:
    /// UISceneSession, options: UIScene.ConnectionOptions) -> UISceneConfiguration`. An optional requirement on Apple
    /// platforms; here a protocol-extension method that the app delegate's own implementation shadows (declared in
    /// the class body, as the sample does, it is the one UIKit would call).
    public func application(
        _ application: UIApplication, configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration { fatalError("stand-in: type-check only") }
}
