import Spool

/// The line `spool stats` and `spool verify` print about format versions.
enum FormatVersionsText {
    /// `format: file version 1 (3 files); record bodies 1 (12 records), 2 (4 records); this build reads files 1-1, bodies 1, 2, 4`
    static func found(_ summary: VerificationSummary) -> String {
        func list(_ counts: [Int: Int], _ unit: String) -> String {
            counts.keys.sorted().map { "\($0) (\(counts[$0]!) \(unit)\(counts[$0]! == 1 ? "" : "s"))" }.joined(
                separator: ", ")
        }
        let readable = VerificationSummary.readableFileVersions
        // No file version when no log file has a complete header yet (an empty first file).
        return "format: file version " + (summary.fileVersions.isEmpty ? "none" : list(summary.fileVersions, "file"))
            + "; record bodies " + (summary.bodyVersions.isEmpty ? "none" : list(summary.bodyVersions, "record"))
            + "; this build reads files \(readable.lowerBound)-\(readable.upperBound), bodies "
            + VerificationSummary.readableBodyVersions.map(String.init).joined(separator: ", ")
    }
}
