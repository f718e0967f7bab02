/// Reading a queue's log without any lock, while its owner (in this process or another) may append,
/// roll over, compact or open it meanwhile: the one rule every lock-free reader follows
/// (``QueueProducer``'s reads, ``LogInspector`` and so the read-only `spool` commands).
///
/// A read lists the log files and replays them read-only (strict mode), exactly as open does, but
/// changes nothing on disk: no torn tail is cut, nothing is created, removed or locked. Why the
/// view it gives is one the log really passed through, or is detected as not one and read again:
///
/// * The owner only appends whole commit groups after complete ones; a group in flight at the end
///   of the active file is a *torn tail* to the reader (FORMAT.md, *Reading a log*, rule 2): the
///   reader stops there and the owner's write goes on. What the reader returns is the state after
///   the last intact record it read: a prefix of the log.
/// * A file before the last is complete before the next one exists (*Roll-over*, *Snapshots and
///   compaction*), and a snapshot is complete before it gets its name; a file opened before a
///   compaction removed it is still read whole (an open descriptor keeps it).
/// * A file that vanished between the listing and its open (a compaction, or an open removing
///   obsolete files or a torn creation) fails with `ENOENT`: the read starts again from the listing.
/// * Concurrent reads of a file being written are not atomic: a read can copy an earlier group's
///   pages before that group's write and a later group's pages after it, and so see damage followed
///   by an intact later group, which strict replay calls `corruption`. A later attempt, made after
///   both writes returned, cannot see that again; so a corruption is reported only when two attempts
///   in a row find the same one (the same message, file and offset): damage that stays is damage.
/// * Every checksum is verified as at open, and payloads read later are checked against the
///   checksum replay recorded (``PayloadLocation/checkRead(_:inQueue:)``): no unverified byte is
///   handed out.
///
/// After ``lockFreeReadAttempts`` attempts that each met a change, the read fails with
/// ``SpoolError/Code/locked`` naming the file of the last one.
extension QueueDirectory {
    /// Attempts a lock-free read makes before it gives up with ``SpoolError/Code/locked``.
    static let lockFreeReadAttempts = 8

    /// Runs `attempt` with a read-only replay of the directory, again from the start (at most
    /// ``lockFreeReadAttempts`` times) while it fails in a way a concurrent writer explains: a file
    /// that vanished, or a corruption not found twice in a row. `attempt` must be safe to run again.
    ///
    /// - Throws: ``SpoolError/Code/queueNotFound`` or ``SpoolError/Code/notAQueue`` when the
    ///   directory holds no queue; ``SpoolError/Code/newerFormat``; a corruption found twice in a row;
    ///   ``SpoolError/Code/locked`` after the attempts; what `attempt` throws otherwise.
    func readWithoutLock<T>(mode: RecoveryMode = .strict, _ attempt: (LogReplay) throws -> T) throws -> T {
        guard try checkIsQueue(mayCreate: false) else {
            throw SpoolError(.queueNotFound, "the directory holds no queue", path: path)
        }
        let replay = LogReplay(directory: path, fileSystem: fileSystem, mode: mode)
        var previous: SpoolError?
        for _ in 0..<Self.lockFreeReadAttempts {
            do {
                // As open does: a file of a newer version anywhere (even one replay would not read) refuses the queue.
                try replay.refuseNewerFiles()
                return try attempt(replay)
            } catch let error as SpoolError where Self.mayBeAConcurrentChange(error) {
                if error.code == .corruption, let previous, Self.same(previous, error) { throw error }
                previous = error
            }
        }
        let last = previous!
        throw SpoolError(
            .locked,
            "the log changed under each of \(Self.lockFreeReadAttempts) read attempts (its owner appended, "
                + "rolled over or compacted meanwhile); the last attempt found: \(last.message)",
            path: last.path ?? path, offset: last.offset, errno: last.errno, operation: last.operation)
    }

    /// Replays read-only without a lock (``readWithoutLock(mode:_:)``) and runs `body` with the result;
    /// `body` runs again when the files changed under it (a payload's file removed, say).
    func inspectWithoutLock<T>(mode: RecoveryMode = .strict, then body: (LogReplay.Outcome) throws -> T) throws -> T {
        try readWithoutLock(mode: mode) { replay in try body(try replay.run()) }
    }

    /// A failure a writer working meanwhile explains: a file that vanished (`ENOENT`), or corruption.
    static func mayBeAConcurrentChange(_ error: SpoolError) -> Bool {
        guard error.code != .queueNotFound else { return false }
        return error.errno == Platform.Errno.noSuchEntry || error.code == .corruption
    }

    private static func same(_ one: SpoolError, _ other: SpoolError) -> Bool {
        one.code == other.code && one.message == other.message && one.path == other.path
            && one.offset == other.offset
    }
}
