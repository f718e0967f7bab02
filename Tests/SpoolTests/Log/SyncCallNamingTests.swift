import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// A failed sync's error names the call that ran, as ``Platform`` decided it (`fdatasync` on
/// Linux; `fcntl(F_FULLFSYNC)`, or the `fsync` it falls back to, on Apple platforms), never a
/// name written again at the call site.
@Suite(.blocking) struct SyncCallNamingTests {
    /// A descriptor no sync accepts: the read end of a pipe (EINVAL).
    private func withPipeFile(_ body: (POSIXFile, Int32) throws -> Void) throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[1]) }
        let file = POSIXFile(fd: ends[0], path: "pipe")
        defer { file.close() }
        try body(file, ends[0])
    }

    @Test func aFailedDataSyncNamesThePlatformsCall() throws {
        try withPipeFile { file, fd in
            let expected = try #require(Platform.syncData(fd))
            let error = try #require(throws: SpoolError.self) { try file.syncData() }
            #expect(error.operation == expected.call && error.errno == expected.errno, "\(error)")
            #if canImport(Darwin)
                #expect(["fcntl(F_FULLFSYNC)", "fsync"].contains(expected.call))
            #else
                #expect(expected.call == "fdatasync")
            #endif
        }
    }

    @Test func aFailedFullSyncNamesThePlatformsCall() throws {
        try withPipeFile { file, fd in
            let expected = try #require(Platform.fullSync(fd))
            let error = try #require(throws: SpoolError.self) { try file.fullSync() }
            #expect(error.operation == expected.call && error.errno == expected.errno, "\(error)")
            #if canImport(Darwin)
                #expect(["fcntl(F_FULLFSYNC)", "fsync"].contains(expected.call))
            #else
                #expect(expected.call == "fsync")
            #endif
        }
    }
}
