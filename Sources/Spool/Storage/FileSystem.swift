/// The file-system operations the engine uses, and nothing more.
///
/// Production code uses ``POSIXFileSystem``; tests substitute a simulated disk
/// that can drop unsynced writes, tear them, or fail any call with an errno.
/// Every method throws a ``SpoolError`` that names the operation, the path and
/// the errno.
protocol FileSystem: Sendable {
    /// What is at `path`, without following a symbolic link; `nil` when nothing is.
    func entryKind(at path: String) throws -> FileEntryKind?
    /// Creates a directory with mode 0700. Its parent must exist.
    func createDirectory(at path: String) throws
    /// The names in a directory, without `.` and `..`.
    func contentsOfDirectory(at path: String) throws -> [String]
    /// Opens a file, never following a symbolic link.
    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile
    /// Renames a file; durable only after ``syncDirectory(at:)``.
    func rename(from source: String, to destination: String) throws
    /// Removes a file; durable only after ``syncDirectory(at:)``.
    func removeFile(at path: String) throws
    /// Makes creations, renames and removals in a directory durable (a *directory sync*,
    /// ``Platform/syncDirectory(_:)``).
    func syncDirectory(at path: String) throws
    /// Takes an advisory lock on the directory, failing at once with
    /// ``SpoolError/Code/locked`` when another holder has it. An exclusive lock creates
    /// `LOCK` when it is missing; a shared one (read-only inspection) never creates or
    /// writes anything: without `LOCK` it keeps out only other holders in this process.
    func lockDirectory(at path: String, exclusive: Bool) throws -> any DirectoryLock
    /// Registers a ``ProcessSharing/shared`` owner of the directory in this process and opens `LOCK`
    /// (creating it), holding no lock: the handle takes the exclusive lock briefly, never waiting.
    /// Fails with ``SpoolError/Code/locked`` while an exclusive or read-only holder in this process has
    /// the directory (as ``lockDirectory(at:exclusive:)`` fails while brief holders are registered).
    func briefLock(at path: String) throws -> any BriefDirectoryLock
}

/// What a directory entry is.
enum FileEntryKind: Sendable, Equatable {
    case file
    case directory
    case symbolicLink
    case other
}

/// How a file is opened.
enum FileOpenMode: Sendable, Equatable {
    /// Reading only; the file must exist.
    case readOnly
    /// Reading and writing; the file must exist.
    case readWrite
    /// Reading and writing a file that must not exist yet; created with mode 0600.
    case createNew
}

/// An open file. Reads and writes are positional, so one handle can serve a
/// writer and concurrent readers.
protocol StorageFile: AnyObject, Sendable {
    /// The path the file was opened at, for error messages.
    var path: String { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int) throws -> [UInt8]
    /// Writes every byte at `offset`, looping over short writes.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws
    /// The file's size in bytes.
    func size() throws -> Int64
    /// A *data sync*: flushes the file's data to stable storage, the bytes written
    /// and the metadata needed to read them back (``Platform/syncData(_:)`` says
    /// which call that is on each system).
    func syncData() throws
    /// An *ordered sync* (``Durability/ordered``): the bytes written so far reach the disk before
    /// any written later, surviving a crash of the app or the kernel; a power loss may drop them,
    /// but only with everything after them (``Platform/orderedSync(_:)`` says which call it is).
    func orderedSync() throws
    /// A *full sync*: flushes the file's data and all of its metadata, allocation
    /// included (``Platform/fullSync(_:)``). Called once after ``preallocate(offset:length:)``,
    /// so that later writes inside the reserved range need only ``syncData()``.
    func fullSync() throws
    /// Sets the file's size.
    func truncate(to size: Int64) throws
    /// Reserves space so later writes in the range need no size change.
    func preallocate(offset: Int64, length: Int64) throws
    /// Closes the handle; further calls fail.
    func close()
    /// Tries to take an exclusive lock on the file without waiting: `false` when another holder
    /// (in this process or another) has it. Held until ``unlockFile()`` or ``close()``. Producer
    /// inbox files are locked only around one write and sync, never between calls.
    func tryLockFile() throws -> Bool
    /// Gives back the lock ``tryLockFile()`` took.
    func unlockFile()
    /// How many directory entries name the file: 0 once it was removed.
    func linkCount() throws -> Int
    /// Sets the file's times to now, syncing nothing: on Linux, what `inotify` reports (`IN_ATTRIB`) to
    /// an owner watching a producer's inbox file, after the producer unlocked it. Best effort.
    func touch()
}

extension StorageFile {
    /// A file no one watches (a simulated disk) has no times to change.
    func touch() {}

    /// A file whose ``syncData()`` already makes everything durable (a simulated
    /// disk, for instance) needs no separate full sync.
    func fullSync() throws { try syncData() }

    /// A file that models no ordered sync of its own makes a data sync, which is stronger.
    func orderedSync() throws { try syncData() }

    /// Reads the whole file (offset 0 to ``size()``), then calls `body` with its bytes.
    func withContents<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let bytes = try read(at: 0, count: Int(try size()))
        return try bytes.withUnsafeBytes(body)
    }

    /// Writes an array's bytes at `offset`.
    func write(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// The sync an acknowledgement waits for at `durability`: a data sync (``Durability/full``) or
    /// an ordered one (``Durability/ordered``). The log's commits and the producers' inbox writes
    /// both sync through here.
    func sync(_ durability: Durability) throws {
        switch durability {
        case .full: try syncData()
        case .ordered: try orderedSync()
        }
    }
}

/// A held directory lock, released by ``release()`` or when the value is freed.
protocol DirectoryLock: AnyObject, Sendable {
    func release()
}

/// A ``ProcessSharing/shared`` owner's registration on a queue directory: it holds no lock until
/// ``tryLock()`` takes one, around one short write and sync.
protocol BriefDirectoryLock: DirectoryLock {
    /// One attempt at the exclusive lock, never waiting: `false` when another holder has it (another
    /// process's record lock on `LOCK`, or another brief holder of the directory in this process).
    func tryLock() throws -> Bool
    /// Gives back the lock ``tryLock()`` took.
    func unlock()
}
