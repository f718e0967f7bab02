import Foundation
import Spool

/// The state of one benchmark run: the directory under test and the rows so far.
final class Context {
    let options: Options
    /// The directory every workload works in: made by this run inside `--dir` (or the
    /// working directory) and removed at its end.
    let directory: String
    private(set) var rows: [Row] = []

    init(options: Options) throws {
        self.options = options
        // By default under the working directory: the same file system as the checkout, not a tmpfs /tmp.
        let parent = options.directory ?? FileManager.default.currentDirectoryPath
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        let base = URL(fileURLWithPath: parent).standardizedFileURL.path
        var template = Array((base + "/.spool-bench-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("mkdtemp in \(base) failed: errno \(errno)")
        }
        directory = String(cString: made)
    }

    func add(_ row: Row) { rows.append(row) }

    /// The configuration every workload opens its queue with.
    var configuration: Configuration {
        var configuration = Configuration()
        if let chunk = options.preallocationChunk { configuration.preallocationChunk = chunk }
        configuration.sharing = options.sharing
        return configuration
    }

    /// A path for a workload's files; whatever was there is removed.
    func freshPath(_ name: String) -> String {
        let path = directory + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        return path
    }

    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Progress for people, on stderr so that `--json` output stays one object.
    func note(_ text: String) {
        FileHandle.standardError.write(Data("spool-bench: \(text)\n".utf8))
    }

    /// The baseline row of the preallocated pwrite + fdatasync, the floor.
    var floor: Row? { rows.first { $0.workload == "baseline" && $0.name.contains("preallocated") } }
    /// The baseline row of the plain append + fdatasync.
    var appendBaseline: Row? { rows.first { $0.workload == "baseline" && $0.name.contains("append") } }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
