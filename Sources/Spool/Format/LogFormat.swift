/// The constants of the on-disk format, shared by the writer and the reader.
/// `FORMAT.md` describes every byte; keep the two in step.
enum LogFormat {
    /// The first eight bytes of every log file: `SPOOLWAL`.
    static let magic: [UInt8] = Array("SPOOLWAL".utf8)

    /// The format version this build writes.
    static let currentVersion: UInt16 = 2
    /// The oldest format version this build still reads.
    static let oldestReadableVersion: UInt16 = 1

    /// The header size of the files this build writes (see ``fileHeaderSize(version:)``).
    static let fileHeaderSize = fileHeaderSize(version: currentVersion)

    /// The longest file header of any version this build reads.
    static let longestFileHeaderSize = fileHeaderSize(version: currentVersion)

    /// The size of a file header of `version`. Version 1: magic (8) + version (2) + header
    /// size (2) + instance id (16) + file sequence number (8) + CRC-32C of the preceding
    /// 36 bytes (4) = 40. Version 2 adds, before the checksum, the LSN of the file's first
    /// record (8) = 48. A newer version is refused by its version field alone, before its size
    /// matters; version 0 (never written) is given version 1's size and judged as damage.
    static func fileHeaderSize(version: UInt16) -> Int {
        version >= firstLSNVersion ? 48 : 40
    }

    /// The first format version whose file header names the LSN of the file's first record.
    static let firstLSNVersion: UInt16 = 2

    /// Frame header: CRC-32C (4) + body length (4) + log sequence number (8)
    /// + record type (1) + reserved zero (1) + index within its commit group (2).
    static let frameHeaderSize = 20

    /// The largest record body a writer produces and a reader accepts. A
    /// length field above it is damage, never an allocation.
    static let maximumBodySize = 32 << 20

    /// The highest LSN a frame may carry (2^64 - 2): one more is still a ``UInt64``, so the LSN
    /// after any record (and after a snapshot's `last_lsn`) can be computed. A frame above it is damaged.
    static let maximumLSN = UInt64.max - 1

    /// The most records one commit group (one write + one sync) may hold, so
    /// that the 16-bit group index cannot overflow.
    static let maximumGroupRecords = Int(UInt16.max)
}

/// The kind of body a record frame carries.
enum RecordType: UInt8, Sendable {
    /// A transaction: a list of operations applied together (see ``LogOperation``).
    case transaction = 1
}

/// Names of the files in a queue directory.
enum QueueDirectoryLayout {
    /// The file an open queue holds an `flock` on.
    static let lockFileName = "LOCK"
    static let logPrefix = "wal-"
    static let logSuffix = ".log"

    static let snapshotTempPrefix = "snap-"
    static let snapshotTempSuffix = ".tmp"

    /// The name a snapshot is written under before it is complete: `snap-` + 16 hex digits + `.tmp`.
    static func snapshotTempName(sequence: UInt64) -> String {
        snapshotTempPrefix
            + String(logFileName(sequence: sequence).dropFirst(logPrefix.count).dropLast(logSuffix.count))
            + snapshotTempSuffix
    }

    /// Whether `name` is an unfinished snapshot, which open deletes.
    static func isSnapshotTemp(_ name: String) -> Bool {
        name.hasPrefix(snapshotTempPrefix) && name.hasSuffix(snapshotTempSuffix)
    }

    /// The largest file number a reader accepts (2^62): far above what the writer, counting up from 1,
    /// ever reaches, and far enough below 2^64 that the next file's number cannot overflow.
    static let maximumFileSequence: UInt64 = 1 << 62

    /// `wal-` + 16 lowercase hex digits of the sequence number + `.log`.
    static func logFileName(sequence: UInt64) -> String {
        let hex = String(sequence, radix: 16)
        return logPrefix + String(repeating: "0", count: max(0, 16 - hex.count)) + hex + logSuffix
    }

    /// The sequence number of a log file name, or `nil` for any other name.
    static func logSequence(fromFileName name: String) -> UInt64? {
        guard name.hasPrefix(logPrefix), name.hasSuffix(logSuffix),
            name.utf8.count == logPrefix.utf8.count + 16 + logSuffix.utf8.count
        else { return nil }
        let hex = name.dropFirst(logPrefix.count).dropLast(logSuffix.count)
        guard hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return UInt64(hex, radix: 16)
    }
}
