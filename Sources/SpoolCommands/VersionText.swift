import Spool

/// What `spool --version` prints: the library's version and the format versions this build
/// writes and reads, taken from the library's constants.
enum VersionText {
    /// `spool 0.1.0`, then one line for what it writes and one for what it reads.
    static var text: String {
        let read = VerificationSummary.readableFileVersions
        let bodies = VerificationSummary.readableBodyVersions
        return """
            spool \(SpoolVersion.library)
            writes: log file format \(SpoolVersion.fileFormatWritten); record bodies \(list(SpoolVersion.bodyVersionsWritten)) \
            (each record in the lowest version that holds its operations)
            reads: log file formats \(read.lowerBound)-\(read.upperBound); record bodies \(list(bodies))

            """
    }

    private static func list(_ versions: [Int]) -> String { versions.map(String.init).joined(separator: ", ") }
}
