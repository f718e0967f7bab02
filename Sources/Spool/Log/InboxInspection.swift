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

    /// Reads every inbox file of the queue at `queue` from the offset `offsets` records for it (the
    /// header's end without one), in name order. A file without a complete header (a creation cut short,
    /// or one being created) holds nothing acknowledged; a torn tail is a producer's write under way or
    /// cut short. A file that vanished under the read was removed by the owner once ingested.
    ///
    /// - Throws: A file's damage (``SpoolError/Code/corruption`` naming it and the offset) or newer
    ///   format, as the owner's ingestion reports it; an I/O error.
    /// - Parameter clock: Read after each file, for the stamp rule (``InboxScanner/checkStamps(_:boot:readAfter:path:)``).
    static func pending(
        queue: String, fileSystem: any FileSystem, offsets: [String: Int64], clock: any SpoolClock = SystemClock()
    ) throws -> [PendingFile] {
        let inbox = InboxFormat.directory(ofQueue: queue)
        guard try fileSystem.entryKind(at: inbox) == .directory else { return [] }
        var found: [PendingFile] = []
        for name in try fileSystem.contentsOfDirectory(at: inbox).sorted() {
            guard let id = InboxFormat.fileID(fromName: name) else { continue }
            let path = inbox + "/" + name
            let bytes: [UInt8]
            do {
                let file = try fileSystem.openFile(at: path, mode: .readOnly)
                defer { file.close() }
                bytes = try file.read(at: 0, count: Int(try file.size()))
            } catch let error as SpoolError where error.errno == Platform.Errno.noSuchEntry {
                continue
            }
            let records = try bytes.withUnsafeBytes { raw -> [InboxScanner.Record] in
                guard try InboxScanner.checkHeader(raw, id: id, path: path) else { return [] }
                return try InboxScanner.scan(raw, id: id, path: path, from: Int(offsets[name] ?? 0)).records
            }
            try InboxScanner.checkStamps(
                records, boot: clock.bootIdentifier(), readAfter: clock.monotonicNanoseconds(), path: path)
            if !records.isEmpty { found.append(PendingFile(name: name, bytes: bytes, records: records)) }
        }
        return found
    }
}
