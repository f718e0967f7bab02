// Stand-in for Apple's `BackgroundTasks` module (BGTaskScheduler and its tasks and requests), for
// type-checking Spool's Apple-only code on Linux: see ../darwin-stand-in/Darwin.swift and
// docs/DARWIN-TYPECHECK.md. Compiled, never linked: every body is `fatalError()`.
//
// Sources. The declarations follow the SDK headers BGTaskScheduler.h, BGTaskRequest.h and BGTask.h
// (the iOS 26 SDK copies, and for what changed in the Xcode 27 SDK the Xcode 27.2 beta 3 copy of
// BGTaskScheduler.h) as imported into Swift, and Apple's documentation pages
// https://developer.apple.com/documentation/backgroundtasks/... named on each declaration (read
// 2026 snapshots, which show the Swift declaration and the "Conforms To" list of each type).
//
// Sendability: no BackgroundTasks header carries NS_SWIFT_SENDABLE or an actor annotation, and the
// documentation's "Conforms To" lists of BGTaskScheduler, BGTask, BGTaskRequest and
// BGContinuedProcessingTask do not include Sendable (they do for Foundation classes that are). So
// no class here is Sendable. `launchHandler` and `expirationHandler` are plain (non-@Sendable)
// closures; the completion handlers of getPendingTaskRequests / submitTaskRequest are @Sendable
// (the documented Swift declarations say so).
//
// Platforms: every class is API_UNAVAILABLE(macos) and API_UNAVAILABLE(watchos) in the headers,
// although the macOS SDK ships the framework (so `canImport(BackgroundTasks)` is true on macOS).
// On Linux the compiler ignores the iOS/macOS/tvOS/watchOS/visionOS availability attributes below;
// they record the SDK's availability and are checked only by an Apple build.
//
// Compile with `-enable-library-evolution`: the SDK's imported NS_ENUM/NS_ERROR_ENUM enums are
// non-frozen (a switch over them needs `@unknown default`), and so are these only in a resilient
// module.

@_exported import Foundation  // BackgroundTasks.h imports <Foundation/Foundation.h>; the framework module re-exports it.
import Dispatch

// MARK: - BGTaskScheduler

/// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler — `class BGTaskScheduler`
/// (BGTaskScheduler.h: `@interface BGTaskScheduler : NSObject`, API_AVAILABLE(ios(13.0), tvos(13.0))
/// API_UNAVAILABLE(macos) API_UNAVAILABLE(watchos); Mac Catalyst 13.1, visionOS 1.0 per the page).
/// Conforms To (documentation): CVarArg, CustomDebugStringConvertible, CustomStringConvertible,
/// Equatable, Hashable, NSObjectProtocol — not Sendable.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTaskScheduler: NSObject {
    /// BGTaskScheduler.h: `- (instancetype)init NS_UNAVAILABLE; //Use the shared scheduler object instead`
    @available(*, unavailable, message: "Use the shared scheduler object instead")
    public override init() { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/shared — `class var shared: BGTaskScheduler { get }`
    /// (BGTaskScheduler.h: `@property (class, readonly, strong) __kindof BGTaskScheduler *sharedScheduler;`).
    open class var shared: BGTaskScheduler { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/supportedresources — `class var supportedResources:
    /// BGContinuedProcessingTaskRequest.Resources { get }`; BGTaskScheduler.h: API_AVAILABLE(ios(26.0))
    /// API_UNAVAILABLE(macos, tvos, visionos, watchos, macCatalyst) (iOS 26 SDK header; the Xcode 27 one
    /// lists the same).
    @available(iOS 26.0, *)
    @available(macCatalyst, unavailable)
@available(macCatalyst, unavailable)
    @available(tvOS, unavailable)
    @available(visionOS, unavailable)
    open class var supportedResources: BGContinuedProcessingTaskRequest.Resources {
        fatalError("stand-in: type-check only")
    }

    /// .../bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:) —
    /// `func register(forTaskWithIdentifier identifier: String, using queue: dispatch_queue_t?,
    /// launchHandler: @escaping (BGTask) -> Void) -> Bool` (`dispatch_queue_t` is `DispatchQueue` in
    /// Swift). BGTaskScheduler.h: `launchHandler:(void (^)(__kindof BGTask *task))launchHandler`, no
    /// NS_SWIFT_SENDABLE: the closure is NOT @Sendable. A closure literal written in an actor-isolated
    /// context therefore inherits that isolation, and Swift 6 inserts a run-time executor check that traps
    /// when the scheduler calls it on its background queue (`using: nil`). iOS 26 SDK: the method is also
    /// NS_EXTENSION_UNAVAILABLE("Only the host application may register launch handlers") (alexey-lysiuk/macos-sdk
    /// MacOSX26.0.sdk/System/Library/Frameworks/BackgroundTasks.framework/Versions/A/Headers/BGTaskScheduler.h,
    /// commit c47669c5), declared so here; the Xcode 27.2 header no longer says so.
    @available(iOSApplicationExtension, unavailable, message: "Only the host application may register launch handlers")
    open func register(
        forTaskWithIdentifier identifier: String, using queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/submit(_:) — `func submit(_ taskRequest: BGTaskRequest) throws`
    /// (BGTaskScheduler.h: `- (BOOL)submitTaskRequest:(BGTaskRequest *)taskRequest error:(NSError **)error`).
    /// Xcode 27 SDK: API_DEPRECATED("Use -submitTaskRequest:completionHandler: (Swift:
    /// submitTaskRequest(_:completionHandler:), or 'try await submitTaskRequest(_:)') to capture all error
    /// conditions", ios(13.0, 27.0), tvos(13.0, 27.0)). Swift reports that deprecation only to code whose
    /// deployment target is iOS/tvOS 27 or later.
    @available(iOS, introduced: 13.0, deprecated: 27.0, message: "Use -submitTaskRequest:completionHandler: (Swift: submitTaskRequest(_:completionHandler:), or 'try await submitTaskRequest(_:)') to capture all error conditions")
    @available(tvOS, introduced: 13.0, deprecated: 27.0, message: "Use -submitTaskRequest:completionHandler: (Swift: submitTaskRequest(_:completionHandler:), or 'try await submitTaskRequest(_:)') to capture all error conditions")
    open func submit(_ taskRequest: BGTaskRequest) throws { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/submittaskrequest(_:completionhandler:) — `func submitTaskRequest(_ taskRequest:
    /// BGTaskRequest, completionHandler: @escaping @Sendable ((any Error)?) -> Void)`; iOS 27.0, tvOS 27.0
    /// (Xcode 27.2 beta 3 BGTaskScheduler.h: API_AVAILABLE(ios(27.0), tvos(27.0)),
    /// NS_SWIFT_ASYNC_NAME(submitTaskRequest(_:))). Above Spool's minimum: needs `if #available`.
    @available(iOS 27.0, tvOS 27.0, *)
    open func submitTaskRequest(
        _ taskRequest: BGTaskRequest, completionHandler: @escaping @Sendable ((any Swift.Error)?) -> Void
    ) { fatalError("stand-in: type-check only") }

    /// The async form Swift imports from the method above (NS_SWIFT_ASYNC_NAME(submitTaskRequest(_:)),
    /// Xcode 27.2 beta 3 header; the deprecation message spells it `try await submitTaskRequest(_:)`).
    @available(iOS 27.0, tvOS 27.0, *)
    open func submitTaskRequest(_ taskRequest: BGTaskRequest) async throws {
        fatalError("stand-in: type-check only")
    }

    /// .../bgtaskscheduler/cancel(taskrequestwithidentifier:) — `func cancel(taskRequestWithIdentifier
    /// identifier: String)` (BGTaskScheduler.h: `- (void)cancelTaskRequestWithIdentifier:(NSString *)identifier;`).
    open func cancel(taskRequestWithIdentifier identifier: String) { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/cancelalltaskrequests() — `func cancelAllTaskRequests()`.
    open func cancelAllTaskRequests() { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/getpendingtaskrequests(completionhandler:) — `func getPendingTaskRequests(
    /// completionHandler: @escaping @Sendable ([BGTaskRequest]) -> Void)`; "The handler may execute on a
    /// background thread."
    open func getPendingTaskRequests(completionHandler: @escaping @Sendable ([BGTaskRequest]) -> Void) {
        fatalError("stand-in: type-check only")
    }

    /// The async form of the method above: `func pendingTaskRequests() async -> [BGTaskRequest]`
    /// (onestack.dev iOS reference for BGTaskScheduler, SDK 27.1, Swift declaration; Apple's page names it
    /// in its "Concurrency note"). `[BGTaskRequest]` is not Sendable.
    open func pendingTaskRequests() async -> [BGTaskRequest] { fatalError("stand-in: type-check only") }

    /// .../bgtaskscheduler/errordomain — the background tasks error domain (BGTaskScheduler.h:
    /// `BG_EXTERN NSErrorDomain const BGTaskSchedulerErrorDomain;`, imported as a member of BGTaskScheduler;
    /// onestack.dev shows `class let errorDomain: String`).
    /// UNCONFIRMED: the exact Swift spelling of this one member (the page excerpt read did not show its
    /// declaration); `BGTaskScheduler.Error.errorDomain` below is documented and is the one to use.
    public static let errorDomain: String = "BGTaskSchedulerErrorDomain"

    // MARK: BGTaskScheduler.Error

    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error — `struct Error`, "The
    /// Errors for the `BGTaskSchedulerError` domain": the struct Swift synthesizes for
    /// `typedef NS_ERROR_ENUM(BGTaskSchedulerErrorDomain, BGTaskSchedulerErrorCode)` (BGTaskScheduler.h),
    /// iOS 13.0. Like every imported error struct it is a `_BridgedStoredNSError` (CustomNSError, Hashable,
    /// Error — hence Sendable), which gives `code`, `init(_:userInfo:)` and the `catch
    /// BGTaskScheduler.Error.tooManyPendingTaskRequests` pattern; the same protocols exist in
    /// swift-corelibs-foundation, so those spellings type-check here too.
    public struct Error: _BridgedStoredNSError {
        public let _nsError: NSError
        public init(_nsError: NSError) { self._nsError = _nsError }
        /// .../bgtaskscheduler/error — `static var errorDomain: String { get }` (onestack.dev, SDK 27.1).
        public static var errorDomain: String { "BGTaskSchedulerErrorDomain" }
        public static var _nsErrorDomain: String { "BGTaskSchedulerErrorDomain" }

        /// .../bgtaskscheduler/error/code — `enum Code` (BGTaskSchedulerErrorCode, an NSInteger NS_ERROR_ENUM:
        /// non-frozen, `@unknown default` needed in a switch). Raw values from BGTaskScheduler.h.
        public enum Code: Int, _ErrorCodeProtocol, @unchecked Sendable {
            public typealias _ErrorType = BGTaskScheduler.Error
            /// `BGTaskSchedulerErrorCodeUnavailable = 1` — background refresh disabled, Simulator, extension
            /// not allowed to schedule.
            case unavailable = 1
            /// `BGTaskSchedulerErrorCodeTooManyPendingTaskRequests = 2` — "1 refresh task and 10 processing
            /// tasks scheduled at any time" (submit's documentation).
            case tooManyPendingTaskRequests = 2
            /// `BGTaskSchedulerErrorCodeNotPermitted = 3` — missing UIBackgroundModes entry, identifier not in
            /// BGTaskSchedulerPermittedIdentifiers, unavailable requested resources, user denied.
            case notPermitted = 3
            /// `BGTaskSchedulerErrorCodeImmediateRunIneligible = 4` — only for a BGContinuedProcessingTaskRequest
            /// submitted with strategy `.fail`. Added with the iOS 26 SDK; the header gives the case no
            /// availability of its own (the enum's ios(13.0) applies), as onestack.dev's "iOS 13.0+" shows.
            case immediateRunIneligible = 4
        }

        /// .../bgtaskscheduler/error/unavailable — `static var unavailable: BGTaskScheduler.Error.Code { get }`
        public static var unavailable: Code { .unavailable }
        /// .../bgtaskscheduler/error/toomanypendingtaskrequests — `static var tooManyPendingTaskRequests:
        /// BGTaskScheduler.Error.Code { get }`
        public static var tooManyPendingTaskRequests: Code { .tooManyPendingTaskRequests }
        /// .../bgtaskscheduler/error/notpermitted — `static var notPermitted: BGTaskScheduler.Error.Code { get }`
        public static var notPermitted: Code { .notPermitted }
        /// onestack.dev BGTaskScheduler.Error (SDK 27.1): `static var immediateRunIneligible:
        /// BGTaskScheduler.Error.Code { get }`, iOS 13.0+.
        public static var immediateRunIneligible: Code { .immediateRunIneligible }
    }
}

// MARK: - Task requests

/// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest — `class BGTaskRequest`
/// (BGTaskRequest.h: `@interface BGTaskRequest : NSObject <NSCopying>`, ios(13.0), tvos(13.0),
/// API_UNAVAILABLE(macos)). Conforms To: CVarArg, CustomDebugStringConvertible, CustomStringConvertible,
/// Equatable, Hashable, NSCopying, NSObjectProtocol — not Sendable.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTaskRequest: NSObject, NSCopying {
    /// BGTaskRequest.h: `- (instancetype)init NS_UNAVAILABLE; // This is an abstract type`
    @available(*, unavailable, message: "BGTaskRequest is abstract; use a concrete subclass")
    public override init() { fatalError("stand-in: type-check only") }
    /// Not API: the designated initializer the stand-in's subclasses chain to (invisible to clients).
    init(_standIn: Void) { super.init() }

    /// .../bgtaskrequest/identifier — `var identifier: String { get }`
    /// (BGTaskRequest.h: `@property (readonly, copy) NSString *identifier;`).
    open var identifier: String { fatalError("stand-in: type-check only") }

    /// .../bgtaskrequest/earliestbegindate — `var earliestBeginDate: Date? { get set }`
    /// (BGTaskRequest.h: `@property (copy, nullable) NSDate *earliestBeginDate;`).
    open var earliestBeginDate: Date? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSCopying (BGTaskRequest.h: `<NSCopying>`).
    open func copy(with zone: NSZone? = nil) -> Any { fatalError("stand-in: type-check only") }
}

/// https://developer.apple.com/documentation/backgroundtasks/bgapprefreshtaskrequest — `class
/// BGAppRefreshTaskRequest` (BGTaskRequest.h: `@interface BGAppRefreshTaskRequest : BGTaskRequest`,
/// ios(13.0), tvos(13.0), API_UNAVAILABLE(macos)).
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGAppRefreshTaskRequest: BGTaskRequest {
    /// BGTaskRequest.h: `- (instancetype)initWithIdentifier:(NSString *)identifier;` → `init(identifier: String)`.
    public init(identifier: String) { super.init(_standIn: ()); fatalError("stand-in: type-check only") }
}

/// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtaskrequest — `class
/// BGProcessingTaskRequest` (BGTaskRequest.h, ios(13.0), tvos(13.0), API_UNAVAILABLE(macos)).
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGProcessingTaskRequest: BGTaskRequest {
    /// .../bgprocessingtaskrequest/init(identifier:) — `init(identifier: String)`.
    public init(identifier: String) { super.init(_standIn: ()); fatalError("stand-in: type-check only") }

    /// .../bgprocessingtaskrequest/requiresnetworkconnectivity — `var requiresNetworkConnectivity: Bool
    /// { get set }` (BGTaskRequest.h: `@property (assign) BOOL requiresNetworkConnectivity;`, default NO).
    open var requiresNetworkConnectivity: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../bgprocessingtaskrequest/requiresexternalpower — `var requiresExternalPower: Bool { get set }`
    /// (BGTaskRequest.h: `@property (assign) BOOL requiresExternalPower;`, default NO).
    open var requiresExternalPower: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }
}

/// https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtaskrequest — `class
/// BGContinuedProcessingTaskRequest`, iOS 26.0 / iPadOS 26.0 (BGTaskRequest.h, iOS 26 SDK:
/// API_AVAILABLE(ios(26.0)) API_UNAVAILABLE(macos, tvos, visionos, watchos, macCatalyst); the Swift page
/// of the documentation also lists Mac Catalyst 26.0, which the header excludes).
@available(iOS 26.0, *)
@available(macCatalyst, unavailable)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
open class BGContinuedProcessingTaskRequest: BGTaskRequest {
    /// .../bgcontinuedprocessingtaskrequest/init(identifier:title:subtitle:) — `init(identifier: String,
    /// title: String, subtitle: String)`. The identifier must extend a wildcard entry of
    /// BGTaskSchedulerPermittedIdentifiers (`<bundle id>.<context>.*`); earliestBeginDate is ignored.
    public init(identifier: String, title: String, subtitle: String) {
        super.init(_standIn: ()); fatalError("stand-in: type-check only")
    }

    /// .../bgcontinuedprocessingtaskrequest/title — `var title: String { get set }` (`@property (copy, nonnull)`).
    open var title: String {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// BGTaskRequest.h: `@property (copy, nonnull) NSString *subtitle;` → `var subtitle: String { get set }`
    /// (onestack.dev, SDK 27.1, same).
    open var subtitle: String {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../bgcontinuedprocessingtaskrequest/strategy — `var strategy:
    /// BGContinuedProcessingTaskRequest.SubmissionStrategy { get set }`; default `.queue`.
    open var strategy: SubmissionStrategy {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../bgcontinuedprocessingtaskrequest/requiredresources — `var requiredResources:
    /// BGContinuedProcessingTaskRequest.Resources { get set }`; default: no resources (`[]`).
    open var requiredResources: Resources {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../bgcontinuedprocessingtaskrequest/submissionstrategy — BGTaskRequest.h:
    /// `typedef NS_ENUM(NSInteger, BGContinuedProcessingTaskRequestSubmissionStrategy) { ...Fail, ...Queue }
    /// NS_SWIFT_NAME(BGContinuedProcessingTaskRequest.SubmissionStrategy)`, iOS 26.0. Non-frozen NS_ENUM.
    public enum SubmissionStrategy: Int, @unchecked Sendable {
        /// "Fail the submission if there is no room for the task request, or if the system is under
        /// substantial load and is unable immediately run the task." (fails with `.immediateRunIneligible`)
        case fail = 0
        /// "Add the request to the back of a queue ... Queued requests will be cancelled when the user removes
        /// your app from the app switcher."
        case queue = 1
    }

    /// .../bgcontinuedprocessingtaskrequest/resources — `struct Resources` (BGTaskRequest.h:
    /// `typedef NS_OPTIONS(NSInteger, BGContinuedProcessingTaskRequestResources) { ...Default = 0,
    /// ...GPU NS_SWIFT_NAME(gpu) = (1 << 0) } NS_SWIFT_NAME(BGContinuedProcessingTaskRequest.Resources)`).
    public struct Resources: OptionSet, @unchecked Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// .../bgcontinuedprocessingtaskrequest/resources/gpu — `static var gpu:
        /// BGContinuedProcessingTaskRequest.Resources { get }`; needs the
        /// com.apple.developer.background-tasks.continued-processing.gpu entitlement.
        public static var gpu: Resources { Resources(rawValue: 1 << 0) }
        /// The zero-valued `BGContinuedProcessingTaskRequestResourcesDefault` has no Swift member: the Swift
        /// page of Resources lists only `gpu` (and onestack.dev only `gpu` and `init(rawValue:)`); write `[]`.
        /// UNCONFIRMED: whether Swift omits the case or imports it unavailable (the importer's usual treatment
        /// of a zero NS_OPTIONS value); either way `.default` does not compile, as here.
        @available(*, unavailable, message: "use [] to construct an empty option set")
        public static var `default`: Resources { fatalError("stand-in: type-check only") }
    }
}

// MARK: - Tasks

/// https://developer.apple.com/documentation/backgroundtasks/bgtask — `class BGTask` (BGTask.h:
/// `@interface BGTask : NSObject`, ios(13.0), tvos(13.0), API_UNAVAILABLE(macos)). Conforms To: CVarArg,
/// CustomDebugStringConvertible, CustomStringConvertible, Equatable, Hashable, NSObjectProtocol — not Sendable.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGTask: NSObject {
    /// BGTask.h: `- (instancetype)init NS_UNAVAILABLE; // ...created by the system`
    @available(*, unavailable, message: "BGTask objects are created by the system")
    public override init() { fatalError("stand-in: type-check only") }
    /// Not API: the designated initializer the stand-in's subclasses chain to (invisible to clients).
    init(_standIn: Void) { super.init() }

    /// .../bgtask/identifier — `var identifier: String { get }`.
    open var identifier: String { fatalError("stand-in: type-check only") }

    /// .../bgtask/expirationhandler — `var expirationHandler: (() -> Void)? { get set }` (BGTask.h:
    /// `@property (nullable, strong) void (^expirationHandler)(void);` — not @Sendable). Cleared after it is
    /// called or when setTaskCompleted(success:) is called; without one the task is marked failed.
    open var expirationHandler: (() -> Void)? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../bgtask/settaskcompleted(success:) — `func setTaskCompleted(success: Bool)`
    /// (BGTask.h: `- (void)setTaskCompletedWithSuccess:(BOOL)success;`).
    open func setTaskCompleted(success: Bool) { fatalError("stand-in: type-check only") }
}

/// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtask — BGTask.h:
/// `@interface BGProcessingTask : BGTask`, ios(13.0), tvos(13.0), API_UNAVAILABLE(macos). No members of its own.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGProcessingTask: BGTask {}

/// https://developer.apple.com/documentation/backgroundtasks/bgapprefreshtask — BGTask.h:
/// `@interface BGAppRefreshTask : BGTask`, ios(13.0), tvos(13.0), API_UNAVAILABLE(macos). No members of its own.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
open class BGAppRefreshTask: BGTask {}

/// https://developer.apple.com/documentation/backgroundtasks/bgcontinuedprocessingtask — `class
/// BGContinuedProcessingTask`, iOS 26.0 (BGTask.h, iOS 26 SDK: `@interface BGContinuedProcessingTask :
/// BGTask<NSProgressReporting>`, API_AVAILABLE(ios(26.0)) API_UNAVAILABLE(macos, tvos, visionos,
/// macCatalyst) API_UNAVAILABLE(watchos); the documentation's Swift page also lists Mac Catalyst 26.0).
/// Conforms To: CVarArg, CustomDebugStringConvertible, CustomStringConvertible, Equatable, Hashable,
/// NSObjectProtocol, ProgressReporting — not Sendable. It "must report progress via the
/// NSProgressReporting protocol conformance"; stalled tasks may be expired.
@available(iOS 26.0, *)
@available(macCatalyst, unavailable)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
open class BGContinuedProcessingTask: BGTask, ProgressReporting {
    /// .../bgcontinuedprocessingtask/title — `var title: String { get }` (`@property (copy, readonly)`).
    open var title: String { fatalError("stand-in: type-check only") }

    /// .../bgcontinuedprocessingtask/subtitle — `var subtitle: String { get }` (`@property (copy, readonly)`).
    open var subtitle: String { fatalError("stand-in: type-check only") }

    /// .../bgcontinuedprocessingtask/updatetitle(_:subtitle:) — `func updateTitle(_ title: String,
    /// subtitle: String)` (BGTask.h: `- (void)updateTitle:(NSString *)title subtitle:(NSString *)subtitle;`).
    open func updateTitle(_ title: String, subtitle: String) { fatalError("stand-in: type-check only") }

    /// ProgressReporting (Foundation): `var progress: Progress { get }` — from `<NSProgressReporting>`
    /// (`@property (readonly) NSProgress *progress;`). `Progress` is Sendable (@unchecked) on both platforms;
    /// the task is not.
    open var progress: Progress { fatalError("stand-in: type-check only") }
}
