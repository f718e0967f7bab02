// The C library, imported once per platform. Every other file that needs a
// system call imports it through `Platform` helpers or this module's re-export.
#if canImport(Darwin)
@_exported import Darwin
#elseif canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#endif

// `close` and `rename` are also names of methods in this module; these
// spell out the C functions.
@inline(__always) func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
