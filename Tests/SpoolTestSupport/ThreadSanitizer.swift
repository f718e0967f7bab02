import Foundation

/// Whether this test process runs under the thread sanitizer (its runtime exports `__tsan_init`).
public let runsUnderThreadSanitizer: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
