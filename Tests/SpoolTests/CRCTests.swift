import Testing
@testable import Spool
@Test func placeholder() { #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE3069283) }
