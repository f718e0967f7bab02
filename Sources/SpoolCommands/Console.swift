import Foundation

/// Where a command writes: standard output for results, standard error for
/// warnings and errors. Tests substitute closures that capture the text.
package struct Console: Sendable {
    /// Writes text to the result stream.
    let writeOut: @Sendable (String) -> Void
    /// Writes text to the diagnostic stream.
    let writeErr: @Sendable (String) -> Void

    /// The process's standard output and standard error.
    package static let standard = Console(
        writeOut: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeErr: { FileHandle.standardError.write(Data($0.utf8)) })

    /// Prints one line of results.
    func out(_ line: String = "") { writeOut(line + "\n") }

    /// Prints one line of diagnostics.
    func err(_ line: String) { writeErr(line + "\n") }
}
