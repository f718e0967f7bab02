@testable import Spool

/// A test file system over a ``SimulatedDisk`` that changes one or two calls: every call it does not
/// implement itself is forwarded to `disk`.
protocol SimulatedDiskWrapper: FileSystem {
    var disk: SimulatedDisk { get }
}

extension SimulatedDiskWrapper {
    func entryKind(at path: String) throws -> FileEntryKind? { try disk.entryKind(at: path) }
    func createDirectory(at path: String) throws { try disk.createDirectory(at: path) }
    func contentsOfDirectory(at path: String) throws -> [String] { try disk.contentsOfDirectory(at: path) }
    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        try disk.openFile(at: path, mode: mode)
    }
    func rename(from source: String, to destination: String) throws { try disk.rename(from: source, to: destination) }
    func removeFile(at path: String) throws { try disk.removeFile(at: path) }
    func syncDirectory(at path: String) throws { try disk.syncDirectory(at: path) }
    func lockDirectory(at path: String, exclusive: Bool) throws -> any DirectoryLock {
        try disk.lockDirectory(at: path, exclusive: exclusive)
    }
    func briefLock(at path: String) throws -> any BriefDirectoryLock { try disk.briefLock(at: path) }
}
