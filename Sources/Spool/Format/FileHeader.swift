/// The header at the start of every log file: 40 bytes in version 1, 48 in version 2
/// (which adds the LSN of the file's first record, see ``firstLSN``).
struct FileHeader: Equatable, Sendable {
    /// The format version the file was written in.
    var version: UInt16
    /// Identifies the queue; every file of one queue carries the same id.
    var instanceID: [UInt8]
    /// The file's position in the log; also in its name.
    var sequence: UInt64
    /// The LSN the file's first record has (or will have, while it holds none): 1 for a
    /// snapshot and for a queue's first file, otherwise the LSN after the last record of
    /// the log before it. `nil` in a version 1 file, which does not record it.
    var firstLSN: UInt64?

    /// A header of the version this build writes.
    init(instanceID: [UInt8], sequence: UInt64, firstLSN: UInt64) {
        self.init(version: LogFormat.currentVersion, instanceID: instanceID, sequence: sequence, firstLSN: firstLSN)
    }

    /// A header of any version: `firstLSN` is written from version 2 on (and must then be given).
    init(version: UInt16, instanceID: [UInt8], sequence: UInt64, firstLSN: UInt64?) {
        precondition(instanceID.count == 16)
        precondition(
            (firstLSN != nil) == (version >= LogFormat.firstLSNVersion), "version 2 headers name their first LSN")
        self.version = version
        self.instanceID = instanceID
        self.sequence = sequence
        self.firstLSN = firstLSN
    }

    /// The header's size on disk; records start there.
    var size: Int { LogFormat.fileHeaderSize(version: version) }

    /// Where the first-LSN field lies (version 2 on).
    static let firstLSNOffset = 36

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: size)
        writer.writeRaw(LogFormat.magic)
        writer.writeUInt16(version)
        writer.writeUInt16(UInt16(size))
        writer.writeRaw(instanceID)
        writer.writeUInt64(sequence)
        if let firstLSN { writer.writeUInt64(firstLSN) }
        writer.writeUInt32(CRC32C.checksum(writer.bytes))
        return writer.bytes
    }

    /// Why a header could not be accepted.
    enum Problem: Error, Equatable {
        /// Fewer bytes than a header: a file whose creation was torn by a crash.
        case incomplete
        /// The magic is wrong: not a Spool log file.
        case notASpoolFile
        /// Written by a newer Spool.
        case newerVersion(UInt16)
        /// The magic is right but the checksum or a field is wrong.
        case damaged(String)
    }

    /// Decodes and checks a header from the first bytes of a file (bytes after the header are ignored).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<FileHeader, Problem> {
        // The version comes right after the magic and is judged first: a newer format may lay the
        // rest of its header out differently (even shorter), and such a file must never be taken
        // for damage or for a torn creation, which open repairs. It also gives the header's size.
        let versionEnd = LogFormat.magic.count + 2
        var headerSize = LogFormat.fileHeaderSize(version: LogFormat.oldestReadableVersion)
        if bytes.count >= versionEnd, zip(bytes, LogFormat.magic).allSatisfy({ $0 == $1 }) {
            let version = UInt16(bytes[LogFormat.magic.count]) | UInt16(bytes[LogFormat.magic.count + 1]) << 8
            if version > LogFormat.currentVersion { return .failure(.newerVersion(version)) }
            headerSize = LogFormat.fileHeaderSize(version: version)
        }
        guard bytes.count >= headerSize else {
            // Only a prefix of a header (or zeroes) can be a creation cut short by a crash.
            let magicPrefix = zip(bytes, LogFormat.magic).allSatisfy({ $0 == $1 })
            return magicPrefix || bytes.allSatisfy({ $0 == 0 }) ? .failure(.incomplete) : .failure(.notASpoolFile)
        }
        guard zip(bytes, LogFormat.magic).allSatisfy({ $0 == $1 }) else {
            return bytes.prefix(headerSize).allSatisfy({ $0 == 0 })
                ? .failure(.incomplete) : .failure(.notASpoolFile)
        }
        var reader = ByteReader(bytes, position: LogFormat.magic.count)
        do {
            let version = try reader.readUInt16()
            let storedSize = try reader.readUInt16()
            let instanceRange = reader.position..<(reader.position + 16)
            _ = try reader.readUInt64()
            _ = try reader.readUInt64()
            let sequence = try reader.readUInt64()
            let firstLSN = version >= LogFormat.firstLSNVersion ? try reader.readUInt64() : nil
            let checksumOffset = reader.position
            let storedChecksum = try reader.readUInt32()
            let actual = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<checksumOffset]))
            guard storedChecksum == actual else { return .failure(.damaged("header checksum mismatch")) }
            guard version >= LogFormat.oldestReadableVersion, storedSize == headerSize else {
                return .failure(.damaged("unsupported version \(version) or header size \(storedSize)"))
            }
            if firstLSN == 0 { return .failure(.damaged("first LSN 0")) }
            return .success(
                FileHeader(
                    version: version, instanceID: Array(bytes[instanceRange]), sequence: sequence,
                    firstLSN: firstLSN))
        } catch {
            return .failure(.incomplete)
        }
    }
}
