/// The version of this build of the library, and the format versions it writes.
///
/// What it reads is in ``VerificationSummary/readableFileVersions`` and
/// ``VerificationSummary/readableBodyVersions``.
public enum SpoolVersion {
    /// The library's version.
    public static let library = "0.1.0"
    /// The log file format version this build writes in every file header (FORMAT.md, *File header*).
    public static let fileFormatWritten = Int(LogFormat.currentVersion)
    /// The record body versions this build writes: each record in the lowest one that holds its
    /// operations (FORMAT.md, *Transaction body*).
    public static let bodyVersionsWritten = Array(
        Int(TransactionCodec.baseBodyVersion)...Int(TransactionCodec.bodyVersion))
}
