extension ByteReader {
    /// Reads a payload (a length-prefixed byte string) of a record body that lies at `bodyOffset`
    /// in log file `fileSequence`: where its bytes lie, with their checksum.
    mutating func readPayload(fileSequence: UInt64, bodyOffset: Int64) throws(DecodingError) -> PayloadLocation {
        let (range, checksum) = try readChecksummedByteRange()
        return PayloadLocation(
            fileSequence: fileSequence, offset: bodyOffset + Int64(range.lowerBound),
            length: Int32(range.count), checksum: checksum)
    }
}
