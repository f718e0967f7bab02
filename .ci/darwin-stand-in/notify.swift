// Stand-in for Apple's `notify` module (<notify.h>, Darwin notifications), for the Darwin
// type-check on Linux: see Darwin.swift and docs/DARWIN-TYPECHECK.md. Compiled, never linked.
// Apple code imports it with `#if canImport(notify)` / `import notify`.

@_exported import NotifyAppleOnly
import Dispatch

/// <notify.h>: `typedef void (^notify_handler_t)(int token);` — a block taking the token.
public typealias notify_handler_t = @convention(block) (Int32) -> Void

/// <notify.h>:
/// `uint32_t notify_register_dispatch(const char *name, int *out_token, dispatch_queue_t queue,
/// notify_handler_t handler) __OSX_AVAILABLE_STARTING(__MAC_10_6,__IPHONE_3_2);`
/// With Objective-C interop (Apple platforms) `dispatch_queue_t` imports as `DispatchQueue`, and
/// the unannotated pointers and block as implicitly unwrapped optionals.
public func notify_register_dispatch(
    _ name: UnsafePointer<CChar>!, _ out_token: UnsafeMutablePointer<Int32>!,
    _ queue: DispatchQueue!, _ handler: notify_handler_t!
) -> UInt32 { fatalError("stand-in: type-check only") }
