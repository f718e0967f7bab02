/// The 40-byte header at the start of every log file.
struct FileHeader: Equatable, Sendable {
    /// The format version the file was written in.
    var version: UInt16
    /// Identifies the queue; every file of one queue carries the same id.
    var instanceID: [UInt8]
    /// The file's position in the log; also in its name.
    var sequence: UInt64

    init(version: UInt16 = LogFormat.currentVersion, instanceID: [UInt8], sequence: UInt64) {
        precondition(instanceID.count == 16)
        self.version = version
        self.instanceID = instanceID
        self.sequence = sequence
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: LogFormat.fileHeaderSize)
        writer.writeRaw(LogFormat.magic)
        writer.writeUInt16(version)
        writer.writeUInt16(UInt16(LogFormat.fileHeaderSize))
        writer.writeRaw(instanceID)
        writer.writeUInt64(sequence)
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

    /// Decodes and checks a header from the first bytes of a file.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<FileHeader, Problem> {
        // The version comes right after the magic and is judged first: a newer format may lay the
        // rest of its header out differently (even shorter), and such a file must never be taken
        // for damage or for a torn creation, which open repairs.
        let versionEnd = LogFormat.magic.count + 2
        if bytes.count >= versionEnd, zip(bytes, LogFormat.magic).allSatisfy({ $0 == $1 }) {
            let version = UInt16(bytes[LogFormat.magic.count]) | UInt16(bytes[LogFormat.magic.count + 1]) << 8
            if version > LogFormat.currentVersion { return .failure(.newerVersion(version)) }
        }
        guard bytes.count >= LogFormat.fileHeaderSize else {
            // Only a prefix of a header (or zeroes) can be a creation cut short by a crash.
            let magicPrefix = zip(bytes, LogFormat.magic).allSatisfy({ $0 == $1 })
            return magicPrefix || bytes.allSatisfy({ $0 == 0 }) ? .failure(.incomplete) : .failure(.notASpoolFile)
        }
        guard zip(bytes, LogFormat.magic).allSatisfy({ $0 == $1 }) else {
            return bytes.prefix(LogFormat.fileHeaderSize).allSatisfy({ $0 == 0 })
                ? .failure(.incomplete) : .failure(.notASpoolFile)
        }
        var reader = ByteReader(bytes, position: LogFormat.magic.count)
        do {
            let version = try reader.readUInt16()
            let headerSize = try reader.readUInt16()
            let instanceRange = reader.position..<(reader.position + 16)
            _ = try reader.readUInt64(); _ = try reader.readUInt64()
            let sequence = try reader.readUInt64()
            let storedChecksum = try reader.readUInt32()
            let actual = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<36]))
            guard storedChecksum == actual else { return .failure(.damaged("header checksum mismatch")) }
            guard version >= LogFormat.oldestReadableVersion, headerSize == LogFormat.fileHeaderSize else {
                return .failure(.damaged("unsupported version \(version) or header size \(headerSize)"))
            }
            return .success(FileHeader(version: version, instanceID: Array(bytes[instanceRange]), sequence: sequence))
        } catch {
            return .failure(.incomplete)
        }
    }
}
