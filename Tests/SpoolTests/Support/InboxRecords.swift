@testable import Spool

/// The records of the inbox file `name` at `path` (bytes `bytes`), read from the header's end as the owner's
/// ingestion reads them: where a test damages one record of a producer's file.
func inboxRecords(in bytes: [UInt8], name: String, path: String) throws -> [InboxScanner.Record] {
    try bytes.withUnsafeBytes { raw in
        try InboxScanner.scan(raw, id: InboxFormat.fileID(fromName: name)!, path: path, from: 0).records
    }
}
