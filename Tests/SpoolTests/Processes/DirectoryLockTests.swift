import Foundation
import SpoolTestSupport
import Testing

@testable import Spool

/// The directory lock as another process sees it: the record lock on `LOCK` that a queue directory's holders share.
@Suite(.blocking) struct DirectoryLockTests {
    #if os(Linux)
        /// Whether a process other than this one could take an exclusive lock on `LOCK` now. An open
        /// file description lock (`F_OFD_GETLK`, Linux) conflicts with this process's own POSIX record
        /// locks, so the question can be asked without a second process. `fd` must stay open until the
        /// test ends: closing a descriptor of `LOCK` would itself drop this process's record locks.
        private func anotherProcessCouldLockExclusively(_ fd: Int32) throws -> Bool {
            var probe = Platform.wholeFileLock(exclusive: true)
            probe.l_pid = 0
            let openFileDescriptionGetLock: Int32 = 36  // F_OFD_GETLK
            #expect(fcntl(fd, openFileDescriptionGetLock, &probe) == 0)
            return probe.l_type == Int16(F_UNLCK)
        }

        /// Two shared holders in one process (two `inspect` calls at once) share the process's record
        /// lock on `LOCK`: when the first releases, the second must still hold it. Closing any descriptor
        /// of a file drops every POSIX record lock the process has on it, so each holder must not have
        /// its own descriptor.
        @Test func aSharedLockSurvivesTheReleaseOfAnotherSharedHolderInTheProcess() throws {
            let temp = TemporaryDirectory("spool-lock")
            defer { temp.cleanup() }
            let fileSystem = POSIXFileSystem()
            let probe = open(temp.path + "/" + QueueDirectoryLayout.lockFileName, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            #expect(probe >= 0)
            defer { close(probe) }
            let first = try fileSystem.lockDirectory(at: temp.path, exclusive: false)
            let second = try fileSystem.lockDirectory(at: temp.path, exclusive: false)
            #expect(try !anotherProcessCouldLockExclusively(probe))
            first.release()
            #expect(try !anotherProcessCouldLockExclusively(probe), "the second shared holder lost its lock")
            second.release()
            #expect(try anotherProcessCouldLockExclusively(probe))
            // And the registry is clean: an exclusive lock can be taken again, and refuses a shared one.
            let exclusive = try fileSystem.lockDirectory(at: temp.path, exclusive: true)
            #expect(try !anotherProcessCouldLockExclusively(probe))
            #expect(throws: SpoolError.self) { _ = try fileSystem.lockDirectory(at: temp.path, exclusive: false) }
            #expect(try !anotherProcessCouldLockExclusively(probe))
            exclusive.release()
            #expect(try anotherProcessCouldLockExclusively(probe))
        }
    #endif
}
