import Foundation
import Testing
@testable import Spool

/// FORMAT.md's worked example is checked against the bytes this build writes,
/// so the document cannot drift from the code.
@Suite struct FormatDocumentTests {
    /// The example's bytes: a file header and one enqueue record.
    static func exampleBytes() -> [UInt8] {
        let instanceID = Array(UInt8(0)..<16)
        var bytes = FileHeader(instanceID: instanceID, sequence: 1, firstLSN: 1).encoded()
        let body = TransactionCodec.encode([.enqueue(NewEnqueue(
            id: "job-1", kind: "upload", payload: Data("hello".utf8), priority: 0,
            createdAt: 1_800_000_000_000, runAt: 1_800_000_000_000, maxAttempts: 5, uniqueKey: nil))])
        body.withUnsafeBytes {
            _ = RecordFrame.append(body: $0, type: .transaction, lsn: 1, groupIndex: 0,
                                   seed: RecordFrame.checksumSeed(instanceID: instanceID), to: &bytes)
        }
        return bytes
    }

    /// `xxd`-style lines: offset, 16 bytes in hex.
    static func hexDump(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { start in
            let row = bytes[start..<min(start + 16, bytes.count)]
            let offset = String(start, radix: 16)
            return String(repeating: "0", count: 4 - offset.count) + offset + ": "
                + row.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
        }
    }

    @Test func formatExample() throws {
        let expected = Self.hexDump(Self.exampleBytes())
        let expectedText = expected.joined(separator: "\n")
        let document = try String(contentsOfFile: packageRoot() + "/FORMAT.md", encoding: .utf8)
        let lines = document.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: "<!-- example-hex-begin -->"),
              let end = lines.firstIndex(of: "<!-- example-hex-end -->") else {
            Issue.record("FORMAT.md has no example markers; expected:\n\(expectedText)")
            return
        }
        let documented = lines[(start + 1)..<end].filter { $0.first?.isHexDigit == true }
        #expect(documented == expected, "FORMAT.md's example differs; this build writes:\n\(expectedText)")

        // The version 1 header of the same file, which this build reads (and no longer writes).
        let version1 = Self.hexDump(FileHeader(version: 1, instanceID: Array(UInt8(0)..<16), sequence: 1, firstLSN: nil).encoded())
        guard let v1Start = lines.firstIndex(of: "<!-- header-v1-hex-begin -->"),
              let v1End = lines.firstIndex(of: "<!-- header-v1-hex-end -->") else {
            Issue.record("FORMAT.md has no version 1 header markers; expected:\n\(version1.joined(separator: "\n"))")
            return
        }
        #expect(lines[(v1Start + 1)..<v1End].filter { $0.first?.isHexDigit == true } == version1)
        // And the version 2 header's dump in *File header* is the example's first 48 bytes.
        #expect(expected.prefix(3).allSatisfy { row in lines.contains { $0.hasPrefix(row + " ") } })

        // The example decodes back to what it says.
        let bytes = Self.exampleBytes()
        let header = try bytes.withUnsafeBytes { try FileHeader.decode($0).get() }
        #expect(header.sequence == 1 && header.version == 2 && header.firstLSN == 1)
        let found = try bytes.withUnsafeBytes {
            try RecordFrame.parse($0, at: header.size, seed: RecordFrame.checksumSeed(instanceID: header.instanceID)).get()
        }
        #expect(found.header.lsn == 1 && found.end == bytes.count)
    }
}

/// The package's root directory, found from this source file's path.
func packageRoot(file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
