import Foundation

@testable import Spool

/// Runs the built `spool` tool, or the process tests' harness (`SpoolHarness`), as a child process.
enum ChildProcess {
    /// The `spool` executable next to the test bundle.
    static func spoolExecutable() -> String? { executable(named: "spool") }

    /// The harness executable next to the test bundle: the workloads `exercise`, `own` and `produce`.
    static func harnessExecutable() -> String? { executable(named: "SpoolHarness") }

    /// The executable `name` in the build directory that holds the test bundle.
    private static func executable(named name: String) -> String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Reads `handle` to its end, calling `line` with each complete line, in order. A last line without its
    /// newline (cut by a kill) is not one.
    static func readLines(_ handle: FileHandle, _ line: (String) -> Void) {
        var buffer = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { return }
            buffer.append(chunk)
            while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                line(String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self))
                buffer = Data(buffer[(end + 1)...])
            }
        }
    }

    /// Starts `binary` with its standard output on a pipe and its standard error discarded.
    private static func launch(_ binary: String, _ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Runs `binary` to its end; returns its exit status and what it printed on standard output.
    static func run(_ binary: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let (process, output) = try launch(binary, arguments)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Starts `binary`, reads its output until it has printed `count` lines, kills
    /// it with SIGKILL, and returns every complete line it printed.
    static func runAndKill(
        _ binary: String, _ arguments: [String], afterLines count: Int,
        whileRunning: () -> Void = {}
    ) throws -> [String] {
        let (process, output) = try launch(binary, arguments)
        var buffer = Data()
        let reader = output.fileHandleForReading
        while buffer.filter({ $0 == UInt8(ascii: "\n") }).count < count {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        whileRunning()
        kill(process.processIdentifier, SIGKILL)
        buffer.append(reader.readDataToEndOfFile())
        process.waitUntilExit()
        let text = String(decoding: buffer, as: UTF8.self)
        // A line without its newline may have been cut by the kill; it is not an acknowledgement.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        return lines
    }
}
