import Foundation

@testable import Spool

/// A file system in memory that knows what is durable, for simulated power loss.
///
/// Per file it keeps the durable bytes and the list of changes not yet synced
/// (writes, size changes); per directory, which entries are durable. A crash
/// image (``crashImage(_:)``) keeps everything durable, any chosen subset of each
/// file's unsynced changes (in order), and may tear the last surviving write:
/// cut at a byte, or at a 512-byte sector boundary with the later sectors
/// present and the earlier ones not. Creations, renames and removals survive
/// only if the directory was synced after them.
///
/// An *ordered sync* (``StorageFile/orderedSync()``) is Apple's `F_BARRIERFSYNC`: it makes nothing
/// durable, it puts a barrier after every change issued so far, in every file (the drive keeps
/// the order of what it was sent). Each change is counted in the *epoch* of the barriers before
/// it. A power loss keeps the changes before some barrier — ``crashImage(_:cut:)``'s `cut`: every
/// change of an earlier epoch, in every file, never a later epoch without an earlier one — and
/// any subset of epoch `cut`'s changes, torn as above; later epochs are lost. Once a barrier was
/// made, a data sync, full sync or directory sync is Apple's `F_FULLFSYNC`, which flushes the
/// drive's cache: every change before the last barrier, in every file, becomes durable with it.
/// Without ordered syncs (epoch 0 throughout) all of this is as before: each file's sync is its own.
///
/// Every mutating call is an I/O step. ``crash(atStep:)`` makes the disk fail
/// that step and every later one with `EIO`, as a machine that lost power would
/// never complete them; ``inject(_:)`` makes a step fail with a chosen errno
/// without crashing.
final class SimulatedDisk: FileSystem, @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.

    enum Change: Equatable {
        case write(offset: Int, bytes: [UInt8])
        case resize(Int)
    }

    final class Inode {
        var durable: [UInt8]
        var pending: [Change] = []
        /// The epoch of each of `pending`: how many ordered syncs (in any file) came before it.
        var epochs: [Int] = []
        var current: [UInt8]
        init(_ bytes: [UInt8] = []) {
            durable = bytes
            current = bytes
        }
    }

    /// A failure to inject at the next matching step.
    enum Fault: Equatable {
        case write(Int32)
        case shortWrite(Int32)
        case sync(Int32)
    }

    private let lock = NSLock()
    private var entries: [String: Inode] = [:]
    private var durableEntries: [String: Inode] = [:]
    private var directories: Set<String> = ["/"]
    private var durableDirectories: Set<String> = ["/"]
    private var locks: [String: Int] = [:]  // path → holders (−1: exclusive)
    /// Paths whose `LOCK` a brief holder (a `.shared` owner) holds now. Brief holders of one path
    /// behave as holders in different processes: they exclude each other only while one holds it.
    private var briefHeld: Set<String> = []
    /// The files whose lock a handle holds (``StorageFile/tryLockFile()``); locks do not survive a crash.
    private var fileLocks: Set<ObjectIdentifier> = []
    private var faults: [Fault] = []
    /// Ordered syncs made so far: the epoch of the next change.
    private var barrierCount = 0

    /// I/O steps taken so far.
    private(set) var steps = 0
    private var crashStep: Int?
    private(set) var hasCrashed = false

    init() {}

    // MARK: Control

    /// Fails step `step` (1-based) and every later step with EIO.
    func crash(atStep step: Int?) { lock.withLock { crashStep = step } }

    func inject(_ fault: Fault) { lock.withLock { faults.append(fault) } }

    /// Faults injected and not yet hit.
    var pendingFaults: Int { lock.withLock { faults.count } }

    func clearFaults() { lock.withLock { faults = [] } }

    /// Counts one I/O step; throws when the machine has "lost power".
    private func step(_ operation: String, _ path: String) throws {
        steps += 1
        if let crashStep, steps >= crashStep { hasCrashed = true }
        if hasCrashed { throw SpoolError.system(operation + " (power lost)", errno: EIO, path: path) }
    }

    /// How many unsynced changes each file has, by path (durable name or not).
    var pendingChanges: [(path: String, changes: [Change])] { pendingChanges(atEpoch: nil) }

    /// The unsynced changes of epoch `epoch` (all of them for `nil`) of each file, by path.
    func pendingChanges(atEpoch epoch: Int?) -> [(path: String, changes: [Change])] {
        lock.withLock {
            entries.keys.sorted().compactMap { path in
                let inode = entries[path]!
                let changes = inode.pending.indices.filter { epoch == nil || inode.epochs[$0] == epoch }.map {
                    inode.pending[$0]
                }
                return changes.isEmpty ? nil : (path, changes)
            }
        }
    }

    /// The cuts a power loss may make now (``crashImage(_:cut:)``): from the oldest epoch a file
    /// holds unsynced changes of, to the current one (just `0...0` without ordered syncs).
    var orderedCuts: ClosedRange<Int> {
        lock.withLock {
            let oldest = entries.values.compactMap { $0.epochs.min() }.min() ?? barrierCount
            return min(oldest, barrierCount)...barrierCount
        }
    }

    /// Whether some file holds changes an ordered sync acknowledged that a power loss may still drop.
    var holdsOrderedChanges: Bool {
        lock.withLock { entries.values.contains { $0.epochs.contains { $0 < barrierCount } } }
    }

    /// How the unsynced changes of one file fare in a crash.
    struct Survival: Equatable, CustomStringConvertible {
        /// Bit i set: change i survives (i counts the file's changes of the cut's epoch).
        var mask: UInt64
        /// How the last surviving write is torn.
        var tear: Tear

        enum Tear: Equatable {
            case none
            /// Only the first `count` bytes of the write arrived.
            case prefix(Int)
            /// Bytes from sector boundary `from` (relative to the write) on arrived; earlier ones did not.
            case laterSectors(from: Int)
        }

        var description: String { "mask \(String(mask, radix: 2)) tear \(tear)" }
        static let nothing = Survival(mask: 0, tear: .none)
    }

    /// The disk as it would be after power loss now, with `survival` per file path
    /// (files not named lose every unsynced change of the cut's epoch), the changes of earlier
    /// epochs than `cut` kept and those of later ones lost (`cut`: the current epoch by default,
    /// so that everything an ordered sync acknowledged survives).
    func crashImage(_ survival: [String: Survival] = [:], cut: Int? = nil) -> SimulatedDisk {
        lock.withLock {
            let cut = cut ?? barrierCount
            let image = SimulatedDisk()
            image.directories = durableDirectories
            image.durableDirectories = durableDirectories
            var copies: [ObjectIdentifier: Inode] = [:]
            for (path, inode) in durableEntries {
                if copies[ObjectIdentifier(inode)] == nil {
                    let currentPath = entries.first(where: { $0.value === inode })?.key ?? path
                    copies[ObjectIdentifier(inode)] = Inode(
                        Self.survivingBytes(inode, survival[currentPath] ?? .nothing, cut: cut))
                }
                image.entries[path] = copies[ObjectIdentifier(inode)]
                image.durableEntries[path] = copies[ObjectIdentifier(inode)]
            }
            return image
        }
    }

    private static func survivingBytes(_ inode: Inode, _ survival: Survival, cut: Int) -> [UInt8] {
        var bytes = inode.durable
        // Every change of an earlier epoch than the cut, then the chosen ones of the cut's epoch, in order.
        let atCut = inode.pending.indices.filter { inode.epochs[$0] == cut }
        let chosenAtCut = atCut.indices.filter { $0 < 64 && survival.mask & (1 << UInt64($0)) != 0 }.map { atCut[$0] }
        let chosen = (inode.pending.indices.filter { inode.epochs[$0] < cut } + chosenAtCut).sorted()
        for (position, index) in chosen.enumerated() {
            let isLast = position == chosen.count - 1 && inode.epochs[index] == cut
            switch inode.pending[index] {
            case .resize(let size):
                resize(&bytes, to: size)
            case .write(let offset, let data):
                var range = 0..<data.count
                if isLast {
                    switch survival.tear {
                    case .none: break
                    case .prefix(let count): range = 0..<min(count, data.count)
                    case .laterSectors(let from): range = min(from, data.count)..<data.count
                    }
                }
                if case .laterSectors = survival.tear, isLast, offset + data.count > bytes.count {
                    // The sectors before arrived as nothing: the file still ends where the write ends.
                    resize(&bytes, to: offset + range.lowerBound)
                }
                write(&bytes, Array(data[range]), at: offset + range.lowerBound)
            }
        }
        return bytes
    }

    private static func resize(_ bytes: inout [UInt8], to size: Int) {
        if size < bytes.count {
            bytes.removeSubrange(size...)
        } else {
            bytes += [UInt8](repeating: 0, count: size - bytes.count)
        }
    }

    private static func write(_ bytes: inout [UInt8], _ data: [UInt8], at offset: Int) {
        if offset + data.count > bytes.count { resize(&bytes, to: offset + data.count) }
        bytes.replaceSubrange(offset..<(offset + data.count), with: data)
    }

    // MARK: Direct access for tests

    func contents(of path: String) -> [UInt8]? { lock.withLock { entries[path]?.current } }

    /// Replaces a file's bytes, durably (for damage tests).
    func setContents(of path: String, _ bytes: [UInt8]) {
        lock.withLock {
            let inode = entries[path] ?? Inode()
            inode.durable = bytes
            inode.current = bytes
            inode.pending = []
            inode.epochs = []
            entries[path] = inode
            durableEntries[path] = inode
        }
    }

    // MARK: FileSystem

    private func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    func entryKind(at path: String) throws -> FileEntryKind? {
        lock.withLock {
            if directories.contains(path) { return .directory }
            return entries[path] == nil ? nil : .file
        }
    }

    func createDirectory(at path: String) throws {
        try lock.withLock {
            try step("mkdir", path)
            guard directories.contains(parent(of: path)) else {
                throw SpoolError.system("mkdir", errno: ENOENT, path: path)
            }
            guard !directories.contains(path), entries[path] == nil else {
                throw SpoolError.system("mkdir", errno: EEXIST, path: path)
            }
            directories.insert(path)
        }
    }

    func contentsOfDirectory(at path: String) throws -> [String] {
        try lock.withLock {
            guard directories.contains(path) else { throw SpoolError.system("opendir", errno: ENOENT, path: path) }
            let prefix = path == "/" ? "/" : path + "/"
            let names = (Array(entries.keys) + Array(directories)).filter { $0.hasPrefix(prefix) && $0 != path }
                .map { String($0.dropFirst(prefix.count)) }.filter { !$0.contains("/") }
            return names
        }
    }

    func openFile(at path: String, mode: FileOpenMode) throws -> any StorageFile {
        try lock.withLock {
            switch mode {
            case .readOnly, .readWrite:
                guard let inode = entries[path] else { throw SpoolError.system("open", errno: ENOENT, path: path) }
                return SimulatedFile(disk: self, inode: inode, path: path)
            case .createNew:
                try step("open O_CREAT", path)
                guard directories.contains(parent(of: path)) else {
                    throw SpoolError.system("open", errno: ENOENT, path: path)
                }
                guard entries[path] == nil else { throw SpoolError.system("open", errno: EEXIST, path: path) }
                let inode = Inode()
                entries[path] = inode
                return SimulatedFile(disk: self, inode: inode, path: path)
            }
        }
    }

    func rename(from source: String, to destination: String) throws {
        try lock.withLock {
            try step("rename", source)
            guard let inode = entries[source] else { throw SpoolError.system("rename", errno: ENOENT, path: source) }
            entries[source] = nil
            entries[destination] = inode
        }
    }

    func removeFile(at path: String) throws {
        try lock.withLock {
            try step("unlink", path)
            guard entries.removeValue(forKey: path) != nil else {
                throw SpoolError.system("unlink", errno: ENOENT, path: path)
            }
        }
    }

    func syncDirectory(at path: String) throws {
        try lock.withLock {
            try step("fsync directory", path)
            for child in directories where parent(of: child) == path && child != path {
                durableDirectories.insert(child)
            }
            for child in durableDirectories
            where parent(of: child) == path && child != path && !directories.contains(child) {
                durableDirectories.remove(child)
            }
            for (child, inode) in entries where parent(of: child) == path { durableEntries[child] = inode }
            for child in durableEntries.keys where parent(of: child) == path && entries[child] == nil {
                durableEntries[child] = nil
            }
            flushBarrierGroups()
        }
    }

    /// After ordered syncs, a data, full or directory sync is `F_FULLFSYNC`, which flushes the
    /// drive's cache: every change issued before the last barrier, in every file, becomes durable.
    /// Call with `lock` held.
    private func flushBarrierGroups() {
        guard barrierCount > 0 else { return }
        var seen = Set<ObjectIdentifier>()
        for inode in Array(entries.values) + Array(durableEntries.values)
        where seen.insert(ObjectIdentifier(inode)).inserted {
            let flushed = inode.pending.indices.filter { inode.epochs[$0] < barrierCount }
            guard !flushed.isEmpty else { continue }
            for index in flushed {
                switch inode.pending[index] {
                case .resize(let size): Self.resize(&inode.durable, to: size)
                case .write(let offset, let data): Self.write(&inode.durable, data, at: offset)
                }
            }
            let kept = inode.pending.indices.filter { inode.epochs[$0] >= barrierCount }
            inode.pending = kept.map { inode.pending[$0] }
            inode.epochs = kept.map { inode.epochs[$0] }
        }
    }

    func lockDirectory(at path: String, exclusive: Bool) throws -> any DirectoryLock {
        try lock.withLock {
            let holders = locks[path] ?? 0
            if holders == -1 || (exclusive && holders > 0) || briefHeld.contains(path) {
                throw SpoolError(
                    .locked, "the queue is open elsewhere", path: path, errno: EWOULDBLOCK, operation: "flock")
            }
            locks[path] = exclusive ? -1 : holders + 1
            return SimulatedLock { [weak self] in
                self?.lock.withLock {
                    let count = self?.locks[path] ?? 0
                    self?.locks[path] = (count == -1 || count == 1) ? nil : count - 1
                }
            }
        }
    }

    func briefLock(at path: String) throws -> any BriefDirectoryLock {
        SimulatedBriefLock(disk: self, path: path)
    }

    /// One brief attempt: refused while an exclusive holder or another brief holder has `path`.
    fileprivate func tryBriefLock(_ path: String) -> Bool {
        lock.withLock {
            if locks[path] == -1 || briefHeld.contains(path) { return false }
            briefHeld.insert(path)
            return true
        }
    }

    fileprivate func briefUnlock(_ path: String) {
        _ = lock.withLock { briefHeld.remove(path) }
    }

    // MARK: File operations (called by SimulatedFile)

    fileprivate func read(_ inode: Inode, at offset: Int64, count: Int) -> [UInt8] {
        lock.withLock {
            let start = min(Int(offset), inode.current.count)
            return Array(inode.current[start..<min(start + count, inode.current.count)])
        }
    }

    fileprivate func write(_ inode: Inode, _ bytes: [UInt8], at offset: Int64, path: String) throws {
        try lock.withLock {
            try step("pwrite", path)
            var data = bytes
            var failure: SpoolError?
            if let index = faults.firstIndex(where: { if case .sync = $0 { return false } else { return true } }) {
                let taken = faults.remove(at: index)
                switch taken {
                case .write(let code): throw SpoolError.system("pwrite", errno: code, path: path, offset: offset)
                case .shortWrite(let code):
                    data = Array(bytes.prefix(bytes.count / 2))
                    failure = SpoolError.system("pwrite", errno: code, path: path, offset: offset + Int64(data.count))
                case .sync: break
                }
            }
            inode.pending.append(.write(offset: Int(offset), bytes: data))
            inode.epochs.append(barrierCount)
            Self.write(&inode.current, data, at: Int(offset))
            if let failure { throw failure }
        }
    }

    fileprivate func resize(_ inode: Inode, to size: Int64, path: String, operation: String) throws {
        try lock.withLock {
            try step(operation, path)
            inode.pending.append(.resize(Int(size)))
            inode.epochs.append(barrierCount)
            Self.resize(&inode.current, to: Int(size))
        }
    }

    fileprivate func sync(_ inode: Inode, path: String) throws {
        try lock.withLock {
            try step("fdatasync", path)
            if let index = faults.firstIndex(where: { if case .sync = $0 { return true } else { return false } }),
                case .sync(let code) = faults.remove(at: index)
            {
                // The kernel may have dropped the dirty pages: what survives is unknown, so keep them pending.
                throw SpoolError.system("fdatasync", errno: code, path: path)
            }
            inode.durable = inode.current
            inode.pending = []
            inode.epochs = []
            flushBarrierGroups()
        }
    }

    fileprivate func orderedSync(_ inode: Inode, path: String) throws {
        try lock.withLock {
            try step("fcntl(F_BARRIERFSYNC)", path)
            if let index = faults.firstIndex(where: { if case .sync = $0 { return true } else { return false } }),
                case .sync(let code) = faults.remove(at: index)
            {
                throw SpoolError.system("fcntl(F_BARRIERFSYNC)", errno: code, path: path)
            }
            // The drive orders what came before after everything issued so far, in every file.
            barrierCount += 1
        }
    }

    fileprivate func size(_ inode: Inode) -> Int64 { lock.withLock { Int64(inode.current.count) } }

    fileprivate func tryLockFile(_ inode: Inode) -> Bool {
        lock.withLock { fileLocks.insert(ObjectIdentifier(inode)).inserted }
    }

    fileprivate func unlockFile(_ inode: Inode) { _ = lock.withLock { fileLocks.remove(ObjectIdentifier(inode)) } }

    fileprivate func linkCount(_ inode: Inode) -> Int {
        lock.withLock { entries.values.filter { $0 === inode }.count }
    }
}

/// An open file on a ``SimulatedDisk``.
final class SimulatedFile: StorageFile, @unchecked Sendable {
    // @unchecked: all state lives in the disk, behind its lock.
    let disk: SimulatedDisk
    let inode: SimulatedDisk.Inode
    let path: String
    init(disk: SimulatedDisk, inode: SimulatedDisk.Inode, path: String) {
        self.disk = disk
        self.inode = inode
        self.path = path
    }
    func read(at offset: Int64, count: Int) throws -> [UInt8] { disk.read(inode, at: offset, count: count) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try disk.write(inode, Array(bytes), at: offset, path: path)
    }
    func size() throws -> Int64 { disk.size(inode) }
    func syncData() throws { try disk.sync(inode, path: path) }
    func orderedSync() throws { try disk.orderedSync(inode, path: path) }
    func truncate(to size: Int64) throws { try disk.resize(inode, to: size, path: path, operation: "ftruncate") }
    func preallocate(offset: Int64, length: Int64) throws {
        let end = offset + length
        // Linux reserves by writing zeroes over the whole range (Platform.preallocate): a reservation
        // that reached back over bytes already there would destroy them, which fallocate would not.
        let overlapped = disk.read(inode, at: offset, count: Int(length))
        precondition(
            overlapped.allSatisfy { $0 == 0 },
            "preallocate(offset: \(offset)) reaches back over \(overlapped.count) bytes that are not zero")
        if end > disk.size(inode) { try disk.resize(inode, to: end, path: path, operation: "fallocate") }
    }
    func close() { unlockIfHeld() }
    private let holdsLock = Locked(false)
    func tryLockFile() throws -> Bool {
        guard disk.tryLockFile(inode) else { return false }
        holdsLock.withLock { $0 = true }
        return true
    }
    func unlockFile() { unlockIfHeld() }
    private func unlockIfHeld() {
        let held = holdsLock.withLock { held -> Bool in
            defer { held = false }
            return held
        }
        if held { disk.unlockFile(inode) }
    }
    func linkCount() throws -> Int { disk.linkCount(inode) }
}

/// A `.shared` owner's registration on a ``SimulatedDisk`` directory.
final class SimulatedBriefLock: BriefDirectoryLock, @unchecked Sendable {
    // @unchecked: immutable; the disk guards the lock's state.
    private let disk: SimulatedDisk
    private let path: String
    init(disk: SimulatedDisk, path: String) {
        self.disk = disk
        self.path = path
    }
    func tryLock() throws -> Bool { disk.tryBriefLock(path) }
    func unlock() { disk.briefUnlock(path) }
    func release() {}
}

final class SimulatedLock: DirectoryLock, @unchecked Sendable {
    // @unchecked: `release` runs its closure once, guarded by `released`.
    private let onRelease: () -> Void
    private let released = Locked(false)
    init(_ onRelease: @escaping () -> Void) { self.onRelease = onRelease }
    func release() {
        let first = released.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { onRelease() }
    }
    deinit { release() }
}

extension NSLock {
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
