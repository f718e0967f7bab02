import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads the exact bytes of a payload from a file or from standard input (`--payload-file`).
enum PayloadInput {
    /// Up to `limit` bytes of the file at `path`, or of standard input when `path` is `-`.
    ///
    /// - Throws: ``CommandFailure/operational(_:)`` naming the path, the call and the errno when the
    ///   file cannot be opened or read.
    static func read(_ path: String, atMost limit: Int) throws(CommandFailure) -> Data {
        let name = path == "-" ? "standard input" : path
        let descriptor: Int32
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure("open", name, errno) }
        }
        defer { if descriptor != STDIN_FILENO { _ = close(descriptor) } }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", name, errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return Data(bytes)
    }

    private static func failure(_ call: String, _ name: String, _ code: Int32) -> CommandFailure {
        .operational(
            "cannot read the payload from \(name): \(call) failed, errno \(code) (\(String(cString: strerror(code))))")
    }
}

/// `read(2)`, under a name the enum's own `read` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
