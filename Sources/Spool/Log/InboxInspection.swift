/// What producers acknowledged that the owner has not ingested yet, read without a lock and without
/// writing (FORMAT.md, *Producer inbox files*): `spool verify` judges every inbox file by it, and
/// inspection shows the jobs it holds as awaiting ingestion.
enum InboxInspection {
    /// One inbox file's records after the offset the log records for it.
    struct PendingFile {
        var name: String
        /// The file's bytes, where its records' payloads lie.
        var bytes: [UInt8]
        var records: [InboxScanner.Record]
    }

    /// What the inbox holds: the records of the files that could be read, and the error of each that
    /// could not (a damaged file, one of a newer format, one that could not be read), in name order.
    /// The owner's ingestion leaves such a file as it is and ingests the others; so does this reading.
    struct Pending {
        var files: [PendingFile] = []
        var damaged: [SpoolError] = []

        /// The first damaged file's error, thrown; for readers that refuse any damage (`verify`).
        func checked() throws -> [PendingFile] {
            if let first = damaged.first { throw first }
            return files
        }
    }

    /// Reads every inbox file of the queue at `queue` from the offset `offsets` records for it (the
    /// header's end without one), in name order. A file without a complete header (a creation cut short,
    /// or one being created) holds nothing acknowledged; a torn tail is a producer's write under way or
    /// cut short. A file that vanished under the read was removed by the owner once ingested.
    ///
    /// A file's damage (``SpoolError/Code/corruption`` naming it and the offset) or newer format, as the
    /// owner's ingestion reports it, and an error reading it are that file's entry in ``Pending/damaged``;
    /// the reading goes on with the next file.
    ///
    /// - Throws: An error listing the inbox folder.
    /// - Parameter clock: Read after each file, for the stamp rule (``InboxScanner/checkStamps(_:boot:readAfter:path:)``).
    static func pending(
        queue: String, fileSystem: any FileSystem, offsets: [String: Int64], clock: any SpoolClock = SystemClock()
    ) throws -> Pending {
        let inbox = InboxFormat.directory(ofQueue: queue)
        guard try fileSystem.entryKind(at: inbox) == .directory else { return Pending() }
        var found = Pending()
        for name in try fileSystem.contentsOfDirectory(at: inbox).sorted() {
            guard let id = InboxFormat.fileID(fromName: name) else { continue }
            let path = inbox + "/" + name
            do {
                let file = try read(
                    path: path, name: name, id: id, fileSystem: fileSystem, offsets: offsets, clock: clock)
                if let file { found.files.append(file) }
            } catch let error as SpoolError {
                found.damaged.append(error)
            } catch {
                found.damaged.append(SpoolError(.ioFailure, "\(error)", path: path))
            }
        }
        return found
    }

    /// One inbox file's pending records, or `nil` when it holds none (or vanished: the owner removed it
    /// once ingested).
    private static func read(
        path: String, name: String, id: [UInt8], fileSystem: any FileSystem, offsets: [String: Int64],
        clock: any SpoolClock
    ) throws -> PendingFile? {
        let bytes: [UInt8]
        do {
            let file = try fileSystem.openFile(at: path, mode: .readOnly)
            defer { file.close() }
            bytes = try file.read(at: 0, count: Int(try file.size()))
        } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
            return nil
        }
        let records = try bytes.withUnsafeBytes { raw -> [InboxScanner.Record] in
            guard try InboxScanner.checkHeader(raw, id: id, path: path) else { return [] }
            return try InboxScanner.scan(raw, id: id, path: path, from: Int(offsets[name] ?? 0)).records
        }
        try InboxScanner.checkStamps(
            records, boot: clock.bootIdentifier(), readAfter: clock.monotonicNanoseconds(), path: path)
        return records.isEmpty ? nil : PendingFile(name: name, bytes: bytes, records: records)
    }
}
