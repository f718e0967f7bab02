import Foundation

@testable import Spool

/// A child `spool own` process (a `.shared` owner in another process), driven line by line: each
/// ``send(_:)`` writes one command to its standard input, each ``line()`` reads one answer.
final class OwnerChild {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(_ binary: String, directory: String, _ arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["own", directory] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Writes `command` and a newline to the child's standard input.
    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// The child's next line, or `nil` once it closed its output (it ended).
    func line() -> String? {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
                buffer = Data(buffer[(end + 1)...])
                return text
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Sends `command` and returns the answer.
    func ask(_ command: String) -> String? {
        send(command)
        return line()
    }

    /// Kills the child with SIGKILL and reaps it.
    func kill9() {
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    /// Ends the input (the child closes the queue and exits) and reaps it.
    func finish() {
        try? input.fileHandleForWriting.close()
        while line() != nil {}
        process.waitUntilExit()
    }
}
