/// The encoding of the job fields added in body version 3: constraints,
/// prerequisites and periodic schedules (opcodes 14 and 16).
///
/// ```
/// constraints := flags:u8 count:varint name:string{count}
///     flags: bit 0 network, 1 unmetered network, 2 charging, 3 device idle,
///            4 battery not low; the other bits are 0.
///     names: the app-named conditions, sorted by their UTF-8 bytes, no repeats.
/// ids         := count:varint id:string{count}
/// periodic    := interval_ms:varint flex_ms:varint            (in an enqueue)
/// progress    := interval_ms:varint flex_ms:varint anchor:svarint occurrence:varint   (in a restore)
/// ```
enum OptionsCodec {
    static func encode(_ constraints: JobConstraints, into writer: inout ByteWriter) {
        var flags: UInt8 = 0
        if constraints.requiresNetwork { flags |= 1 }
        if constraints.requiresUnmeteredNetwork { flags |= 2 }
        if constraints.requiresCharging { flags |= 4 }
        if constraints.requiresDeviceIdle { flags |= 8 }
        if constraints.requiresBatteryNotLow { flags |= 16 }
        writer.writeUInt8(flags)
        let names = constraints.requiredConditions.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        writer.writeVarint(UInt64(names.count))
        for name in names { writer.writeString(name) }
    }

    static func encodeOptional(_ constraints: JobConstraints?, into writer: inout ByteWriter) {
        if let constraints, !constraints.isEmpty {
            writer.writeUInt8(1)
            encode(constraints, into: &writer)
        } else {
            writer.writeUInt8(0)
        }
    }

    static func encode(ids: [String], into writer: inout ByteWriter) {
        writer.writeVarint(UInt64(ids.count))
        for id in ids { writer.writeString(id) }
    }

    static func decodeOptionalConstraints(_ reader: inout ByteReader) throws -> JobConstraints? {
        switch try reader.readUInt8() {
        case 0: return nil
        case 1: break
        case let other: throw TransactionCodec.Failure.malformed("constraints presence byte \(other)")
        }
        let flags = try reader.readUInt8()
        guard flags & ~0x1f == 0 else { throw TransactionCodec.Failure.malformed("unknown constraint flags \(flags)") }
        let count = try reader.readCount(atMost: reader.remaining)
        var names = Set<String>()
        for _ in 0..<count {
            guard names.insert(try reader.readString()).inserted else {
                throw TransactionCodec.Failure.malformed("a condition named twice")
            }
        }
        let constraints = JobConstraints(
            requiresNetwork: flags & 1 != 0, requiresUnmeteredNetwork: flags & 2 != 0,
            requiresCharging: flags & 4 != 0, requiresDeviceIdle: flags & 8 != 0,
            requiresBatteryNotLow: flags & 16 != 0, requiredConditions: names)
        guard !constraints.isEmpty else { throw TransactionCodec.Failure.malformed("present but empty constraints") }
        return constraints
    }

    static func decodeIDs(_ reader: inout ByteReader) throws -> [String] {
        let count = try reader.readCount(atMost: reader.remaining)
        var ids: [String] = []
        ids.reserveCapacity(count)
        for _ in 0..<count { ids.append(try reader.readString()) }
        return ids
    }

    /// `periodic` of an enqueue: interval and flex.
    static func decodeOptionalSchedule(_ reader: inout ByteReader) throws -> (interval: Int64, flex: Int64)? {
        switch try reader.readUInt8() {
        case 0: return nil
        case 1:
            let interval = try reader.readDuration("interval_ms")
            let flex = try reader.readDuration("flex_ms")
            try checkSchedule(interval: interval, flex: flex)
            return (interval, flex)
        case let other: throw TransactionCodec.Failure.malformed("periodic presence byte \(other)")
        }
    }

    static func encodeOptional(_ periodic: StoredPeriodic?, into writer: inout ByteWriter) {
        guard let periodic else {
            writer.writeUInt8(0)
            return
        }
        writer.writeUInt8(1)
        writer.writeVarint(UInt64(periodic.interval))
        writer.writeVarint(UInt64(periodic.flex))
        writer.writeSignedVarint(periodic.anchor)
        writer.writeVarint(UInt64(periodic.occurrence))
    }

    /// `progress` of a restore.
    static func decodeOptionalProgress(_ reader: inout ByteReader) throws -> StoredPeriodic? {
        switch try reader.readUInt8() {
        case 0: return nil
        case 1:
            let interval = try reader.readDuration("interval_ms")
            let flex = try reader.readDuration("flex_ms")
            try checkSchedule(interval: interval, flex: flex)
            let anchor = try reader.readSignedVarint()
            let occurrence = try reader.readCounter("occurrence")
            guard occurrence >= 1 else {
                throw TransactionCodec.Failure.malformed("occurrence 0 (occurrences count from 1)")
            }
            return StoredPeriodic(interval: interval, flex: flex, anchor: anchor, occurrence: Int64(occurrence))
        case let other: throw TransactionCodec.Failure.malformed("periodic presence byte \(other)")
        }
    }

    /// A schedule's range: `interval > 0` and `0 <= flex <= interval` (both already below 2^63).
    private static func checkSchedule(interval: Int64, flex: Int64) throws {
        guard interval > 0, flex <= interval else {
            throw TransactionCodec.Failure.malformed("periodic interval \(interval) ms or flex \(flex) ms out of range")
        }
    }
}
