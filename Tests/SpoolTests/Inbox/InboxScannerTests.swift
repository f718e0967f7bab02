import SpoolTestSupport
import Testing

@testable import Spool

/// How the owner finds where a producer's records end in a file that ends in its reservation's zeroes.
@Suite(.blocking) struct InboxScannerTests {
    /// ``Platform/endOfNonZero(_:)`` steps over zeroes a block at a time; the last non-zero byte may lie
    /// anywhere in a block, at either edge of one, or nowhere.
    @Test func theEndOfTheNonZeroBytesIsFoundAtEveryBlockEdge() {
        let size = 3 * 4096 + 200
        var positions = [0, 1, 63, 64, 65, 4095, 4096, 4097, 8191, 8192, size - 65, size - 64, size - 1]
        positions += stride(from: 100, to: size, by: 997)
        for position in positions {
            for count in [size, position + 1, position + 64, position + 4096] where count <= size {
                var bytes = [UInt8](repeating: 0, count: count)
                bytes[position] = 7
                let end = bytes.withUnsafeBytes { Platform.endOfNonZero($0) }
                #expect(end == position + 1, "a non-zero byte at \(position) of \(count)")
            }
        }
        #expect([UInt8](repeating: 0, count: size).withUnsafeBytes { Platform.endOfNonZero($0) } == 0)
        #expect([UInt8]().withUnsafeBytes { Platform.endOfNonZero($0) } == 0)
    }
}
