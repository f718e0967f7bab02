/// The names in a queue's directory as one listing read them: open lists the directory once, under its
/// lock, and replay, the repairs and the engine all read this (QueueDirectory+Open.swift).
///
/// A repair that removes or creates a file says so (``removed(_:)``, ``created(_:)``), so that what
/// follows sees the directory as it is without listing it again.
struct QueueListing {
    /// The directory listed.
    let directory: String
    /// The entries' names, in the order the listing gave them.
    private(set) var names: [String]

    init(directory: String, names: [String]) {
        self.directory = directory
        self.names = names
    }

    /// Lists `directory`.
    static func read(_ directory: String, fileSystem: any FileSystem) throws -> QueueListing {
        QueueListing(directory: directory, names: try fileSystem.contentsOfDirectory(at: directory))
    }

    /// The log files (`wal-<16 hex digits>.log`), in sequence order; other names are not log files.
    var logFiles: [LogReplay.LogFile] {
        names.compactMap { name in
            QueueDirectoryLayout.logSequence(fromFileName: name)
                .map { LogReplay.LogFile(sequence: $0, path: directory + "/" + name) }
        }
        .sorted { $0.sequence < $1.sequence }
    }

    /// The paths of snapshots a compaction did not finish (`snap-*.tmp`), which open deletes.
    var unfinishedSnapshots: [String] {
        names.filter(QueueDirectoryLayout.isSnapshotTemp).map { directory + "/" + $0 }
    }

    /// The file at `path` (in this directory) was removed.
    mutating func removed(_ path: String) {
        let name = String(path.dropFirst(directory.count + 1))
        names.removeAll { $0 == name }
    }

    /// A file named `name` was created in this directory.
    mutating func created(_ name: String) {
        if !names.contains(name) { names.append(name) }
    }
}
