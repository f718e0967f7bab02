@testable import Spool

/// A test file system that wraps the real one and changes only how files behave:
/// everything but ``FileSystem/openFile(at:mode:)`` is forwarded to `real`.
protocol RealFileSystemWrapper: FileSystem {
    var real: POSIXFileSystem { get }
}

extension RealFileSystemWrapper {
    func entryKind(at path: String) throws -> FileEntryKind? { try real.entryKind(at: path) }
    func createDirectory(at path: String) throws { try real.createDirectory(at: path) }
    func contentsOfDirectory(at path: String) throws -> [String] { try real.contentsOfDirectory(at: path) }
    func rename(from source: String, to destination: String) throws { try real.rename(from: source, to: destination) }
    func removeFile(at path: String) throws { try real.removeFile(at: path) }
    func syncDirectory(at path: String) throws { try real.syncDirectory(at: path) }
    func lockDirectory(at path: String, exclusive: Bool) throws -> any DirectoryLock {
        try real.lockDirectory(at: path, exclusive: exclusive)
    }
    func briefLock(at path: String) throws -> any BriefDirectoryLock { try real.briefLock(at: path) }
}
