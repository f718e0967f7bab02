// Stand-in for the part of Apple's Foundation that Spool's Apple-only code uses and that Linux's
// swift-corelibs-foundation lacks (the URL loading system, Low Power Mode), for type-checking on Linux:
// see ../darwin-stand-in/Darwin.swift and docs/DARWIN-TYPECHECK.md. Compiled, never linked: every body
// is `fatalError()`.
//
// How it is used: module `FoundationAppleOnly`, implicitly imported (`-import-module FoundationAppleOnly`)
// into files that `import Foundation`, on top of Linux's Foundation. Linux's `FoundationNetworking` (which
// declares its own URLSession) is NOT imported, so the URL loading types are declared here, fresh, as
// Apple's SDK declares them; a file that imported FoundationNetworking as well would see every one of them
// twice (ambiguous).
//
// Sources. The declarations follow the iOS 18.0 SDK header Foundation.framework/Headers/NSURLSession.h
// (public copy: github.com/xybp888/iOS-SDKs, iPhoneOS18.0.sdk/System/Library/Frameworks/Foundation.framework/
// Headers/NSURLSession.h) as Swift imports it, a public copy of the current SDK's NSProcessInfo.h (the one
// that declares `iOSAppOnVision`, API_AVAILABLE(... 26.1)), and Apple's documentation pages
// https://developer.apple.com/documentation/foundation/... named on each declaration (2026 snapshots: Swift
// declaration and availability).
//
// Sendability, as the SDK declares it: NSURLSession.h is NS_HEADER_AUDIT_BEGIN(nullability, sendability) and
// marks NS_SWIFT_SENDABLE the classes URLSession, URLSessionTask (and its Data/Upload/Download subclasses),
// URLSessionConfiguration, and the protocol URLSessionDelegate (documented: `protocol URLSessionDelegate :
// NSObjectProtocol, Sendable`; the task, data and download delegate protocols refine it). Every completion
// handler in the header is `NS_SWIFT_SENDABLE ^`: imported `@Sendable` (documented for
// getAllTasks(completionHandler:)). A Sendable ObjC class imports as `@unchecked Sendable`; the subclasses
// here restate it (each is NS_SWIFT_SENDABLE in the header too, and Swift asks a subclass to restate it). URLResponse: see its note (UNCONFIRMED from the header itself). URLRequest: see
// its note.
//
// Optional protocol requirements. On Apple platforms the delegate protocols are @objc protocols whose
// methods are `@optional` (Swift: `optional func`); Linux has no Objective-C, so here an optional
// requirement is a requirement with a default implementation in a protocol extension (empty body), and a
// required one (`urlSession(_:downloadTask:didFinishDownloadingTo:)`) has no default. Consequences, the same
// as on Apple platforms: a conforming type that misspells an optional method does not fail to conform (the
// default is used); but when the misspelt method sits in the extension that declares the conformance (as
// Spool's delegate methods do), the compiler warns "instance method '...' nearly matches defaulted
// requirement '...'" (Apple's: "... nearly matches optional requirement ..."), and .ci/typecheck-darwin
// fails on any warning. A misspelt method in the class body itself (conformance declared on the class, among
// others) is not warned about. A misspelt *required* method is an error ("does not conform").
//
// Platforms: the compiler ignores the iOS/macOS/tvOS/watchOS/visionOS availability attributes below on
// Linux; they record the SDK's availability and are checked only by an Apple build.
//
// Compile with `-enable-library-evolution`: the SDK's imported NS_ENUMs are non-frozen (a switch over them
// needs `@unknown default`), and so are these only in a resilient module.

import Foundation

// MARK: - URLRequest

/// https://developer.apple.com/documentation/foundation/urlrequest — `struct URLRequest`; iOS 8.0, macOS 10.10,
/// tvOS 9.0, watchOS 2.0, visionOS 1.0 ("A URL load request that is independent of protocol or URL scheme").
/// The Foundation overlay's value type over NSURLRequest; `ReferenceConvertible, Equatable, Hashable`.
/// UNCONFIRMED: Sendable (the page's "Conforms To" list was not read; swift-corelibs-foundation declares
/// `struct URLRequest : ReferenceConvertible, Equatable, Hashable, Sendable`, and a value type whose mutable
/// storage is copied on write is Sendable on both). Declared Sendable here.
@available(macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, *)
public struct URLRequest: Hashable, Sendable {
    /// .../urlrequest/init(url:cachepolicy:timeoutinterval:) — `init(url: URL, cachePolicy:
    /// URLRequest.CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval = 60.0)`, the one
    /// initializer (NSURLRequest.h, alexey-lysiuk/macos-sdk MacOSX26.0.sdk/System/Library/Frameworks/
    /// Foundation.framework/Versions/C/Headers/NSURLRequest.h, commit c47669c5: `- (instancetype)initWithURL:(NSURL
    /// *)URL cachePolicy:(NSURLRequestCachePolicy)cachePolicy timeoutInterval:(NSTimeInterval)timeoutInterval
    /// NS_DESIGNATED_INITIALIZER;` "Default values are used for cache policy (NSURLRequestUseProtocolCachePolicy)
    /// and timeout interval (60 seconds)").
    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval = 60.0) {
        fatalError("stand-in: type-check only")
    }

    /// `URLRequest.CachePolicy` (`NSURLRequest.CachePolicy`, `typedef NS_ENUM(NSUInteger,
    /// NSURLRequestCachePolicy)` in NSURLRequest.h, raw values as the header gives them). Non-frozen.
    public enum CachePolicy: UInt, Sendable {
        case useProtocolCachePolicy = 0
        case reloadIgnoringLocalCacheData = 1
        case returnCacheDataElseLoad = 2
        case returnCacheDataDontLoad = 3
        case reloadIgnoringLocalAndRemoteCacheData = 4
        case reloadRevalidatingCacheData = 5
    }

    /// NSURLRequest.h: `@property (readonly) BOOL allowsCellularAccess API_AVAILABLE(macos(10.8), ios(6.0),
    /// watchos(2.0), tvos(9.0));` (read-write on the struct, as NSMutableURLRequest declares it).
    public var allowsCellularAccess: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSURLRequest.h: `@property (readonly) BOOL allowsExpensiveNetworkAccess API_AVAILABLE(macos(10.15),
    /// ios(13.0), watchos(6.0), tvos(13.0));`.
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsExpensiveNetworkAccess: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSURLRequest.h: `@property (readonly) BOOL allowsConstrainedNetworkAccess API_AVAILABLE(macos(10.15),
    /// ios(13.0), watchos(6.0), tvos(13.0));`.
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allowsConstrainedNetworkAccess: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../urlrequest/url — `var url: URL? { get set }`.
    public var url: URL? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../urlrequest/httpmethod — `var httpMethod: String? { get set }`; "The default HTTP method is “GET”."
    public var httpMethod: String? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// .../urlrequest/setvalue(_:forhttpheaderfield:) — `mutating func setValue(_ value: String?,
    /// forHTTPHeaderField field: String)`; header names are case-insensitive.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        fatalError("stand-in: type-check only")
    }

    /// .../urlrequest/value(forhttpheaderfield:) — `func value(forHTTPHeaderField field: String) -> String?`.
    /// UNCONFIRMED: page not read (the NSURLRequest method of the same name is in the header family).
    public func value(forHTTPHeaderField field: String) -> String? { fatalError("stand-in: type-check only") }

    /// Equatable/Hashable (the struct's declared conformances); the stand-in implements them without storage.
    public static func == (lhs: URLRequest, rhs: URLRequest) -> Bool { fatalError("stand-in: type-check only") }
    public func hash(into hasher: inout Hasher) { fatalError("stand-in: type-check only") }
}

// MARK: - URLResponse, HTTPURLResponse

/// https://developer.apple.com/documentation/foundation/urlresponse — `class URLResponse`; iOS 2.0, macOS 10.2,
/// tvOS 9.0, watchOS 2.0, visionOS 1.0 (NSURLResponse.h: `@interface NSURLResponse : NSObject <NSSecureCoding,
/// NSCopying>`). NSSecureCoding is not declared here (not needed; its init(coder:) would be).
/// UNCONFIRMED: Sendable. The current NSURLResponse.h was not read; objc2-foundation's bindings, generated from
/// the SDK headers, mark NSURLResponse Send + Sync (as they do the NS_SWIFT_SENDABLE classes above), and
/// swift-corelibs-foundation declares it `@unchecked Sendable`. Declared `@unchecked Sendable` here.
@available(macOS 10.2, iOS 2.0, watchOS 2.0, tvOS 9.0, *)
open class URLResponse: NSObject, NSCopying, @unchecked Sendable {
    /// Not API: the designated initializer the stand-in's subclass chains to (invisible to clients).
    init(_standIn: Void) { super.init() }

    /// onestack.dev URLResponse (SDK 27.1): `init(url URL: URL, mimeType MIMEType: String?, expectedContentLength
    /// length: Int, textEncodingName name: String?)` (NSURLResponse.h: NS_DESIGNATED_INITIALIZER).
    public init(url URL: URL, mimeType MIMEType: String?, expectedContentLength length: Int, textEncodingName name: String?) {
        super.init()
        fatalError("stand-in: type-check only")
    }

    /// `var url: URL? { get }` (same source).
    open var url: URL? { fatalError("stand-in: type-check only") }
    /// `var mimeType: String? { get }`.
    open var mimeType: String? { fatalError("stand-in: type-check only") }
    /// `var expectedContentLength: Int64 { get }`.
    open var expectedContentLength: Int64 { fatalError("stand-in: type-check only") }
    /// `var textEncodingName: String? { get }`.
    open var textEncodingName: String? { fatalError("stand-in: type-check only") }
    /// `var suggestedFilename: String? { get }`.
    open var suggestedFilename: String? { fatalError("stand-in: type-check only") }

    /// NSCopying (NSURLResponse.h: `<NSSecureCoding, NSCopying>`).
    open func copy(with zone: NSZone? = nil) -> Any { fatalError("stand-in: type-check only") }
}

/// https://developer.apple.com/documentation/foundation/httpurlresponse — `class HTTPURLResponse`
/// (NSURLResponse.h: `@interface NSHTTPURLResponse : NSURLResponse`, macos(10.2), ios(2.0), watchos(2.0),
/// tvos(9.0)). Sendable as its superclass is (restated: Swift asks a subclass to restate an inherited
/// `@unchecked Sendable`).
@available(macOS 10.2, iOS 2.0, watchOS 2.0, tvOS 9.0, *)
open class HTTPURLResponse: URLResponse, @unchecked Sendable {
    /// NSURLResponse.h: `- (nullable instancetype)initWithURL:(NSURL *)url statusCode:(NSInteger)statusCode
    /// HTTPVersion:(nullable NSString *)HTTPVersion headerFields:(nullable NSDictionary<NSString *, NSString *>
    /// *)headerFields` (macos(10.7), ios(5.0)) → `init?(url:statusCode:httpVersion:headerFields:)`.
    @available(macOS 10.7, iOS 5.0, watchOS 2.0, tvOS 9.0, *)
    public init?(url: URL, statusCode: Int, httpVersion HTTPVersion: String?, headerFields: [String: String]?) {
        super.init(_standIn: ())
        fatalError("stand-in: type-check only")
    }

    /// https://developer.apple.com/documentation/foundation/httpurlresponse/statuscode — `var statusCode: Int
    /// { get }`; iOS 2.0, macOS 10.2 (`@property (readonly) NSInteger statusCode;`).
    open var statusCode: Int { fatalError("stand-in: type-check only") }

    /// NSURLResponse.h: `@property (readonly, copy) NSDictionary *allHeaderFields;` → `var allHeaderFields:
    /// [AnyHashable : Any] { get }`.
    open var allHeaderFields: [AnyHashable: Any] { fatalError("stand-in: type-check only") }

    /// NSURLResponse.h: `- (nullable NSString *)valueForHTTPHeaderField:(NSString *)field` (macos(10.15),
    /// ios(13.0), watchos(6.0), tvos(13.0)) → `func value(forHTTPHeaderField field: String) -> String?`.
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    open func value(forHTTPHeaderField field: String) -> String? { fatalError("stand-in: type-check only") }
}

// MARK: - URLSessionConfiguration

/// https://developer.apple.com/documentation/foundation/urlsessionconfiguration — NSURLSession.h:
/// `NS_SWIFT_SENDABLE API_AVAILABLE(macos(10.9), ios(7.0), watchos(2.0), tvos(9.0)) @interface
/// NSURLSessionConfiguration : NSObject <NSCopying>`: Sendable. `init()` is API_DEPRECATED ("Please use
/// NSURLSessionConfiguration.defaultSessionConfiguration or other class methods to create instances",
/// ios(7.0,13.0)); not declared here, so `URLSessionConfiguration()` does not compile (on Apple platforms: a
/// deprecation warning, which the check also refuses).
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
open class URLSessionConfiguration: NSObject, NSCopying, @unchecked Sendable {
    /// Not API: the designated initializer (invisible to clients).
    init(_standIn: Void) { super.init() }

    /// .../urlsessionconfiguration/background(withidentifier:) — `class func background(withIdentifier
    /// identifier: String) -> URLSessionConfiguration`; iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS
    /// 1.0 (`+backgroundSessionConfigurationWithIdentifier:`). The identifier "must not be nil or an empty string".
    @available(macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, *)
    open class func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        fatalError("stand-in: type-check only")
    }

    /// .../urlsessionconfiguration/identifier — `var identifier: String? { get }` (set only for a background
    /// configuration).
    open var identifier: String? { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `@property (nullable, copy) NSString *sharedContainerIdentifier API_AVAILABLE(macos(10.10),
    /// ios(8.0), watchos(2.0), tvos(9.0));` → `var sharedContainerIdentifier: String? { get set }`. "App
    /// extensions wishing to use background sessions *must* set this property to a valid container identifier,
    /// or all transfers in that session will fail with NSURLErrorBackgroundSessionRequiresSharedContainer."
    @available(macOS 10.10, iOS 8.0, watchOS 2.0, tvOS 9.0, *)
    open var sharedContainerIdentifier: String? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSURLSession.h: `@property BOOL sessionSendsLaunchEvents API_AVAILABLE(macos(11.0), ios(7.0),
    /// watchos(2.0), tvos(9.0));` → `var sessionSendsLaunchEvents: Bool { get set }`; default YES for a
    /// background configuration; "macOS apps based on AppKit do not support background launch".
    @available(macOS 11.0, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    open var sessionSendsLaunchEvents: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSURLSession.h: `@property (getter=isDiscretionary) BOOL discretionary API_AVAILABLE(macos(10.10), ios(7.0),
    /// watchos(2.0), tvos(9.0));` → `var isDiscretionary: Bool { get set }`.
    @available(macOS 10.10, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    open var isDiscretionary: Bool {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSCopying (`<NSCopying>`).
    open func copy(with zone: NSZone? = nil) -> Any { fatalError("stand-in: type-check only") }
}

// MARK: - URLSession

/// https://developer.apple.com/documentation/foundation/urlsession — `class URLSession`; iOS 7.0, macOS 10.9,
/// tvOS 9.0, watchOS 2.0, visionOS 1.0. NSURLSession.h: `NS_SWIFT_SENDABLE ... @interface NSURLSession : NSObject`
/// ("NSURLSession instances are thread-safe"): Sendable. `init()`/`new` are API_DEPRECATED ios(7.0,13.0); not
/// declared here.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
open class URLSession: NSObject, @unchecked Sendable {
    /// Not API: the designated initializer the convenience initializer chains to (invisible to clients).
    init(_standIn: Void) { super.init() }

    /// .../urlsession/init(configuration:delegate:delegatequeue:) — `init(configuration: URLSessionConfiguration,
    /// delegate: (any URLSessionDelegate)?, delegateQueue queue: OperationQueue?)` (the class factory
    /// `+sessionWithConfiguration:delegate:delegateQueue:`, imported as a convenience initializer). The session
    /// retains its delegate until it is invalidated.
    public convenience init(
        configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, delegateQueue queue: OperationQueue?
    ) {
        self.init(_standIn: ())
        fatalError("stand-in: type-check only")
    }

    /// .../urlsession/init(configuration:) — `init(configuration: URLSessionConfiguration)`.
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(_standIn: ())
        fatalError("stand-in: type-check only")
    }

    /// NSURLSession.h: `@property (readonly, copy) NSURLSessionConfiguration *configuration;`.
    open var configuration: URLSessionConfiguration { fatalError("stand-in: type-check only") }
    /// .../urlsession/delegatequeue — `var delegateQueue: OperationQueue { get }`.
    open var delegateQueue: OperationQueue { fatalError("stand-in: type-check only") }
    /// NSURLSession.h: `@property (nullable, readonly, retain) id <NSURLSessionDelegate> delegate;`.
    open var delegate: (any URLSessionDelegate)? { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `- (void)finishTasksAndInvalidate;` — returns immediately; existing tasks run to
    /// completion; no new tasks. "When invalidating a background session, it is not safe to create another
    /// background session with the same identifier until URLSession:didBecomeInvalidWithError: has been issued."
    open func finishTasksAndInvalidate() { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `- (void)invalidateAndCancel;` — as finishTasksAndInvalidate, and cancels outstanding tasks.
    open func invalidateAndCancel() { fatalError("stand-in: type-check only") }

    /// .../urlsession/getalltasks(completionhandler:) — `func getAllTasks(completionHandler: @escaping @Sendable
    /// ([URLSessionTask]) -> Void)`; iOS 9.0, macOS 10.11, tvOS 9.0, watchOS 2.0 (NSURLSession.h:
    /// `NS_SWIFT_ASYNC_NAME(getter:allTasks())`).
    @available(macOS 10.11, iOS 9.0, watchOS 2.0, tvOS 9.0, *)
    open func getAllTasks(completionHandler: @escaping @Sendable ([URLSessionTask]) -> Void) {
        fatalError("stand-in: type-check only")
    }

    /// The async form Swift imports from the method above: NSURLSession.h gives
    /// `-getAllTasksWithCompletionHandler:` `NS_SWIFT_ASYNC_NAME(getter:allTasks())`, i.e. `var allTasks:
    /// [URLSessionTask] { get async }` (`__kindof NSURLSessionTask *` elements: `[URLSessionTask]`).
    /// UNCONFIRMED: the availability Swift gives this async getter (the method's ios(9.0)/macos(10.11), further
    /// limited by the Concurrency runtime's iOS 13/macOS 10.15); no page of its own was read. Either way below
    /// Spool's minimum (iOS 15, macOS 12).
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var allTasks: [URLSessionTask] {
        get async { fatalError("stand-in: type-check only") }
    }

    /// NSURLSession.h: `- (NSURLSessionUploadTask *)uploadTaskWithRequest:(NSURLRequest *)request
    /// fromFile:(NSURL *)fileURL;` → `func uploadTask(with request: URLRequest, fromFile fileURL: URL) ->
    /// URLSessionUploadTask` ("The body of the request will be created from the file referenced by fileURL").
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        fatalError("stand-in: type-check only")
    }

    /// NSURLSession.h: `- (NSURLSessionDownloadTask *)downloadTaskWithRequest:(NSURLRequest *)request;` →
    /// `func downloadTask(with request: URLRequest) -> URLSessionDownloadTask`.
    open func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        fatalError("stand-in: type-check only")
    }

    /// NSURLSession.h: `- (NSURLSessionDownloadTask *)downloadTaskWithURL:(NSURL *)url;` → `func downloadTask(with
    /// url: URL) -> URLSessionDownloadTask`.
    open func downloadTask(with url: URL) -> URLSessionDownloadTask { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `- (NSURLSessionDataTask *)dataTaskWithRequest:(NSURLRequest *)request;` → `func
    /// dataTask(with request: URLRequest) -> URLSessionDataTask` (data tasks are not supported in background
    /// sessions).
    open func dataTask(with request: URLRequest) -> URLSessionDataTask { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `typedef NS_ENUM(NSInteger, NSURLSessionResponseDisposition)` (macos(10.9), ios(7.0));
    /// Swift `URLSession.ResponseDisposition` (the type of the data delegate's completion handler below,
    /// documented). Raw values from the header. Non-frozen.
    public enum ResponseDisposition: Int, Sendable {
        /// `NSURLSessionResponseCancel = 0` — "Cancel the load, this is the same as -[task cancel]".
        case cancel = 0
        /// `NSURLSessionResponseAllow = 1` — "Allow the load to continue".
        case allow = 1
        /// `NSURLSessionResponseBecomeDownload = 2` — "Turn this request into a download".
        case becomeDownload = 2
        /// `NSURLSessionResponseBecomeStream = 3`, macos(10.11), ios(9.0).
        @available(macOS 10.11, iOS 9.0, watchOS 2.0, tvOS 9.0, *)
        case becomeStream = 3
    }
}

// MARK: - Tasks

/// https://developer.apple.com/documentation/foundation/urlsessiontask — `class URLSessionTask`; iOS 7.0, macOS
/// 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0. NSURLSession.h: `NS_SWIFT_SENDABLE ... @interface NSURLSessionTask
/// : NSObject <NSCopying, NSProgressReporting>`: Sendable. Tasks are created suspended; `resume()` starts them.
/// `init()`/`new` are API_DEPRECATED("Not supported", ios(7.0,13.0)); not declared here.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
open class URLSessionTask: NSObject, NSCopying, ProgressReporting, @unchecked Sendable {
    /// Not API: the designated initializer the stand-in's subclasses chain to (invisible to clients).
    init(_standIn: Void) { super.init() }

    /// NSURLSession.h: `typedef NS_ENUM(NSInteger, NSURLSessionTaskState)` (macos(10.9), ios(7.0));
    /// https://developer.apple.com/documentation/foundation/urlsessiontask/state-swift.enum —
    /// `URLSessionTask.State`. Raw values from the header. Non-frozen: switches need `@unknown default`.
    public enum State: Int, Sendable {
        /// `NSURLSessionTaskStateRunning = 0` — "The task is currently being serviced by the session".
        case running = 0
        /// `NSURLSessionTaskStateSuspended = 1`.
        case suspended = 1
        /// `NSURLSessionTaskStateCanceling = 2` — "The session will receive a URLSession:task:didCompleteWithError:
        /// message."
        case canceling = 2
        /// `NSURLSessionTaskStateCompleted = 3` — "the session will receive no more delegate notifications".
        case completed = 3
    }

    /// NSURLSession.h: `@property (readonly) NSUInteger taskIdentifier;` (NSUInteger imports as Int) — "an
    /// identifier for this task, assigned by and unique to the owning session".
    open var taskIdentifier: Int { fatalError("stand-in: type-check only") }

    /// .../urlsessiontask/taskdescription — `var taskDescription: String? { get set }`; "The system doesn’t
    /// interpret this value".
    open var taskDescription: String? {
        get { fatalError("stand-in: type-check only") }
        set { fatalError("stand-in: type-check only") }
    }

    /// NSURLSession.h: `@property (nullable, readonly, copy) NSURLResponse *response;` → `@NSCopying var response:
    /// URLResponse? { get }` ("may be nil if no response has been received").
    open var response: URLResponse? { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `@property (nullable, readonly, copy) NSURLRequest *originalRequest;` → `URLRequest?`.
    open var originalRequest: URLRequest? { fatalError("stand-in: type-check only") }

    /// .../urlsessiontask/error — `var error: (any Error)? { get }`.
    open var error: (any Error)? { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `@property (readonly) NSURLSessionTaskState state;` → `var state: URLSessionTask.State { get }`.
    open var state: State { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `- (void)resume;`.
    open func resume() { fatalError("stand-in: type-check only") }
    /// NSURLSession.h: `- (void)suspend;`.
    open func suspend() { fatalError("stand-in: type-check only") }
    /// NSURLSession.h: `- (void)cancel;` — "returns immediately, but marks a task as being canceled"; the task then
    /// reports { NSURLErrorDomain, NSURLErrorCancelled } to URLSession:task:didCompleteWithError:.
    open func cancel() { fatalError("stand-in: type-check only") }

    /// NSURLSession.h: `@property (readonly, strong) NSProgress *progress API_AVAILABLE(macos(10.13), ios(11.0),
    /// watchos(4.0), tvos(11.0));` (the NSProgressReporting requirement).
    @available(macOS 10.13, iOS 11.0, watchOS 4.0, tvOS 11.0, *)
    open var progress: Progress { fatalError("stand-in: type-check only") }

    /// NSCopying (`<NSCopying, NSProgressReporting>`).
    open func copy(with zone: NSZone? = nil) -> Any { fatalError("stand-in: type-check only") }
}

/// https://developer.apple.com/documentation/foundation/urlsessiondatatask — NSURLSession.h: `NS_SWIFT_SENDABLE
/// ... @interface NSURLSessionDataTask : NSURLSessionTask` (no members of its own).
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {}

/// NSURLSession.h: `NS_SWIFT_SENDABLE ... @interface NSURLSessionUploadTask : NSURLSessionDataTask` (its
/// `cancelByProducingResumeData:`, ios(17.0), is not declared here).
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {}

/// https://developer.apple.com/documentation/foundation/urlsessiondownloadtask — NSURLSession.h:
/// `NS_SWIFT_SENDABLE ... @interface NSURLSessionDownloadTask : NSURLSessionTask`.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable {
    /// NSURLSession.h: `- (void)cancelByProducingResumeData:(void (NS_SWIFT_SENDABLE ^)(NSData * _Nullable
    /// resumeData))completionHandler;` → `func cancel(byProducingResumeData completionHandler: @escaping
    /// @Sendable (Data?) -> Void)`.
    /// UNCONFIRMED: the Swift spelling `cancel(byProducingResumeData:)` (the usual import of this selector; page
    /// not read).
    open func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        fatalError("stand-in: type-check only")
    }
}

// MARK: - Delegate protocols
//
// Optional requirements are requirements with a default (empty) implementation in a protocol extension: see
// the note at the top of this file.

/// https://developer.apple.com/documentation/foundation/urlsessiondelegate — `protocol URLSessionDelegate :
/// NSObjectProtocol, Sendable`; iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0 (NSURLSession.h:
/// `NS_SWIFT_SENDABLE ... @protocol NSURLSessionDelegate <NSObject>`, all methods `@optional`). The
/// authentication-challenge method is not declared here (it needs URLAuthenticationChallenge and URLCredential).
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
public protocol URLSessionDelegate: NSObjectProtocol, Sendable {
    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session didBecomeInvalidWithError:(nullable NSError
    /// *)error;` → `optional func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)`
    /// — "The last message a session receives".
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)

    /// .../urlsessiondelegate/urlsessiondidfinishevents(forbackgroundurlsession:) — `optional func
    /// urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)`; iOS 7.0, macOS 11.0, tvOS 9.0,
    /// watchOS 2.0, visionOS 1.0. Sent after the app's `application(_:handleEventsForBackgroundURLSession:
    /// completionHandler:)` once every enqueued message of the session was delivered.
    @available(macOS 11.0, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)
}

/// Optional requirements of URLSessionDelegate (Apple: `@optional`): empty defaults.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
extension URLSessionDelegate {
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    @available(macOS 11.0, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}
}

/// https://developer.apple.com/documentation/foundation/urlsessiontaskdelegate — `protocol URLSessionTaskDelegate
/// : URLSessionDelegate`; iOS 7.0, macOS 10.9 (NSURLSession.h: `@protocol NSURLSessionTaskDelegate
/// <NSURLSessionDelegate>`, all methods `@optional`). Only the methods without completion handlers or other
/// undeclared types are declared here.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /// .../urlsessiontaskdelegate/urlsession(_:task:didcompletewitherror:) — `optional func urlSession(_ session:
    /// URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)`; "The only errors your
    /// delegate receives through the error parameter are client-side errors ... To check for server-side
    /// errors, inspect the response property of the task".
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)

    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session task:(NSURLSessionTask *)task
    /// didSendBodyData:(int64_t)bytesSent totalBytesSent:(int64_t)totalBytesSent
    /// totalBytesExpectedToSend:(int64_t)totalBytesExpectedToSend;` → `optional func urlSession(_:task:
    /// didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)` (the name is documented on the
    /// URLSessionDataTask page).
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64)

    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session taskIsWaitingForConnectivity:(NSURLSessionTask
    /// *)task API_AVAILABLE(macos(10.13), ios(11.0), watchos(4.0), tvos(11.0));` — never called for background
    /// sessions. UNCONFIRMED: the Swift spelling `urlSession(_:taskIsWaitingForConnectivity:)` (page not read).
    @available(macOS 10.13, iOS 11.0, watchOS 4.0, tvOS 11.0, *)
    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask)

    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session didCreateTask:(NSURLSessionTask *)task
    /// API_AVAILABLE(macos(13.0), ios(16.0), watchos(9.0), tvos(16.0));` — "*NOT* dispatched to the delegate
    /// queue". UNCONFIRMED: the Swift spelling `urlSession(_:didCreateTask:)` (page not read).
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask)
}

/// Optional requirements of URLSessionTaskDelegate (Apple: `@optional`): empty defaults.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
extension URLSessionTaskDelegate {
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {}
    @available(macOS 10.13, iOS 11.0, watchOS 4.0, tvOS 11.0, *)
    public func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {}
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    public func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {}
}

/// https://developer.apple.com/documentation/foundation/urlsessiondownloaddelegate — `protocol
/// URLSessionDownloadDelegate : URLSessionTaskDelegate`; iOS 7.0, macOS 10.9 (NSURLSession.h: `@protocol
/// NSURLSessionDownloadDelegate <NSURLSessionTaskDelegate>`; its first method is REQUIRED, the others
/// `@optional`).
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
public protocol URLSessionDownloadDelegate: URLSessionTaskDelegate {
    /// .../urlsessiondownloaddelegate/urlsession(_:downloadtask:didfinishdownloadingto:) — `func urlSession(_
    /// session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)` (no
    /// `optional`: required, hence no default below). "Because the file is temporary, you must either open the
    /// file for reading or move it to a permanent location ... before returning from this delegate method."
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)

    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session downloadTask:(NSURLSessionDownloadTask
    /// *)downloadTask didWriteData:(int64_t)bytesWritten totalBytesWritten:(int64_t)totalBytesWritten
    /// totalBytesExpectedToWrite:(int64_t)totalBytesExpectedToWrite;` (`@optional`).
    /// UNCONFIRMED: the Swift spelling (the selector's usual import; page not read).
    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)

    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session downloadTask:(NSURLSessionDownloadTask
    /// *)downloadTask didResumeAtOffset:(int64_t)fileOffset expectedTotalBytes:(int64_t)expectedTotalBytes;`
    /// (`@optional`). UNCONFIRMED: the Swift spelling (the selector's usual import; page not read).
    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64)
}

/// Optional requirements of URLSessionDownloadDelegate (Apple: `@optional`): empty defaults. The required
/// `urlSession(_:downloadTask:didFinishDownloadingTo:)` has none.
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
extension URLSessionDownloadDelegate {
    public func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {}
    public func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {}
}

/// https://developer.apple.com/documentation/foundation/urlsessiondatadelegate — `protocol URLSessionDataDelegate
/// : URLSessionTaskDelegate`; iOS 7.0, macOS 10.9 (NSURLSession.h: all methods `@optional`).
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
public protocol URLSessionDataDelegate: URLSessionTaskDelegate {
    /// .../urlsessiondatadelegate/urlsession(_:datatask:didreceive:completionhandler:) — `optional func
    /// urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    /// completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)`. Not called for
    /// background upload tasks.
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)

    /// .../urlsessiondatadelegate/urlsession(_:datatask:didreceive:) — `optional func urlSession(_ session:
    /// URLSession, dataTask: URLSessionDataTask, didReceive data: Data)`.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)

    /// NSURLSession.h: `- (void)URLSession:(NSURLSession *)session dataTask:(NSURLSessionDataTask *)dataTask
    /// didBecomeDownloadTask:(NSURLSessionDownloadTask *)downloadTask;` (`@optional`).
    /// UNCONFIRMED: the Swift spelling `urlSession(_:dataTask:didBecome:)` (the usual import, overloaded with the
    /// stream-task form; page not read).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask)
}

/// Optional requirements of URLSessionDataDelegate (Apple: `@optional`): empty defaults. (The default of the
/// response method never calls its completion handler; a real delegate that implements it must.)
@available(macOS 10.9, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
extension URLSessionDataDelegate {
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {}
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask
    ) {}
}

// MARK: - ProcessInfo: Low Power Mode
//
// Linux's Foundation declares neither of the two names below (checked in the Swift 6.3.1 toolchain's
// Foundation and FoundationEssentials interfaces: no `isLowPowerModeEnabled`, no power-state notification).
//
// NOT declared, because Apple's SDK does not declare it: `ProcessInfo.powerStateDidChangeNotification`.
// NSProcessInfo.h declares `FOUNDATION_EXTERN NSNotificationName const NSProcessInfoPowerStateDidChangeNotification
// API_AVAILABLE(macos(12.0), ios(9.0), watchos(2.0), tvos(9.0));` with no NS_SWIFT_NAME, and Apple's documentation
// gives its Swift name as `NSNotification.Name.NSProcessInfoPowerStateDidChange` (page
// .../nsnotification/name-swift.struct/nsprocessinfopowerstatedidchange, symbol
// c:@NSProcessInfoPowerStateDidChangeNotification). Its thermal sibling, by contrast, is documented as
// `ProcessInfo.thermalStateDidChangeNotification` (`class let`). So `ProcessInfo.powerStateDidChangeNotification`
// is "type 'ProcessInfo' has no member ..." on Apple platforms, as here. (iOS 26 adds the typed message
// `ProcessInfo.PowerStateDidChangeMessage` / `NotificationCenter.MessageIdentifier.powerStateDidChange`; not
// declared here.)

extension ProcessInfo {
    /// https://developer.apple.com/documentation/foundation/processinfo/islowpowermodeenabled — `var
    /// isLowPowerModeEnabled: Bool { get }`; iOS 9.0, macOS 12.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, Mac
    /// Catalyst 13.1 (NSProcessInfo.h: `@property (readonly, getter=isLowPowerModeEnabled) BOOL lowPowerModeEnabled
    /// API_AVAILABLE(macos(12.0), ios(9.0), watchos(2.0), tvos(9.0));`).
    @available(macOS 12.0, iOS 9.0, watchOS 2.0, tvOS 9.0, *)
    public var isLowPowerModeEnabled: Bool { fatalError("stand-in: type-check only") }
}

extension NSNotification.Name {
    /// https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nsprocessinfopowerstatedidchange
    /// — `static let NSProcessInfoPowerStateDidChange: NSNotification.Name`; iOS 9.0, macOS 12.0, tvOS 9.0,
    /// watchOS 2.0, visionOS 1.0. "The notification object is a ProcessInfo instance"; NSProcessInfo.h: "This
    /// notification is posted on the global dispatch queue." After it, read `isLowPowerModeEnabled`.
    /// UNCONFIRMED: the string value (the constant's name is assumed; nothing here runs).
    @available(macOS 12.0, iOS 9.0, watchOS 2.0, tvOS 9.0, *)
    public static let NSProcessInfoPowerStateDidChange = NSNotification.Name("NSProcessInfoPowerStateDidChangeNotification")
}

extension FileManager {
    /// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    /// — `func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL?`; iOS 7.0,
    /// macOS 10.8, tvOS 9.0, watchOS 2.0, visionOS 1.0, Mac Catalyst 13.1. "In iOS, the value is nil when the
    /// group identifier is invalid."
    @available(macOS 10.8, iOS 7.0, watchOS 2.0, tvOS 9.0, *)
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        fatalError("stand-in: type-check only")
    }
}
