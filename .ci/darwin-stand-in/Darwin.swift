// Stand-in for Apple's `Darwin` module, for type-checking Spool's `#if canImport(Darwin)`
// branches on Linux (.ci/typecheck-darwin; docs/DARWIN-TYPECHECK.md says what that proves).
// It is compiled, never linked: nothing here runs.
//
// - The C library both systems share comes from Glibc, re-exported whole: Darwin's Swift overlay
//   provides the same Swift-side names (`errno`, the `fcntl` and `open` overloads).
// - The Apple-only names are C declarations copied from the Apple headers
//   (include/DarwinAppleOnly.h), imported by Swift's Clang importer as the SDK's are.
// - Some Linux-only names that Glibc would let through are shadowed below by unavailable
//   declarations, so that using one where Darwin code is compiled fails the check.
//
// A Darwin-only call added to Spool comes, in the same commit, with its declaration in
// include/DarwinAppleOnly.h (or here, when it has no C form).

@_exported import Glibc
@_exported import DarwinAppleOnly

// MARK: - Linux-only names (absent from the Apple headers named on each)
//
// Each mirrors Glibc's Swift type (so that it shadows Glibc's declaration rather than making
// the name ambiguous). This works where Spool imports only this module for the C library (the
// library, which imports FoundationEssentials); a file that imports Foundation gets Glibc from
// it on Linux, and there overload resolution prefers Glibc's available declaration.

/// Linux's clock that counts suspend; xnu <time.h> clocks are REALTIME, MONOTONIC (which on
/// Darwin keeps counting during sleep), MONOTONIC_RAW(_APPROX), UPTIME_RAW(_APPROX) and the CPU clocks.
@available(*, unavailable, message: "Linux-only: not in the Apple SDK <time.h>; use CLOCK_MONOTONIC")
public var CLOCK_BOOTTIME: Int32 { fatalError() }

/// Not among the open flags of xnu bsd/sys/fcntl.h (Darwin uses fcntl F_NOCACHE).
@available(*, unavailable, message: "Linux-only: not in xnu <sys/fcntl.h>; use fcntl(F_NOCACHE)")
public var O_DIRECT: Int32 { fatalError() }

/// Not among the open flags of xnu bsd/sys/fcntl.h.
@available(*, unavailable, message: "Linux-only: not in xnu <sys/fcntl.h>")
public var O_TMPFILE: Int32 { fatalError() }

/// Not among the open flags of xnu bsd/sys/fcntl.h.
@available(*, unavailable, message: "Linux-only: not in xnu <sys/fcntl.h>")
public var O_PATH: Int32 { fatalError() }

/// Not among the open flags of xnu bsd/sys/fcntl.h.
@available(*, unavailable, message: "Linux-only: not in xnu <sys/fcntl.h>")
public var O_NOATIME: Int32 { fatalError() }

/// Not declared by xnu bsd/sys/fcntl.h (Darwin's <fcntl.h>); Darwin preallocates with F_PREALLOCATE.
@available(*, unavailable, message: "Linux-only: not in xnu <sys/fcntl.h>; use fcntl(F_PREALLOCATE)")
public func posix_fallocate(_ fd: Int32, _ offset: off_t, _ len: off_t) -> Int32 { fatalError() }

/// Linux's fallocate(2); not declared by xnu bsd/sys/fcntl.h.
@available(*, unavailable, message: "Linux-only: not in xnu <sys/fcntl.h>; use fcntl(F_PREALLOCATE)")
public func fallocate(_ fd: Int32, _ mode: Int32, _ offset: off_t, _ len: off_t) -> Int32 { fatalError() }

/// A glibc extension; Darwin's <pthread.h> mutex types are NORMAL, ERRORCHECK, RECURSIVE, DEFAULT.
@available(*, unavailable, message: "glibc-only: not in the Apple SDK <pthread.h>")
public var PTHREAD_MUTEX_ADAPTIVE_NP: Int { fatalError() }
