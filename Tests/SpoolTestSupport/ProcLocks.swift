import Foundation

/// The file locks `/proc/locks` (Linux) lists on the files of one directory: the process tests'
/// view of who holds what, and the check behind "no lock between calls" (a suspended iOS process
/// that holds or waits for a lock in an App Group container is killed).
///
/// The kernel renders `/proc/locks` one page per `read`, walking the lock list again from a count
/// of lines for each page: while other threads take and give locks, a line can be skipped or shown
/// twice between pages. The tests share the machine with others that lock all the time, so a listing
/// counts only once two reads in a row agree on the lines asked for.
public enum ProcLocks {
    /// One lock: the process that holds (or waits for) it and the file's inode number.
    public struct Lock: Equatable, Sendable {
        /// The process that holds it, or waits for it (`->` lines).
        public var pid: Int32
        /// The inode number of the locked file, as `/proc/locks` prints it (decimal).
        public var inode: String
    }

    /// Whether the system has `/proc/locks` (the tests that read it are enabled only then).
    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: "/proc/locks") }

    /// Every lock in `/proc/locks` on `directory` or a file under it (a lock a process waits for,
    /// `->`, included).
    public static func locks(in directory: String) throws -> [Lock] {
        let paths = [directory] + (FileManager.default.subpaths(atPath: directory) ?? []).map { directory + "/" + $0 }
        return try locks(onFilesAt: paths)
    }

    /// The locks of process `pid` on `directory` or a file under it.
    public static func locks(of pid: Int32, in directory: String) throws -> [Lock] {
        try locks(in: directory).filter { $0.pid == pid }
    }

    /// Every lock in `/proc/locks` on the files at `paths` (those that exist), from two reads in a row
    /// that agree.
    public static func locks(onFilesAt paths: [String]) throws -> [Lock] {
        var inodes: Set<String> = []
        for path in paths {
            if let number = try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber {
                inodes.insert("\(number.uint64Value)")
            }
        }
        var previous = try read(inodes)
        for _ in 0..<agreementAttempts {
            let current = try read(inodes)
            if current == previous { return current }
            previous = current
        }
        throw ListingKeptChanging(attempts: agreementAttempts)
    }

    /// How many reads may follow the first before a listing that never settles is an error.
    static let agreementAttempts = 50

    /// Thrown when no two reads in a row of `/proc/locks` agreed.
    public struct ListingKeptChanging: Error, CustomStringConvertible {
        /// The reads made after the first.
        public var attempts: Int
        /// Says what happened.
        public var description: String { "/proc/locks changed between each of \(attempts) reads in a row" }
    }

    private static func read(_ inodes: Set<String>) throws -> [Lock] {
        let text = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            // `N: POSIX ADVISORY WRITE pid major:minor:inode start end`
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let device = fields.firstIndex(where: { $0.split(separator: ":").count == 3 }), device > 0,
                let pid = Int32(fields[device - 1])
            else { return nil }
            let inode = String(fields[device].split(separator: ":")[2])
            return inodes.contains(inode) ? Lock(pid: pid, inode: inode) : nil
        }
    }
}
