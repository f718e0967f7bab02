/// Recognising a snapshot by its first record, and naming the damage of a lowest file that may have been one
/// (FORMAT.md, *Snapshots and compaction*, *File numbers*).
extension LogReplay {
    /// Whether the file is a snapshot: its first record holds `snapshot`, alone or followed by
    /// `snapshot_extent`.
    /// A file that cannot be read as one is not one (replay then judges it as a log file).
    ///
    /// - Throws: `newerFormat` when the first record is intact but its body has a newer version:
    ///   a newer build may have written a snapshot this build cannot recognise, and judging the file
    ///   as a plain log file would take it for corruption (strict) or skip its records (salvage).
    func isSnapshot(_ logFile: LogFile) throws -> Bool {
        guard let file = try? fileSystem.openFile(at: logFile.path, mode: .readOnly) else { return false }
        defer { file.close() }
        guard let head = try? file.read(at: 0, count: LogFormat.longestFileHeaderSize + LogFormat.frameHeaderSize),
            case .success(let header) = head.withUnsafeBytes({ FileHeader.decode($0) }),
            head.count >= header.size + LogFormat.frameHeaderSize
        else { return false }
        let start = header.size
        let length = head.withUnsafeBytes { RecordFrame.declaredBodyLength($0, frameAt: start) }
        // This build's snapshot record is a few dozen bytes; a newer one may be longer, and its
        // version is only trusted from an intact frame, so a bounded first frame is read whole.
        guard length <= Self.firstFrameReadLimit,
            let whole = try? file.read(at: 0, count: RecordFrame.end(ofFrameAt: start, bodyLength: length))
        else {
            return false
        }
        return try whole.withUnsafeBytes { raw throws -> Bool in
            guard
                case .success(let found) = RecordFrame.parse(
                    raw, at: start, seed: RecordFrame.checksumSeed(instanceID: header.instanceID))
            else {
                return false
            }
            let operations: [LogOperation]
            do {
                operations = try TransactionCodec.decode(
                    UnsafeRawBufferPointer(rebasing: raw[found.bodyRange]),
                    fileSequence: logFile.sequence,
                    bodyOffset: Int64(found.bodyRange.lowerBound))
            } catch TransactionCodec.Failure.newerBodyVersion(let version) {
                throw Self.newerRecordError(
                    lsn: found.header.lsn, version: version, path: logFile.path, offset: found.offset)
            } catch {
                return false
            }
            // `snapshot`, alone or followed by `snapshot_extent` (FORMAT.md, *Snapshots and compaction*).
            guard case .snapshot = operations.first else { return false }
            if operations.count == 1 { return true }
            guard operations.count == 2, case .snapshotExtent = operations[1] else { return false }
            return true
        }
    }

    /// Why the first record of `logFile` cannot be read, if it cannot: a damaged header (offset 0) or a
    /// damaged first frame (at its offset). Asked of the lowest file when files before it are missing
    /// and it is not a snapshot: most likely it is one, damaged where it says so.
    func firstRecordDamage(_ logFile: LogFile) throws -> SpoolError? {
        let file = try fileSystem.openFile(at: logFile.path, mode: .readOnly)
        defer { file.close() }
        let bytes = try file.read(at: 0, count: Int(try file.size()))
        return bytes.withUnsafeBytes { raw -> SpoolError? in
            let header: FileHeader
            switch FileHeader.decode(raw) {
            case .success(let decoded): header = decoded
            case .failure(.newerVersion): return nil
            case .failure(let problem):
                return SpoolError(
                    .corruption,
                    "the header of the lowest log file is damaged (\(problem)); the files before it are missing: it "
                        + "was a snapshot, or records are lost", path: logFile.path, offset: 0)
            }
            guard
                case .failure(let damage) = RecordFrame.parse(
                    raw, at: header.size, seed: RecordFrame.checksumSeed(instanceID: header.instanceID))
            else {
                // Intact, but not a snapshot's first record (`snapshot`, alone or with `snapshot_extent`):
                // a snapshot whose records were moved, or a log file whose predecessors are lost.
                return SpoolError(
                    .corruption,
                    "log files 1 to \(logFile.sequence - 1) are missing and the first record of file "
                        + "\(logFile.sequence) is not a snapshot's (`snapshot` first, alone or with `snapshot_extent`): "
                        + "a snapshot whose records are out of order, or a log whose first files are lost",
                    path: logFile.path, offset: Int64(header.size))
            }
            return SpoolError(
                .corruption,
                "the first record of the lowest log file is damaged (\(damage)); the files before it are missing: it "
                    + "was a snapshot, or records are lost", path: logFile.path, offset: Int64(header.size))
        }
    }

    /// The longest first record ``isSnapshot(_:)`` reads to check it.
    static let firstFrameReadLimit = 1 << 16
}
