import Foundation

/// The file locks `/proc/locks` (Linux) lists on the files of one directory (as SpoolTests reads them: test
/// targets share no code). The process tests
/// view of who holds what.
enum ProcLocks {
    /// Whether the system has `/proc/locks` (the tests that read it are enabled only then).
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: "/proc/locks") }

    /// `(pid, inode)` of every lock in `/proc/locks` on `directory` or a file under it (a lock a
    /// process waits for, `->`, included).
    static func locks(in directory: String) throws -> [(pid: Int32, inode: String)] {
        var inodes: Set<String> = []
        let paths = [directory] + (FileManager.default.subpaths(atPath: directory) ?? []).map { directory + "/" + $0 }
        for path in paths {
            if let number = try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber {
                inodes.insert("\(number.uint64Value)")
            }
        }
        let text = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            // `N: POSIX ADVISORY WRITE pid major:minor:inode start end`
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let device = fields.firstIndex(where: { $0.split(separator: ":").count == 3 }), device > 0,
                let pid = Int32(fields[device - 1])
            else { return nil }
            let inode = String(fields[device].split(separator: ":")[2])
            return inodes.contains(inode) ? (pid, inode) : nil
        }
    }

    /// The locks of process `pid` on `directory` or a file under it.
    static func locks(of pid: Int32, in directory: String) throws -> [(pid: Int32, inode: String)] {
        try locks(in: directory).filter { $0.pid == pid }
    }
}
