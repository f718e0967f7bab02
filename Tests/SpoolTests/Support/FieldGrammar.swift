import Foundation

@testable import Spool

/// The fields of every operation as FORMAT.md's tables spell them (`name:type`), and a walker
/// that finds each numeric field of an encoded body by that grammar alone, as a reader
/// written from the document would. ``DiskFieldRangeTests`` patches the fields it finds.
enum FieldGrammar {
    /// Opcode → the "fields, in order" column of FORMAT.md's tables.
    static let operations: [UInt8: String] = [
        1:
            "id:string kind:string priority:svarint created_at:svarint run_at:svarint max_attempts:svarint unique_key:opt<string> payload:bytes",
        2: "id:string token:u64 claimed_at:svarint lease_expires_at:svarint monotonic_expiry:varint boot_id:string",
        3: "id:string token:u64 lease_expires_at:svarint monotonic_expiry:varint",
        4: "id:string token:u64 at:svarint",
        5: "id:string token:u64 at:svarint error:string next_retry_at:opt<svarint>",
        6: "id:string at:svarint",
        7: "id:string at:svarint",
        8: "id:string run_at:svarint at:svarint",
        9: "id:string",
        10: "id:string at:svarint reason:string next_retry_at:opt<svarint>",
        11: restoreFields + " payload:bytes",
        12: "last_lsn:varint next_sequence:varint created_at:svarint expired_jobs:varint",
        13: "id:string",
        14:
            "id:string kind:string priority:svarint created_at:svarint run_at:svarint max_attempts:svarint unique_key:opt<string> constraints:opt<constraints> dependencies:ids periodic:opt<schedule> payload:bytes",
        15: "id:string at:svarint run_at:svarint",
        16: restoreFields + " " + restoreOptionFields + " payload:bytes",
        20: "number:varint at:svarint",
        21:
            "id:string kind:string state:u8 attempts:svarint max_attempts:svarint priority:svarint created_at:svarint run_at:svarint next_retry_at:opt<svarint> finished_at:opt<svarint> unique_key:opt<string> last_error:opt<string> lease:opt<lease> payload:opt<bytes>",
        22: "id:string",
        23: "number:varint",
        24: "number:varint",
        25: "id:string at:svarint reason:string",
        26: "id:string token:u64 key:string deadline:svarint",
        27: "id:string token:u64 data:bytes lease_expires_at:svarint monotonic_expiry:varint",
        28: "id:string data:bytes",
        30: "id:string token:u64 at:svarint reason:u8",
        31: "id:string token:u64 at:svarint run_at:svarint gives_back:u8",
        32: "id:string reason:u8",
        34: "kind:string at:svarint",
        35: "kind:string at:svarint",
        36: "kind:string at:svarint limit:opt<rate_limit>",
        37: "kind:string start:svarint count:varint",
        33: "id:string prerequisite:string data:bytes",
        38: "id:string count:varint tag:string{count}",
        39: "id:string data:bytes",
        40: "file:string offset:varint",
        41: "policy:u8",
        42: "boot_id:string monotonic:varint at:svarint",
        43: "tag:string at:svarint",
        45: "",
        46: "key:string deadline:svarint",
        47: "id:string count:varint delay_ms:varint{count}",
        48: "id:string base_ms:varint factor:u64 maximum_ms:varint jitter:u64",
        49: "id:string count:varint",
        50: "id:string constraints:opt<constraints>",
        44: "records:u64",
    ]

    /// The fields of `restore` up to `lease` (which `restore_with_options` shares).
    static let restoreFields =
        "id:string kind:string state:u8 attempts:svarint max_attempts:svarint priority:svarint sequence:varint created_at:svarint run_at:svarint next_retry_at:opt<svarint> finished_at:opt<svarint> unique_key:opt<string> last_error:opt<string> lease:opt<lease>"
    /// What `restore_with_options` adds after `lease`.
    static let restoreOptionFields = "constraints:opt<constraints> waiting_for:ids periodic:opt<progress>"

    /// The compound types, as FORMAT.md defines them.
    static let types: [String: String] = [
        "lease": "token:u64 claimed_at:svarint lease_expires_at:svarint monotonic_expiry:varint boot_id:string",
        "constraints": "flags:u8 count:varint name:string{count}",
        "ids": "count:varint id:string{count}",
        "schedule": "interval_ms:varint flex_ms:varint",
        "progress": "interval_ms:varint flex_ms:varint anchor:svarint occurrence:varint",
        "rate_limit": "starts:varint interval_ms:varint",
    ]

    /// How a patched field is written.
    enum Encoding: Equatable {
        case u8, u64, varint, svarint
        /// The varint length of a string or byte string.
        case length
    }

    /// One field found in a body: its name (with its operation's opcode), encoding and bytes.
    struct Spot {
        var name: String
        var encoding: Encoding
        var range: Range<Int>
    }

    struct WalkError: Error, CustomStringConvertible {
        var description: String
    }

    /// Every field of `body` (body version, count, each operation's opcode and fields), found by
    /// the grammar; throws when the grammar does not account for every byte.
    static func walk(_ body: [UInt8]) throws -> [Spot] {
        var walker = Walker(bytes: body)
        try walker.field("body_version", .u8)
        let count = try walker.field("count", .varint)
        for index in 0..<count {
            let opcode = UInt8(try walker.field("op\(index).opcode", .u8))
            guard let fields = operations[opcode] else {
                throw WalkError(description: "no grammar for opcode \(opcode)")
            }
            try walker.fields(fields, prefix: "op\(index)[\(opcode)].")
        }
        guard walker.position == body.count else {
            throw WalkError(description: "\(body.count - walker.position) bytes after the last operation")
        }
        return walker.spots
    }

    private struct Walker {
        let bytes: [UInt8]
        var position = 0
        var spots: [Spot] = []

        @discardableResult
        mutating func field(_ name: String, _ encoding: Encoding) throws -> UInt64 {
            let start = position
            let value: UInt64
            switch encoding {
            case .u8:
                guard position < bytes.count else { throw WalkError(description: "end of body in \(name)") }
                value = UInt64(bytes[position])
                position += 1
            case .u64:
                guard position + 8 <= bytes.count else { throw WalkError(description: "end of body in \(name)") }
                value = (0..<8).reduce(0) { $0 | UInt64(bytes[position + $1]) << (8 * UInt64($1)) }
                position += 8
            case .varint, .svarint, .length:
                var result: UInt64 = 0
                var shift: UInt64 = 0
                while true {
                    guard position < bytes.count, shift < 64 else {
                        throw WalkError(description: "bad varint in \(name)")
                    }
                    let byte = bytes[position]
                    position += 1
                    result |= UInt64(byte & 0x7F) << shift
                    if byte & 0x80 == 0 { break }
                    shift += 7
                }
                value = result
            }
            spots.append(Spot(name: name, encoding: encoding, range: start..<position))
            return value
        }

        mutating func fields(_ grammar: String, prefix: String) throws {
            var lastCount: UInt64 = 0
            for token in grammar.split(separator: " ") {
                let parts = token.split(separator: ":", maxSplits: 1).map(String.init)
                var type = parts[1]
                var repeats: UInt64 = 1
                if type.hasSuffix("{count}") {
                    type.removeLast("{count}".count)
                    repeats = lastCount
                }
                for _ in 0..<repeats {
                    let value = try value(prefix + parts[0], type)
                    if parts[0] == "count" { lastCount = value }
                }
            }
        }

        @discardableResult
        mutating func value(_ name: String, _ type: String) throws -> UInt64 {
            switch type {
            case "u8": return try field(name, .u8)
            case "u64": return try field(name, .u64)
            case "varint": return try field(name, .varint)
            case "svarint": return try field(name, .svarint)
            case "string", "bytes":
                let length = try field(name + ".length", .length)
                guard length <= UInt64(bytes.count - position) else {
                    throw WalkError(description: "\(name) runs past the body")
                }
                position += Int(length)
                return length
            default:
                if type.hasPrefix("opt<") && type.hasSuffix(">") {
                    let present = try field(name + ".present", .u8)
                    guard present <= 1 else { throw WalkError(description: "presence byte \(present) in \(name)") }
                    if present == 1 { try value(name, String(type.dropFirst(4).dropLast())) }
                    return present
                }
                guard let compound = FieldGrammar.types[type] else {
                    throw WalkError(description: "unknown type \(type)")
                }
                try fields(compound, prefix: name + ".")
                return 0
            }
        }
    }

    // MARK: Extremes

    /// The unsigned values every varint and u64 field is set to.
    static let unsignedExtremes: [UInt64] = [
        0, 1, 2, (1 << 31) - 1, 1 << 31, 1 << 32, (1 << 63) - 1, 1 << 63,
        UInt64.max - 1, UInt64.max,
    ]
    /// The signed values every svarint field is set to (besides the unsigned extremes as raw zigzag varints).
    static let signedExtremes: [Int64] = [
        -1, Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min),
        Int64(Int32.min) - 1, 250_000_000_000_000, Int64.max - 1, Int64.max,
        Int64.min, Int64.min + 1,
    ]
    static let byteExtremes: [UInt8] = [0, 1, 2, 5, 6, 0x1F, 0x20, 0x7F, 0x80, 0xFE, 0xFF]

    /// A varint of more than 64 bits, and a varint of ten bytes holding 2^63.
    static let rawVarints: [[UInt8]] = [
        [UInt8](repeating: 0xFF, count: 10) + [0x01], [UInt8](repeating: 0x80, count: 9) + [0x01],
    ]

    /// Every replacement for the bytes of a field of `encoding`, with a description.
    static func replacements(for encoding: Encoding) -> [(String, [UInt8])] {
        switch encoding {
        case .u8:
            return byteExtremes.map { ("\($0)", [$0]) }
        case .u64:
            return unsignedExtremes.map { value in
                ("\(value)", (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) })
            }
        case .varint, .length, .svarint:
            var out = unsignedExtremes.map { value -> (String, [UInt8]) in
                var writer = ByteWriter()
                writer.writeVarint(value)
                return (encoding == .svarint ? "raw \(value)" : "\(value)", writer.bytes)
            }
            if encoding == .svarint {
                out += signedExtremes.map { value in
                    var writer = ByteWriter()
                    writer.writeSignedVarint(value)
                    return ("\(value)", writer.bytes)
                }
            }
            return out + rawVarints.map { ("raw bytes \($0.map { String($0, radix: 16) }.joined(separator: " "))", $0) }
        }
    }
}
