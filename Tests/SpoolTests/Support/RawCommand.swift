import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the built `spool` with `posix_spawn`: its arguments given as bytes (which need not be
/// UTF-8, as `Process` requires), its standard input from given bytes or from a shared pipe, and
/// its standard output and error captured in files (no pipe to fill up and deadlock).
enum RawCommand {
    /// How a run ended and what it printed.
    struct Result {
        var status: Int32
        var outputBytes: [UInt8]
        var output: String { String(decoding: outputBytes, as: UTF8.self) }
        var error: String
    }

    /// A started child: its process id and where its output goes.
    struct Started {
        var pid: pid_t
        var outputPath: String
        var errorPath: String
    }

    /// Runs `binary` with text arguments to its end.
    static func run(
        _ binary: String, _ arguments: [String], input: [UInt8]? = nil,
        scratch: String
    ) throws -> Result {
        try run(binary, arguments.map { Array($0.utf8) }, input: input, scratch: scratch)
    }

    /// Runs `binary` with `arguments` (bytes) to its end, standard input holding `input` (or empty).
    static func run(
        _ binary: String, _ arguments: [[UInt8]], input: [UInt8]? = nil,
        scratch: String
    ) throws -> Result {
        let inputPath = scratch + "/stdin-\(UUID().uuidString)"
        try Data(input ?? []).write(to: URL(fileURLWithPath: inputPath))
        defer { unlink(inputPath) }
        let descriptor = open(inputPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        let started = try start(binary, arguments, standardInput: descriptor, scratch: scratch)
        return try finish(started)
    }

    /// Starts `binary` with `arguments`, its standard input a duplicate of `standardInput`.
    static func start(
        _ binary: String, _ arguments: [[UInt8]], standardInput: Int32,
        scratch: String
    ) throws -> Started {
        let name = scratch + "/child-\(UUID().uuidString)"
        let started = Started(pid: 0, outputPath: name + ".out", errorPath: name + ".err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_addopen(&actions, 1, started.outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, started.errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv =
            ([Array(binary.utf8)] + arguments).map { bytes -> UnsafeMutablePointer<CChar>? in
                let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
                pointer[bytes.count] = 0
                return pointer
            } + [nil]
        defer { for pointer in argv { pointer?.deallocate() } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, binary, &actions, nil, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        var done = started
        done.pid = pid
        return done
    }

    /// Waits for a started child; returns its exit status (128 + the signal when one killed it)
    /// and what it printed, and removes the output files.
    static func finish(_ started: Started) throws -> Result {
        var status: Int32 = 0
        while waitpid(started.pid, &status, 0) < 0 {
            guard errno == EINTR else { throw POSIXError(.ECHILD) }
        }
        defer {
            unlink(started.outputPath)
            unlink(started.errorPath)
        }
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = try [UInt8](Data(contentsOf: URL(fileURLWithPath: started.outputPath)))
        let error = try String(decoding: Data(contentsOf: URL(fileURLWithPath: started.errorPath)), as: UTF8.self)
        return Result(status: code, outputBytes: output, error: error)
    }
}
